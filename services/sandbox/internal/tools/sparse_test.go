package tools_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"agentk/contracts/incident"
	"agentk/services/sandbox/internal/tools"

	"github.com/stretchr/testify/require"
)

const sparseCorpus = "../../../../e2e/incidents-sparse"

// sparseOverview runs service_overview on one incident of
// e2e/incidents-sparse through the fake SigNoz.
func sparseOverview(t *testing.T, id string) (overview tools.Output, marker time.Time) {
	t.Helper()
	inc, err := incident.Load(filepath.Join(sparseCorpus, id))
	require.NoError(t, err)
	var a struct {
		Alerts []struct {
			StartsAt time.Time `json:"startsAt"`
		} `json:"alerts"`
	}
	require.NoError(t, json.Unmarshal(inc.AlertJSON, &a))
	h := newHarness(t, inc, a.Alerts[0].StartsAt)
	h.now = inc.Meta.Now
	return overviewWithRule(t, h, inc.Meta.Service, ""), markerAt(t, inc)
}

// TestSparseCalleeCalledLessIsDownstream: on the sparse corpus's
// sp-gateway-panics-ledger-error-share (1-in-32 sampling) ledger-svc's p95
// and error rate left their baselines only because the gateway's release
// panics before most of its calls: it is downstream, not a shared cause. On
// the trap sp-trap-ledger-locks-gateway-release ledger-svc, called as much,
// fails on its own: it stays co-regressed. With mutant
// sandbox.downstream_fewer_calls the trap's failing callee is not called
// less, so the trap holds; TestFewerCallsNeedNoMoreFailures kills it.
func TestSparseCalleeCalledLessIsDownstream(t *testing.T) {
	t.Parallel()
	out, _ := sparseOverview(t, "sp-gateway-panics-ledger-error-share")
	require.Contains(t, out.Facts.Downstream, "ledger-svc", out.Compact)
	require.NotContains(t, out.Facts.CoRegressed, "ledger-svc", out.Compact)
	require.Contains(t, out.Compact, "ledger-svc (called 0.537x its baseline rate")
	trap, _ := sparseOverview(t, "sp-trap-ledger-locks-gateway-release")
	require.Contains(t, trap.Facts.CoRegressed, "ledger-svc", trap.Compact)
	require.NotContains(t, trap.Facts.Downstream, "ledger-svc", trap.Compact)
}

// TestSparseOnsetsAgainstMarkers: on e2e/incidents-sparse the onset falls
// after the release that caused the regression and before the one that did
// not (the trap, whose partner feed failed 9 minutes earlier). In
// sp-gateway-panics-ledger-error-share the first failing span came 23 s after
// the marker among 21 spans of every operation: refined over every span the
// onset lay 6 s before the marker; over the failing operation's own spans
// (facts.RefineByOps) it lies after it.
func TestSparseOnsetsAgainstMarkers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		id                string
		markerBeforeOnset bool
	}{
		{"sp-gateway-panics-ledger-error-share", true},
		{"sp-fx-config-cross-pairs", true},
		{"sp-trap-fx-feed-before-config", false},
	} {
		t.Run(tc.id, func(t *testing.T) {
			t.Parallel()
			out, marker := sparseOverview(t, tc.id)
			require.NotNil(t, out.Facts.Onset, out.Compact)
			t.Logf("onset %s, marker %s", out.Facts.Onset, marker)
			require.Equal(t, tc.markerBeforeOnset, marker.Before(*out.Facts.Onset), out.Compact)
		})
	}
}
