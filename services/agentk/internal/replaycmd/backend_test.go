package replaycmd

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"agentk/cmd/agentk/replay"
	"agentk/platform/lockedbuf"

	"github.com/stretchr/testify/require"
)

// repoRoot is the repository, from this package.
const repoRoot = "../../../.."

// TestReplayIsTheSameWithTheMCPBackend: the sandbox reading telemetry
// through a SigNoz MCP server (AGENTK_SANDBOX_BACKEND=mcp) reaches the same
// diagnosis, verdict, failed checks and action as through the v5 API. The
// whole corpus is compared by `AGENTK_SANDBOX_BACKEND=mcp make eval`.
func TestReplayIsTheSameWithTheMCPBackend(t *testing.T) {
	if testing.Short() {
		t.Skip("replays")
	}
	for _, tc := range []struct{ incident, investigator string }{
		{"bad-release-01", "rules"},
		{"dependency-outage-04-marker-after-onset", "rules"},
		{"traffic-surge-03-deploy-coincides", "persona:oracle"},
	} {
		t.Run(tc.incident+"/"+tc.investigator, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			dir := filepath.Join(repoRoot, "e2e", "incidents", tc.incident)
			run := func(backend string) replay.Result {
				logs := &lockedbuf.Buffer{}
				res, err := replay.Run(ctx, dir, replay.Options{Investigator: tc.investigator, SandboxBackend: backend, Timeout: 90 * time.Second,
					Logger: slog.New(slog.NewTextHandler(logs, nil))})
				require.NoError(t, err, backend)
				require.True(t, res.Completed, backend)
				require.Contains(t, logs.String(), "backend="+backend, "the sandbox ran with the %s backend", backend)
				return res
			}
			api, viaMCP := run("api"), run("mcp")
			require.Positive(t, viaMCP.ToolCalls)
			type outcome struct {
				Diagnosis, Verdict, Action, Target string
				Confidence                         float64
				Failed                             []string
				Calls, Claims                      int
			}
			of := func(r replay.Result) outcome {
				return outcome{r.Diagnosis, r.Verdict, r.Action, r.RollbackTarget, r.Confidence, r.FailedChecks, r.ToolCalls, r.ClaimsPublished}
			}
			require.Equal(t, of(api), of(viaMCP))
		})
	}
	_, err := replay.Run(context.Background(), filepath.Join(repoRoot, "e2e", "incidents", "bad-release-01"), replay.Options{SandboxBackend: "grpc"})
	require.ErrorIs(t, err, replay.ErrBackend)
}
