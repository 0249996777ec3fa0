package facts_test

import (
	"testing"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// TestRetryRise: the source whose retries per inbound request rose most
// from the baseline (minutes 0-39) to the onset on (minute 40), an
// attribute's series or the retry log lines; nil under the minimums, a
// refused query says nothing, and a response that is no time series is
// ErrBadResponse.
func TestRetryRise(t *testing.T) {
	t.Parallel()
	at40 := at(40)
	on := facts.Onset{At: &at40, BaselineFrom: at(0)}
	roots := make([]facts.Minute, 60)
	for i := range roots {
		roots[i] = facts.Minute{At: at(i), Requests: 10}
	}
	attr := func(base, since float64) signoz.Response {
		return response(t, ser{labels(), 0, minutes(0, 60, func(i int) float64 {
			if i < 40 {
				return base
			}
			return since
		})})
	}
	thin := make([]facts.Minute, 60)
	for i := range thin {
		thin[i] = facts.Minute{At: at(i), Requests: 0.2}
	}
	refused := signoz.Response{Refused: "unknown attribute"}
	tests := []struct {
		name  string
		keys  []string
		attrs []signoz.Response
		logs  signoz.Response
		roots []facts.Minute
		want  *contracts.RetryRise
	}{
		{"an attribute's retries rise", []string{"app.retries"}, []signoz.Response{attr(1, 5)}, refused, roots,
			&contracts.RetryRise{Source: "attribute", Key: "app.retries", Since: 0.5, Baseline: 0.1, Events: 100, Ratio: 5}},
		{"a baseline with none counts half a retry", []string{"app.retries"}, []signoz.Response{attr(0, 1)}, refused, roots,
			&contracts.RetryRise{Source: "attribute", Key: "app.retries", Since: 0.1, Baseline: 0, Events: 20, Ratio: 80}},
		{"the log lines rose more", []string{"app.retries"}, []signoz.Response{attr(1, 2)}, attr(1, 6), roots,
			&contracts.RetryRise{Source: "logs", Key: "retry log lines", Since: 0.6, Baseline: 0.1, Events: 120, Ratio: 6}},
		{"under MinRetryEvents since the onset", []string{"app.retries"}, []signoz.Response{attr(0, 0.2)}, refused, roots, nil},
		{"a refused attribute says nothing", []string{"app.retries"}, []signoz.Response{refused}, refused, roots, nil},
		{"too few inbound requests", []string{"app.retries"}, []signoz.Response{attr(1, 5)}, refused, thin, nil},
		// 4 retries on 400 requests before, 5 on 200 since: 2.5x, p ≈ 0.15.
		{"a rise of a handful of retries is not significant", []string{"app.retries"}, []signoz.Response{attr(0.1, 0.25)}, refused, roots, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := facts.RetryRise(tc.keys, tc.attrs, tc.logs, tc.roots, on)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
	_, err := facts.RetryRise([]string{"app.retries"}, []signoz.Response{rawResponse()}, refused, roots, on)
	require.ErrorIs(t, err, facts.ErrBadResponse)
}

// TestAddRetryAttempts: a peer's calls per minute gain the retries its
// client spans counted; a peer already named under an earlier key is
// counted once, and a refused query adds nothing.
func TestAddRetryAttempts(t *testing.T) {
	t.Parallel()
	keys := []string{"peer.service", "server.address"}
	byPeer := map[string][]facts.Minute{"db": {{At: at(1), Requests: 10}, {At: at(2), Requests: 10}}}
	first := response(t, ser{labels("peer.service", "db"), 0, map[int]float64{2: 3}})
	second := response(t, ser{labels("server.address", "db"), 0, map[int]float64{2: 7}})
	require.NoError(t, facts.AddRetryAttempts(byPeer, []signoz.Response{first, second, {Refused: "no"}}, keys))
	require.Equal(t, []float64{10, 13}, []float64{byPeer["db"][0].Requests, byPeer["db"][1].Requests})
	require.ErrorIs(t, facts.AddRetryAttempts(byPeer, []signoz.Response{rawResponse()}, keys), facts.ErrBadResponse)
}
