package policy_test

import (
	"testing"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"

	"github.com/stretchr/testify/require"
)

// TestLoadSheddingUnderRisingTrafficDenies: a release whose new errors say
// the service turned requests away for load, while its arrivals rose by half
// or more (under the surge ratio that denies alone), is load; the same
// errors at the load it always had (a release that lowered a limit), errors
// that say something else, or a shedding status on a minority of the errors
// leave the verdict to the other checks. Seed 613273's w009 (a surge read
// at 2.43x, its 429s new with 1.21.0) was rolled back without it.
func TestLoadSheddingUnderRisingTrafficDenies(t *testing.T) {
	const shed = "too many concurrent requests"
	for _, tc := range []struct {
		name      string
		sig       string
		newErrors int64
		ratio     float64
		published *float64
		allow     bool
	}{
		{name: "shedding under a 2.43x surge", sig: shed, newErrors: 90, ratio: 2.43},
		{name: "a full bulkhead at 1.6x", sig: "Bulkhead 'quotes' is full and does not permit further calls", newErrors: 90, ratio: 1.6},
		{name: "a consumer's producers published 2.7x", sig: "server overloaded, shedding request", newErrors: 90, ratio: 1.1, published: ptr(2.7)},
		{name: "shedding at the usual load: a lowered limit", sig: shed, newErrors: 90, ratio: 1.1, allow: true},
		{name: "a consumer's deliveries rose, its producers' publishes did not", sig: shed, newErrors: 90, ratio: 2.43, published: ptr(1.0), allow: true},
		{name: "a panic under a 2.43x rise", sig: "runtime error: index out of range [#]", newErrors: 90, ratio: 2.43, allow: true},
		{name: "shedding on a minority of the errors", sig: shed, newErrors: 40, ratio: 2.43, allow: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			best := contracts.Claim{ID: "c1", Class: "bad_release", Statement: "v2 broke it", Confidence: 0.82, EvidenceIDs: []string{"ev-overview", "ev-markers"}}
			in.Review.Kept, in.Review.Best = []contracts.Claim{best}, &best
			f := &in.Evidence[0].Facts
			f.PeakCallRatio, f.PeakCallPeer = nil, ""
			f.Release.NewSignature, f.Release.NewErrors = tc.sig, tc.newErrors
			f.TrafficRatio = ptr(tc.ratio)
			if tc.published != nil {
				f.PublishedArrivals = &contracts.PublishedArrivals{Destinations: []string{"orders.placed"}, Ratio: *tc.published, PublishRatio: *tc.published}
			}
			d := policy.Evaluate(in)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks, "%v", d.Checks)
			require.Contains(t, d.Checks[4].Reason, "turned requests away for load")
		})
	}
}

func TestShedsLoad(t *testing.T) {
	for msg, want := range map[string]bool{
		"too many concurrent requests":              true,
		"429 Too Many Requests":                     true,
		"server overloaded, shedding request":       true,
		"concurrency limit reached":                 true,
		"Bulkhead 'x' is full":                      true,
		"request queue is full":                     true,
		"runtime error: index out of range [#]":     false,
		"connection refused":                        false,
		"TypeError: cannot read properties of null": false,
	} {
		require.Equal(t, want, policy.ShedsLoad(msg), msg)
	}
}
