package review_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/reviewer/internal/review"
)

func TestQuantities(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		want []string
	}{
		{"units", "p95 rose to 2.3s from 180ms, error rate 31%, retries 12x", []string{"2.3s", "180ms", "31%", "12x"}},
		{"thousands", "1,018 requests", []string{"1,018"}},
		{"words are not numbers", "v2 of shop-api raised 5xx on p95 of trace 4bf92f35", nil},
		{"times are not quantities", "deployed at 10:02 (2026-11-30T10:02:00Z)", nil},
		{"plain", "0 errors in 42 requests", []string{"0", "42"}},
		{"a word after a number is not a unit", "3 sessions and 5 xyz", []string{"3", "5"}},
		{"end of sentence", "latency was 2300ms.", []string{"2300ms"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, q := range review.Quantities(tc.in) {
				got = append(got, q.Text)
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestSupported(t *testing.T) {
	t.Parallel()
	ev := contracts.EvidenceV1{
		Compact: `{"p95_ms":2312,"requests":1018,"retries_per_call":12}`,
		Facts:   contracts.Facts{ErrorRate: ptr(0.3127), Numbers: []float64{180}},
	}
	nums := review.EvidenceNumbers(ev)
	cases := []struct {
		name  string
		claim string
		ok    bool
	}{
		{"2.3s = 2312ms", "2.3s", true},
		{"2300 ms", "2300 ms", true},
		{"percent of a fraction", "31%", true},
		{"thousands", "1,018", true},
		{"fact numbers", "180ms", true},
		{"multiplier", "12x", true},
		{"not in evidence", "4.7s", false},
		{"rounding is bounded", "2.4s", false},
		{"wrong count", "1,500", false},
		{"percent not in evidence", "45%", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			qs := review.Quantities(tc.claim)
			require.Len(t, qs, 1)
			require.Equal(t, tc.ok, review.Supported(qs[0], nums, 0.01))
		})
	}
}

func ptr[T any](v T) *T { return &v }
