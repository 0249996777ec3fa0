package facts_test

import (
	"testing"

	"agentk/services/sandbox/internal/facts"

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
