package facts_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"
)

func TestOtherVersions(t *testing.T) {
	t.Parallel()
	const m = int64(60_000)
	// v1 served minutes 0..9, v2 from minute 8 (first), the onset at 9.
	counts := map[string]map[int64]float64{
		"v1": {0: 10, m: 10, 2 * m: 10, 8 * m: 6, 9 * m: 4, 10 * m: 2},
		"v2": {8 * m: 4, 9 * m: 6, 10 * m: 8},
		// A sidecar's entry spans name no version: left out.
		"": {0: 10, 9 * m: 10, 10 * m: 10},
	}
	cases := []struct {
		name string
		rows []facts.VersionErrors
		want contracts.OtherVersionErrors
	}{
		{"no errors", nil, contracts.OtherVersionErrors{Requests: 6, HistoryRequests: 30}},
		{"the previous version fails beside the running one since the onset", []facts.VersionErrors{
			{Version: "v1", Signature: "TypeError", TS: 9 * m, N: 3}, {Version: "v1", Signature: "HTTP 500", TS: 10 * m, N: 1},
			{Version: "v2", Signature: "TypeError", TS: 9 * m, N: 4},
		}, contracts.OtherVersionErrors{Requests: 6, Errors: 4, HistoryRequests: 30}},
		{"history errors count every version before the first minute; the minutes between first and onset count on neither side", []facts.VersionErrors{
			{Version: "v1", Signature: "timeout", TS: m, N: 2}, {Version: "v1", Signature: "timeout", TS: 8 * m, N: 5},
		}, contracts.OtherVersionErrors{Requests: 6, HistoryRequests: 30, HistoryErrors: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, &c.want, facts.OtherVersions(counts, c.rows, "v2", 8*m, 9*m))
		})
	}
}
