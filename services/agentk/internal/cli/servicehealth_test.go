package cli

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"agentk/cmd/agentk/internal/command"
	"agentk/cmd/agentk/internal/command/commandtest"
	"agentk/cmd/agentk/internal/operator"
	"agentk/platform/health"

	"github.com/stretchr/testify/require"
)

// TestConfigAndIncidentsSayWhichServiceStopped: with a gate whose router
// stopped, `agentk config` fails naming it, and the incidents listing warns
// about it above the rows (issue 19: "agentk up keeps running and never says
// so").
func TestConfigAndIncidentsSayWhichServiceStopped(t *testing.T) {
	mux := health.NewMux()
	mux.Add(health.New("ingester", nil)).Ready()
	gate := mux.Add(health.New("gate", nil))
	gate.Ready()
	gate.Stopped(errors.New("gate: bus: router stopped: every handler stopped"))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")

	c, out, _ := commandtest.New(map[string]string{"AGENTK_HEALTH_ADDR": addr})
	require.Equal(t, 1, operator.ReportServiceHealth(context.Background(), c, c.Stdout))
	require.Contains(t, out.String(), "service gate is NOT READY: stopped: gate: bus: router stopped: every handler stopped (restarts 1)")
	require.NotContains(t, out.String(), "ingester")

	c, out, errb := commandtest.New(map[string]string{"AGENTK_HEALTH_ADDR": addr})
	require.Equal(t, 1, command.Run(context.Background(), c, []string{"config", "--service", "gate"}))
	require.Contains(t, out.String(), "service gate is NOT READY")
	require.Contains(t, errb.String(), "1 service(s) of the running agentk are not ready")

	gate.Ready()
	var buf bytes.Buffer
	require.Zero(t, operator.ReportServiceHealth(context.Background(), c, &buf))
	require.Contains(t, buf.String(), "note: service gate was restarted 1 time(s)")

	srv.Close()
	buf.Reset()
	require.Zero(t, operator.ReportServiceHealth(context.Background(), c, &buf), "no running agentk: nothing to say")
	require.Empty(t, buf.String())
}

// TestIncidentsSayWhyAServiceIsNotReady (issue 34 #3): a sandbox whose SigNoz
// refuses its key was listed as "NOT READY (restarts 0; last error: -)"; the
// warning now carries the failing dependency's own error, as /readyz has it.
func TestIncidentsSayWhyAServiceIsNotReady(t *testing.T) {
	mux := health.NewMux()
	sandbox := mux.Add(health.New("sandbox", nil))
	sandbox.Ready()
	sandbox.Dependency("signoz", errors.New("signoz does not answer with the sandbox's key: 401 Unauthorized"))
	mux.Add(health.New("gate", nil)) // never started
	srv := httptest.NewServer(mux)
	defer srv.Close()

	c, out, _ := commandtest.New(map[string]string{"AGENTK_HEALTH_ADDR": strings.TrimPrefix(srv.URL, "http://")})
	require.Equal(t, 2, operator.ReportServiceHealth(context.Background(), c, c.Stdout))
	require.Contains(t, out.String(), "WARNING: service sandbox is NOT READY: signoz: signoz does not answer with the sandbox's key: 401 Unauthorized\n")
	require.Contains(t, out.String(), "WARNING: service gate is NOT READY: not started yet\n")
	require.NotContains(t, out.String(), "last error: -")
}
