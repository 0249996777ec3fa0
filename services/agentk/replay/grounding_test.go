package replay

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGroundedNumbers(t *testing.T) {
	t.Parallel()
	trace := `{"duration_ms":105.601,"span_id":"9cdc5c0767eda5f1","status_message":"checkout timed out after 100ms",` +
		`"time":"2026-11-22T09:04:51.886066Z","trace_id":"b23dbe5be781c4f2a90d6e1b7c3f5a28","version":"v3","requests":198}` +
		"\nerror_rate: 0.061\ninbound traffic: 1.058x"
	ev := evidenceTokens(trace)
	cases := []struct {
		name, statement string
		ok              bool
	}{
		{"no numbers", "the evidence cited shows the bad_release pattern", true},
		{"percent inside a trace id", "error rate reached 23%", false},
		{"milliseconds inside a trace id", "p95 latency 781 ms", false},
		{"the issue's claim", "after the release the error rate reached 23% and p95 latency 781 ms", false},
		{"a value under a _ms key", "a checkout took 105.6 ms", true},
		{"a unit in a log body", "timed out after 100ms", true},
		{"an error rate as a percentage", "error rate 6.1%", true},
		{"a count", "198 requests", true},
		{"a count is not milliseconds", "198 ms", false},
		{"a ratio", "traffic at 1.058x", true},
		{"words with digits are not numbers", "v3 of shop-api returned 5xx on p95", true},
		{"a timestamp is not a number", "since 2026-11-22T09:04:51Z", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.ok, grounded(tc.statement, ev), "%q against %v", tc.statement, ev)
		})
	}
}

// keptEvidenceTokens answers as evidenceTokens, asked once or again.
func TestEvidenceTokensKeptByText(t *testing.T) {
	for _, s := range []string{"error_rate: 0.061\ninbound traffic: 1.058x", "", "p95_ms: 781", "error_rate: 0.061\ninbound traffic: 1.058x"} {
		for range 2 {
			require.Equal(t, evidenceTokens(s), keptEvidenceTokens(s), s)
		}
	}
}
