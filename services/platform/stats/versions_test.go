package stats_test

import (
	"testing"

	"agentk/contracts"
	"agentk/platform/stats"

	"github.com/stretchr/testify/require"
)

func TestOtherVersionsFail(t *testing.T) {
	t.Parallel()
	other := func(req, errs, hreq, herrs int64) *contracts.ReleaseErrors {
		return &contracts.ReleaseErrors{Requests: 100, Errors: 20,
			OtherVersions: &contracts.OtherVersionErrors{Requests: req, Errors: errs, HistoryRequests: hreq, HistoryErrors: herrs}}
	}
	cases := []struct {
		name           string
		r              *contracts.ReleaseErrors
		fail, measured bool
	}{
		{name: "no release facts", r: nil},
		{name: "no comparison", r: &contracts.ReleaseErrors{Requests: 100, Errors: 20}},
		{name: "old version fails as much, history clean", r: other(50, 10, 1000, 5), fail: true, measured: true},
		{name: "old version stopped serving", r: other(9, 9, 1000, 5), measured: true},
		{name: "two errors say nothing", r: other(50, 2, 1000, 0), measured: true},
		{name: "within the history's rate", r: other(50, 3, 1000, 50), measured: true},
		{name: "beyond history but far under the running rate", r: other(400, 12, 10000, 10), measured: true},
		{name: "more errors than requests is no reading", r: other(10, 11, 1000, 0), measured: true},
		{name: "no history: any error is beyond it", r: other(20, 5, 0, 0), fail: true, measured: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p, fail, measured := stats.OtherVersionsFail(c.r)
			require.Equal(t, c.fail, fail)
			require.Equal(t, c.measured, measured)
			if fail {
				require.Less(t, p, stats.OtherVersionsFailP)
			}
		})
	}
}
