package review_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/contracts/table"
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
		Compact: "baseline p95_ms 180\n" + `{"p95_ms":2312,"requests":1018,"retries_per_call":12}`,
		Facts:   contracts.Facts{ErrorRate: ptr(0.3127)},
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
		{"a count is not a duration", "1018ms", false},
		{"a duration is not a count", "2312", false},
		{"a rate is not a count", "31", false},
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

// TestEvidenceNumbersAreTokensWithUnits: the case. A claim's "23%" and
// "781 ms" were counted as supported by the digits of trace id b23dbe5be781…;
// only number tokens count, each with its unit.
func TestEvidenceNumbersAreTokensWithUnits(t *testing.T) {
	t.Parallel()
	trace := `{"duration_ms":105.601,"error":true,"service":"shop-api","span_id":"9cdc5c0767eda5f1","status_code":2,` +
		`"status_message":"pool exhausted: checkout timed out after 100ms","time":"2026-11-22T09:04:51.886066Z",` +
		`"trace_id":"b23dbe5be781c4f2a90d6e1b7c3f5a28","version":"v3"}`
	cases := []struct {
		name    string
		compact string
		claim   string
		ok      bool
	}{
		{"percent inside a hex trace id", trace, "23%", false},
		{"milliseconds inside a hex trace id", trace, "781 ms", false},
		{"digits of a span id", trace, "767 ms", false},
		{"digits of a timestamp", trace, "886066 ms", false},
		{"year of a timestamp", trace, "2026", false},
		{"a version is not a number", trace, "3", false},
		{"a value under a _ms key", trace, "105.6 ms", true},
		{"the same value as seconds", trace, "0.1056s", true},
		{"a unit written in a log body", trace, "100ms", true},
		{"a log body's number without its unit", trace, "100", false},
		{"a plain count", trace, "2", true},
		{"a digits-only quoted id", `{"deployment_id":"20261122","requests":7}`, "20261122", false},
		{"an evidence id", `see ev-3bc0cb2fd6bcca1e5e34ab05 and ev-123456`, "123456", false},
		{"an error rate as a percentage", `error_rate: 0.061`, "6.1%", true},
		{"an error rate is not a count", `error_rate: 0.061`, "0.061", false},
		{"a traffic ratio", `inbound traffic since the onset vs baseline: 1.058x`, "1.06x", true},
		{"a key=value count", `(in_use=20 idle=0 max=20 waiters=37)`, "37", true},
		{"a key=value count is not milliseconds", `(in_use=20 idle=0 max=20 waiters=37)`, "37ms", false},
		{"negative", `"delta_ms":-12.5`, "12.5ms", true},
		{"clock minutes", `{"minute":"08:52","p95_ms":146.762}`, "52", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			qs := review.Quantities(tc.claim)
			require.Len(t, qs, 1, "claim %q", tc.claim)
			nums := review.EvidenceNumbers(contracts.EvidenceV1{Compact: tc.compact})
			require.Equal(t, tc.ok, review.Supported(qs[0], nums, 0.01), "claim %q against %v", tc.claim, nums)
		})
	}
}

func FuzzEvidenceNumbers(f *testing.F) {
	f.Add(`{"p95_ms":2312,"trace_id":"b23dbe5be781","requests":1018}`)
	f.Add("error_rate: 0.061 1.058x 100ms in_use=20 -3 2026-11-22T09:04:51Z")
	f.Fuzz(func(t *testing.T, s string) {
		for _, n := range review.EvidenceNumbers(contracts.EvidenceV1{Compact: s}) {
			require.False(t, n.Value != n.Value, "NaN from %q", s)
		}
	})
}

// TestEvidenceNumbersOfATableAreThoseOfItsRows: a block the sandbox wrote as
// a table holds the same number tokens, each with the unit of its key, as
// the same rows written one object per line, although a table writes a
// value without its key beside it (and a repeated one as a ditto or a
// reference).
func TestEvidenceNumbersOfATableAreThoseOfItsRows(t *testing.T) {
	t.Parallel()
	var rows []any
	for i, r := range []string{
		`{"duration_ms":201.774,"kind":"Client","status_message":"context deadline exceeded (Client.Timeout 200ms)","time":"2026-11-04T10:19:20.095536Z","trace_id":"c813703d1e86d83f3d57ee3aa42d8f99"}`,
		`{"duration_ms":201.774,"kind":"Client","status_message":"context deadline exceeded (Client.Timeout 200ms)","time":"2026-11-04T10:19:19.893762Z","trace_id":"c813703d1e86d83f3d57ee3aa42d8f99"}`,
		`{"duration_ms":1239.166,"kind":"Server","status_message":"upstream timed out after 3 retries","time":"2026-11-04T10:19:19.062885Z","trace_id":"c813703d1e86d83f3d57ee3aa42d8f99"}`,
		`{"duration_ms":203.972,"kind":"Client","status_message":"context deadline exceeded (Client.Timeout 200ms)","time":"2026-11-04T10:19:09.975347Z","trace_id":"7a500f7f388b7dd8a7e49d24a1c271f8"}`,
	} {
		var v any
		require.NoError(t, json.Unmarshal([]byte(r), &v), "row %d", i)
		rows = append(rows, v)
	}
	tbl := table.Render(rows)
	require.Contains(t, tbl, "cols (", "the rows are written as a table")
	want := review.EvidenceNumbers(contracts.EvidenceV1{Compact: table.Legacy(tbl)})
	require.Contains(t, want, review.Number{Value: 1239.166, Unit: "ms"})
	require.Equal(t, want, review.EvidenceNumbers(contracts.EvidenceV1{Compact: tbl}))
}
