package recovery_test

import (
	"testing"

	"agentk/contracts"
	"agentk/services/deployer/internal/recovery"

	"github.com/stretchr/testify/require"
)

func TestJudge(t *testing.T) {
	t.Parallel()
	n := func(v int64) *int64 { return &v }
	rule := recovery.Rule{MaxErrorRate: 0.01, MinRequests: 20}
	cases := []struct {
		name       string
		reqs, errs *int64
		want       bool
		detail     string
	}{
		{name: "clean", reqs: n(600), errs: n(0), want: true, detail: "within the SLO"},
		{name: "at the SLO", reqs: n(100), errs: n(1), want: true, detail: "error rate 1.00%"},
		{name: "above the SLO", reqs: n(100), errs: n(2), want: false, detail: "above the SLO"},
		{name: "still failing half", reqs: n(600), errs: n(300), want: false, detail: "error rate 50.00%"},
		{name: "too little traffic", reqs: n(19), errs: n(0), want: false, detail: "not enough traffic to judge: 19 requests"},
		{name: "no traffic at all", reqs: n(0), errs: n(0), want: false, detail: "not enough traffic"},
		{name: "no counts", want: false, detail: "cannot judge"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ok, detail := recovery.Judge(contracts.Facts{RequestCount: c.reqs, ErrorCount: c.errs}, rule)
			require.Equal(t, c.want, ok, detail)
			require.Contains(t, detail, c.detail)
		})
	}
	ok, detail := recovery.Judge(contracts.Facts{RequestCount: n(0), ErrorCount: n(0)}, recovery.Rule{MaxErrorRate: 0.01})
	require.False(t, ok, "zero traffic is never recovery, even with no minimum: %s", detail)
}
