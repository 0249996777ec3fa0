package contracts_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
)

// TestRetriedFaultRetryBound: what retrying a peer's failures explains, and
// whether its calls rose beyond it, as the gate and the rules read it.
func TestRetriedFaultRetryBound(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		fault  contracts.RetriedFault
		bound  float64
		beyond bool
	}{
		{name: "no failures explain no retries", fault: contracts.RetriedFault{CallRatio: 1}, bound: 1},
		{name: "no limit: 1/(1-p)", fault: contracts.RetriedFault{CallRatio: 2, FailureRate: 0.5}, bound: 2},
		{name: "within the slack", fault: contracts.RetriedFault{CallRatio: 2.4, FailureRate: 0.5}, bound: 2},
		{name: "beyond the slack", fault: contracts.RetriedFault{CallRatio: 2.41, FailureRate: 0.5}, bound: 2, beyond: true},
		// ho3-trap-carrier-503-booking-gateway: an outside API's 503s at
		// p = 0.77, resilience4j's unchanged three attempts.
		{name: "carrier 503s, limit unknown", fault: contracts.RetriedFault{CallRatio: 2.36, FailureRate: 0.77}, bound: 1 / 0.23},
		{name: "carrier 503s, three attempts", fault: contracts.RetriedFault{CallRatio: 2.36, FailureRate: 0.77, PreviousAttempts: 3}, bound: 1 + 0.77 + 0.77*0.77},
		{name: "release retrying 6x on a blip, old limit 3", fault: contracts.RetriedFault{CallRatio: 6, FailureRate: 0.9, PreviousAttempts: 3}, bound: 1 + 0.9 + 0.81, beyond: true},
		{name: "one attempt explains one call", fault: contracts.RetriedFault{CallRatio: 1.3, FailureRate: 0.9, PreviousAttempts: 1}, bound: 1, beyond: true},
		// ho3-cache-key-quote-api-ratecard-effect: 10x the calls a quote.
		{name: "cache keyed by request id", fault: contracts.RetriedFault{CallRatio: 10, FailureRate: 0.3}, bound: 1 / 0.7, beyond: true},
		{name: "every call fails, no limit", fault: contracts.RetriedFault{CallRatio: 1000, FailureRate: 1}, bound: math.Inf(1)},
		{name: "rate above 1 is clamped", fault: contracts.RetriedFault{CallRatio: 3.7, FailureRate: 1.5, PreviousAttempts: 3}, bound: 3, beyond: true},
		{name: "rate below 0 is clamped", fault: contracts.RetriedFault{CallRatio: 1.2, FailureRate: -0.5}, bound: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.InDelta(t, tc.bound, tc.fault.RetryBound(), 1e-9)
			require.Equal(t, tc.beyond, tc.fault.RoseBeyondRetries())
		})
	}
}
