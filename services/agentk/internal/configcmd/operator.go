package configcmd

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"agentk/cmd/agentk/internal/bridgecmd"
	"agentk/cmd/agentk/internal/command"
	"agentk/cmd/agentk/internal/envdoc"
	"agentk/cmd/agentk/internal/operator"
	"agentk/platform/topology"
)

// elsewhere reports whether the services run somewhere else than this
// shell: AGENTK_NATS_URL points at a NATS server of their own (the compose
// stack, docs/deploy.md) and no service was named. Such a shell holds none
// of the services' secrets, so checking their configuration here would
// report healthy services as INVALID; it checks what the operator's
// commands need instead.
func elsewhere(c *command.Env, only string, all bool) bool {
	return only == "" && !all && c.Getenv("AGENTK_NATS_URL") != ""
}

// checkOperator checks what the operator's commands need from this shell:
// NATS as the admin with the stack's buckets (incidents, decisions, report,
// audit, shadow-report), and the bridge's API with the approver token
// (approve, deny, freeze, unfreeze) when one is set. It says how the
// services check themselves. It returns how many checks failed.
func checkOperator(ctx context.Context, c *command.Env) int {
	w := c.Stdout
	fmt.Fprintf(w, "\nThe services run elsewhere (AGENTK_NATS_URL is set): each checks its own configuration when it starts\n"+
		"and refuses to start on a bad one. To see one's check where it runs (the compose stack):\n"+
		"  docker-compose exec -T <service> agentk config --service <service>\n"+
		"(`agentk config --all` checks every service against this shell's environment instead.)\n")
	fmt.Fprintln(w, "\nWhat the operator's commands need from this shell:")
	failed := 0
	if err := checkAdmin(ctx, c); err != nil {
		fmt.Fprintf(w, "  %-13s FAILED: %v\n", "nats", err)
		failed++
	} else {
		fmt.Fprintf(w, "  %-13s ok: %s as the admin (keys in %s); incidents, decisions, report, audit, shadow-report can read\n",
			"nats", envdoc.Redact("AGENTK_NATS_URL", c.Getenv("AGENTK_NATS_URL")), c.KeysDir())
	}
	switch u, tok, err := bridgecmd.BridgeAccess(c); {
	case err != nil:
		fmt.Fprintf(w, "  %-13s not set: approve, deny, freeze and unfreeze need AGENTK_APPROVER_TOKEN (the bridge's console token)\n", "bridge api")
	default:
		if err := checkBridgeAPI(ctx, u, tok); err != nil {
			fmt.Fprintf(w, "  %-13s FAILED: %v\n", "bridge api", err)
			failed++
		} else {
			fmt.Fprintf(w, "  %-13s ok: %s accepts the approver token; approve, deny, freeze, unfreeze can answer\n", "bridge api", u)
		}
	}
	return failed
}

// checkAdmin connects as the operator's commands do and opens the buckets
// they read; it never creates one.
func checkAdmin(ctx context.Context, c *command.Env) error {
	adm, done, err := operator.Admin(ctx, c)
	if err != nil {
		return err
	}
	defer done()
	for _, b := range []string{topology.BucketIncidents, topology.BucketDecisions} {
		if _, err := adm.KeyValue(ctx, b); err != nil {
			return fmt.Errorf("%w (has the stack's provision container run?)", err)
		}
	}
	return nil
}

// checkBridgeAPI asks the bridge's API for the open decisions with the
// approver token: what `agentk approve` will reach, and whether the token
// is accepted.
func checkBridgeAPI(ctx context.Context, consoleURL, token string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, consoleURL+"/api/v1/decisions", nil)
	if err != nil {
		return fmt.Errorf("AGENTK_CONSOLE_URL: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("the bridge's API does not answer at %s (AGENTK_CONSOLE_URL): %w", consoleURL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	switch {
	case resp.StatusCode == http.StatusOK:
		return nil
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("the bridge at %s refuses AGENTK_APPROVER_TOKEN (HTTP %d): use a token of its AGENTK_CONSOLE_TOKENS", consoleURL, resp.StatusCode)
	}
	return fmt.Errorf("the bridge at %s answered HTTP %d: %s", consoleURL, resp.StatusCode, strings.TrimSpace(string(b)))
}
