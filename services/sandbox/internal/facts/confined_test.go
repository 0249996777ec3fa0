package facts_test

import (
	"testing"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// TestVersionConfined: a peer failing on the running version's calls while
// the other versions' calls of the same key succeed is confined to the
// release (lm7's six 6.1.0 PostEntry calls beside 71 of 6.1.1's 128
// failing); too few other calls, other calls failing alike, or a share too
// low for the other calls' successes to mean anything, stay a failing
// dependency.
func TestVersionConfined(t *testing.T) {
	pc := func(calls, errs, other, otherErr float64) []facts.PeerCall {
		return []facts.PeerCall{{Key: "PostEntry", BaseCalls: 700, Calls: calls, Errors: errs, OtherCalls: other, OtherErrors: otherErr}}
	}
	cases := []struct {
		name  string
		calls []facts.PeerCall
		want  bool
	}{
		{"lm7: six clean old calls against 55%", pc(134, 71, 6, 0), true},
		{"two clean old calls", pc(130, 71, 2, 0), false},
		{"four clean old calls", pc(132, 71, 4, 0), false},
		{"old calls fail alike (an outage mid-rollout)", pc(160, 85, 30, 14), false},
		{"a low share: 6 clean old calls prove nothing", pc(206, 21, 6, 0), false},
		{"no other version since the onset", pc(128, 71, 0, 0), false},
		{"too few failures", pc(20, 2, 10, 0), false},
		{"old calls succeed on another key only", []facts.PeerCall{
			{Key: "PostEntry", BaseCalls: 700, Calls: 128, Errors: 71},
			{Key: "GetBalance", BaseCalls: 700, Calls: 40, OtherCalls: 20},
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, facts.VersionConfined(c.calls))
		})
	}
}

// TestFailingCalleePeers: a peer name is the callee's only where the
// callee's failing span lies directly beneath the service's failed call to
// it; a peer whose failed calls no failing span of the callee answered (a
// database, a refused connection) is not.
func TestFailingCalleePeers(t *testing.T) {
	span := func(tid, id, parent, svc, kind, peer string, failed bool) signoz.RawRow {
		d := map[string]any{"trace_id": tid, "span_id": id, "parent_span_id": parent, "service.name": svc, "kind_string": kind, "has_error": failed}
		if peer != "" {
			d["net.peer.name"] = peer
		}
		return signoz.RawRow{Data: d}
	}
	calls := []signoz.RawRow{
		span("t1", "c1", "r1", "billing-api", "Client", "ledger-svc.lumen.internal", true),
		span("t2", "c2", "r2", "billing-api", "Client", "10.0.0.9", true),
	}
	traces := []signoz.RawRow{
		span("t1", "s1", "c1", "ledger-svc", "Server", "", true),
		span("t2", "s2", "c2", "ledger-svc", "Server", "", false),
	}
	keys := []string{"server.address", "net.peer.name"}
	require.Equal(t, []string{"ledger-svc.lumen.internal"}, facts.FailingCalleePeers(traces, calls, "billing-api", "ledger-svc", keys))
	require.Empty(t, facts.FailingCalleePeers(traces, calls, "billing-api", "wallet-svc", keys))
}

// TestOthersQuiet: a callee whose failures are all the service's calls
// (no other caller) is quiet; one whose other callers' failures rose from
// none to twenty in fourteen minutes is not; unmeasured is not.
func TestOthersQuiet(t *testing.T) {
	callee := func(errBefore, errSince float64) *facts.CallsFell {
		return &facts.CallsFell{ReqBefore: 1980, ReqSince: 197, ErrBefore: errBefore, ErrSince: errSince, MinutesBefore: 110, MinutesSince: 14}
	}
	calls := &facts.CallsFell{ReqBefore: 990, ReqSince: 134, ErrSince: 71, MinutesBefore: 110, MinutesSince: 14}
	require.True(t, facts.OthersQuiet(callee(0, 71), calls))
	require.True(t, facts.OthersQuiet(callee(0, 72), calls))
	require.False(t, facts.OthersQuiet(callee(0, 91), calls))
	require.False(t, facts.OthersQuiet(nil, calls))
}
