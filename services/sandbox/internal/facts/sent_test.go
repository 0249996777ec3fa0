package facts

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSentChanges: a release's larger ask of a slowed peer, from its first
// calls and beyond chance, is a sent change; the same ask, a larger ask of
// another peer, an attribute that is no size (a temperature; mutant
// sandbox.sent_size_only), a larger ask that only arrives after the onset,
// a shift too slight or too few calls are not.
func TestSentChanges(t *testing.T) {
	t.Parallel()
	release := time.Date(2026, 9, 1, 14, 34, 0, 0, time.UTC)
	onset := release.Add(4 * time.Minute)
	// calls draws n calls of version v to peer from at, one every 20 s,
	// key's value uniform in [lo, lo+span).
	calls := func(seed uint64, peer, v, key string, lo, span float64, at time.Time, n int) []SentCall {
		r := rand.New(rand.NewPCG(seed, 1))
		var out []SentCall
		for i := range n {
			out = append(out, SentCall{At: at.Add(time.Duration(i) * 20 * time.Second), Version: v, Peer: peer,
				Values: map[string]float64{key: lo + span*r.Float64()}})
		}
		return out
	}
	const llm, search, tokens = "api.openai.com", "opensearch", "gen_ai.usage.input_tokens"
	before := release.Add(-20 * time.Minute)
	cases := []struct {
		name  string
		calls []SentCall
		slow  []string
		want  []string
	}{
		{"a longer prompt from the first call", append(calls(1, llm, "v17", tokens, 400, 1800, before, 40), calls(2, llm, "v18", tokens, 1600, 1800, release, 12)...), []string{llm}, []string{llm + " " + tokens}},
		{"the same prompt", append(calls(1, llm, "v17", tokens, 400, 1800, before, 40), calls(2, llm, "v18", tokens, 400, 1800, release, 12)...), []string{llm}, nil},
		{"a longer prompt to another peer", append(calls(1, llm, "v17", tokens, 400, 1800, before, 40), calls(2, llm, "v18", tokens, 1600, 1800, release, 12)...), []string{search}, nil},
		{"a higher temperature is no size", append(calls(1, llm, "v17", "gen_ai.request.temperature", 0.1, 0.1, before, 40), calls(2, llm, "v18", "gen_ai.request.temperature", 0.7, 0.1, release, 12)...), []string{llm}, nil},
		{"larger only after the onset", append(append(calls(1, llm, "v17", tokens, 400, 1800, before, 40), calls(2, llm, "v18", tokens, 400, 1800, release, 12)...), calls(3, llm, "v18", tokens, 1600, 1800, onset, 30)...), []string{llm}, nil},
		{"a tenth larger", append(calls(1, llm, "v17", tokens, 1000, 100, before, 60), calls(2, llm, "v18", tokens, 1100, 100, release, 12)...), []string{llm}, nil},
		{"too few calls since the release", append(calls(1, llm, "v17", tokens, 400, 1800, before, 40), calls(2, llm, "v18", tokens, 3000, 100, release, 7)...), []string{llm}, nil},
		{"a bigger request body", append(calls(1, search, "3.7.2-1", "http.request.body.size", 200, 50, before, 40), calls(2, search, "3.8.0-1", "http.request.body.size", 900, 50, release, 10)...), []string{search}, []string{search + " http.request.body.size"}},
	}
	running := map[string]string{llm: "v18", search: "3.8.0-1"}
	for _, tc := range cases {
		v := "v18"
		if tc.calls[len(tc.calls)-1].Peer == search {
			v = running[search]
		}
		var got []string
		for _, c := range SentChanges(tc.calls, tc.slow, v, release, onset) {
			require.Greater(t, c.AfterMedian, c.BeforeMedian, tc.name)
			require.GreaterOrEqual(t, c.Z, SentZ, tc.name)
			got = append(got, c.Peer+" "+c.Attribute)
		}
		require.Equal(t, tc.want, got, tc.name)
	}
}

// TestMannWhitneyZ: the statistic's sign and size on separated, equal and
// tied samples.
func TestMannWhitneyZ(t *testing.T) {
	t.Parallel()
	a, b := []float64{1, 2, 3, 4, 5, 6, 7, 8}, []float64{11, 12, 13, 14, 15, 16, 17, 18}
	require.InDelta(t, 3.36, mannWhitneyZ(a, b), 0.01)
	require.InDelta(t, -3.36, mannWhitneyZ(b, a), 0.01)
	require.InDelta(t, 0, mannWhitneyZ(a, a), 1e-9)
	require.InDelta(t, 0, mannWhitneyZ([]float64{5, 5, 5}, []float64{5, 5}), 1e-9)
}
