package replay

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// stableJSON is a result as `agentk eval --json` prints it, less what
// differs from one run to the next whatever the runner: its duration and
// the ids the pipeline draws.
func stableJSON(t *testing.T, r Result) string {
	t.Helper()
	r.DurationMs, r.IncidentID, r.DecisionID = 0, "", ""
	b, err := json.Marshal(r)
	require.NoError(t, err)
	return string(b)
}

// An eval replays incident by incident (every investigator of one before
// the next incident), lets an incident's telemetry go once its last replay
// finished when the Shared is its own, and returns the outcomes
// investigator by investigator; each outcome prints the JSON a replay of
// its own prints (the runner before issue 36), but for duration and ids.
func TestEvalGoesIncidentByIncidentAndLetsTelemetryGo(t *testing.T) {
	t.Parallel()
	var incs []*incident.Incident
	for _, id := range []string{"bad-release-01", "retry-storm-01", "unknown-01"} {
		inc, err := incident.Load(filepath.Join("..", "..", "..", "e2e", "incidents", id))
		require.NoError(t, err)
		incs = append(incs, inc)
	}
	invs := []string{"rules", "persona:liar"}
	shared := &Shared{release: true}
	var seen []string
	outs := Eval(context.Background(), incs, invs, Options{Shared: shared, Timeout: 90 * time.Second}, 2, func(o Outcome) {
		seen = append(seen, o.Investigator+" "+o.Incident)
		for n, inc := range incs {
			if inc.Meta.ID == o.Incident {
				shared.mu.Lock()
				for _, before := range incs[:n] {
					require.NotContains(t, shared.tel, before, "%s's telemetry kept past its last replay", before.Meta.ID)
				}
				shared.mu.Unlock()
			}
		}
	})
	require.Equal(t, []string{
		"rules bad-release-01", "persona:liar bad-release-01",
		"rules retry-storm-01", "persona:liar retry-storm-01",
		"rules unknown-01", "persona:liar unknown-01",
	}, seen, "replayed incident by incident")
	require.Len(t, outs, 6)
	require.Empty(t, shared.tel, "every incident's telemetry let go")
	for k, inv := range invs {
		for n, inc := range incs {
			got := outs[k*len(incs)+n]
			require.Empty(t, got.Error)
			require.Equal(t, inv, got.Investigator)
			require.Equal(t, inc.Meta.ID, got.Incident)
			alone, err := RunIncident(context.Background(), inc, Options{Investigator: inv, Timeout: 90 * time.Second})
			require.NoError(t, err)
			require.JSONEq(t, stableJSON(t, alone), stableJSON(t, got.Result), "%s %s", inv, inc.Meta.ID)
		}
	}
}

// A Shared of the caller's keeps every incident's telemetry after the eval.
func TestEvalKeepsTheCallersTelemetry(t *testing.T) {
	shared := &Shared{}
	inc := &incident.Incident{}
	tel := mustTelemetry(t, shared, inc)
	shared.done(inc)
	require.Same(t, tel, mustTelemetry(t, shared, inc))
	own := &Shared{release: true}
	mustTelemetry(t, own, inc)
	own.done(inc)
	require.NotContains(t, own.tel, inc)
}
