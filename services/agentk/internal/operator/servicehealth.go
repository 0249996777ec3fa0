package operator

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"agentk/cmd/agentk/internal/command"
	"agentk/platform/health"
)

// runningHealth asks a running `agentk up` on this machine
// (AGENTK_HEALTH_ADDR, default 127.0.0.1:8090) how its services are. ok is
// false when nothing answers there: no `up` is running, or it runs elsewhere.
func runningHealth(ctx context.Context, c *command.Env) (ss []health.Status, ok bool) {
	addr := c.Getenv("AGENTK_HEALTH_ADDR")
	if addr == "" {
		addr = "127.0.0.1:8090"
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/readyz", nil)
	if err != nil {
		return nil, false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, false
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil || json.Unmarshal(b, &ss) != nil {
		var one health.Status
		if json.Unmarshal(b, &one) != nil || one.Service == "" {
			return nil, false
		}
		ss = []health.Status{one}
	}
	return ss, true
}

// ReportServiceHealth writes one line per service of the running `agentk
// up` that is not ready or was restarted, and returns how many are not
// ready. It writes nothing when every service is fine or no `up` answers.
func ReportServiceHealth(ctx context.Context, c *command.Env, w io.Writer) int {
	ss, ok := runningHealth(ctx, c)
	if !ok {
		return 0
	}
	down := 0
	for _, s := range ss {
		switch {
		case !s.Ready:
			down++
			fmt.Fprintf(w, "WARNING: service %s is NOT READY: %s%s\n", s.Service, printable(s.Reason(), 300), restarts(s))
		case s.Restarts > 0:
			fmt.Fprintf(w, "note: service %s was restarted %d time(s); last error: %s\n", s.Service, s.Restarts, printable(s.LastError, 300))
		}
	}
	return down
}

// restarts is the restart count and last error of a not-ready service, when
// it was restarted and the reason does not say it already.
func restarts(s health.Status) string {
	switch {
	case s.Restarts == 0:
		return ""
	case s.LastError == "" || strings.Contains(s.Reason(), s.LastError):
		return fmt.Sprintf(" (restarts %d)", s.Restarts)
	}
	return fmt.Sprintf(" (restarts %d; last error: %s)", s.Restarts, printable(s.LastError, 300))
}
