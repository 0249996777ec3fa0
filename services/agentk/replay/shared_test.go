package replay

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"agentk/contracts/incident"
	"agentk/services/sandbox/fakesignoz"

	"github.com/stretchr/testify/require"
)

// An eval builds each incident's telemetry once and every replay of it,
// whatever the investigator, serves that one; the replays' outcomes are
// those of replays that build their own. Eval returns only once every
// replay stopped what it started: no scratch folder is left behind.
// (Not parallel: it points ramDir at its own folder.)
func TestEvalSharesTelemetryAndTearsDownBeforeItReturns(t *testing.T) {
	inc, err := incident.Load(filepath.Join("..", "..", "..", "e2e", "incidents", "retry-storm-01"))
	require.NoError(t, err)
	scratch := t.TempDir()
	old := ramDir
	ramDir = scratch
	t.Cleanup(func() { ramDir = old })

	shared := &Shared{}
	invs := []string{"rules", "persona:oracle"}
	outs := Eval(context.Background(), []*incident.Incident{inc}, invs, Options{Shared: shared, Timeout: 90 * time.Second}, 2, nil)
	require.Len(t, outs, 2)
	left, err := os.ReadDir(scratch)
	require.NoError(t, err)
	require.Empty(t, left, "a replay's scratch folder outlived Eval")
	require.Len(t, shared.tel, 1, "one telemetry for the incident, whatever the investigator")
	tel := shared.tel[inc].t

	for i, inv := range invs {
		alone, err := RunIncident(context.Background(), inc, Options{Investigator: inv, Timeout: 90 * time.Second})
		require.NoError(t, err)
		require.Empty(t, outs[i].Error)
		got := outs[i].Result
		require.Equal(t, alone.Verdict, got.Verdict, inv)
		require.Equal(t, alone.Diagnosis, got.Diagnosis, inv)
		require.Equal(t, alone.FailedChecks, got.FailedChecks, inv)
		require.Equal(t, alone.Action, got.Action, inv)
		require.Equal(t, alone.ToolCalls, got.ToolCalls, inv)
	}
	require.Same(t, tel, mustTelemetry(t, shared, inc), "built once")
}

// mustTelemetry is s.telemetry(inc), which must not fail.
func mustTelemetry(t *testing.T, s *Shared, inc *incident.Incident) *fakesignoz.Telemetry {
	t.Helper()
	tel, err := s.telemetry(inc)
	require.NoError(t, err)
	return tel
}
