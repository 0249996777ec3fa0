package facts_test

import (
	"fmt"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// originTrace is one failing trace of api (which calls ledger, which calls
// db) of the given shape.
func originTrace(tid, shape string) []signoz.RawRow {
	switch shape {
	case "ledger": // ledger fails, api fails on it
		return traceRows(tid, sp{"a", "", "api", "GET /pay", 0, 300, true}, sp{"l", "a", "ledger", "charge", 10, 200, true}, sp{"d", "l", "db", "select", 20, 5, false})
	case "db": // db fails, both callers on it
		return traceRows(tid, sp{"a", "", "api", "GET /pay", 0, 300, true}, sp{"l", "a", "ledger", "charge", 10, 200, true}, sp{"d", "l", "db", "select", 20, 5, true})
	case "abandoned": // api gives up after 100 ms on ledger, which fails after api is gone
		return traceRows(tid, sp{"a", "", "api", "GET /pay", 0, 100, true}, sp{"l", "a", "ledger", "charge", 10, 400, true})
	case "slow": // ledger takes most of api's time
		return traceRows(tid, sp{"a", "", "api", "GET /pay", 0, 900, false}, sp{"l", "a", "ledger", "charge", 10, 800, false})
	}
	// api fails on its own
	return traceRows(tid, sp{"a", "", "api", "GET /pay", 0, 300, true}, sp{"l", "a", "ledger", "charge", 10, 200, false})
}

// TestJudgeOrigin: a callee is the origin when at least the share of api's
// failing traces since the onset begin there (followed down the failing
// spans, or for latency the child taking most of the time), with enough
// traces, and its own onset no later than api's (within OriginTolerance).
// A call api abandoned is api's failure, not the callee's. Kills mutant
// sandbox.origin_share ("a few failures of ledger").
func TestJudgeOrigin(t *testing.T) {
	t.Parallel()
	onset := at(40)
	ledgerAt, lateAt := at(39), at(45)
	onsets := map[string]facts.Onset{"ledger": {At: &ledgerAt, BaselineP95Ms: 250}, "db": {At: &ledgerAt}}
	tests := []struct {
		name   string
		shapes map[string]int
		signal string
		onsets map[string]facts.Onset
		origin string
		path   []string
		fails  int64
		first  string
	}{
		{"8 of 10 begin in ledger", map[string]int{"ledger": 8, "api": 2}, "errors", onsets, "ledger", []string{"api", "ledger"}, 8, "ledger"},
		{"8 of 10 begin two hops down", map[string]int{"db": 8, "api": 2}, "errors", onsets, "db", []string{"api", "ledger", "db"}, 8, "db"},
		{"a few failures of ledger", map[string]int{"ledger": 3, "api": 7}, "errors", onsets, "", nil, 0, "api"},
		{"too few traces to judge", map[string]int{"ledger": 4}, "errors", onsets, "", nil, 0, "ledger"},
		{"ledger left its baseline after api", map[string]int{"ledger": 8, "api": 2}, "errors", map[string]facts.Onset{"ledger": {At: &lateAt}}, "", nil, 0, "ledger"},
		{"ledger never left its baseline", map[string]int{"ledger": 8, "api": 2}, "errors", nil, "", nil, 0, "ledger"},
		{"calls api abandoned fail in ledger", map[string]int{"abandoned": 8, "api": 2}, "errors", onsets, "", nil, 0, "api"},
		{"ledger takes api's time", map[string]int{"slow": 8}, "latency", onsets, "ledger", []string{"api", "ledger"}, 8, "ledger"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var rows []signoz.RawRow
			var since []string
			for _, shape := range []string{"ledger", "db", "abandoned", "slow", "api"} {
				for i := range tt.shapes[shape] {
					id := fmt.Sprintf("%s-%d", shape, i)
					since, rows = append(since, id), append(rows, originTrace(id, shape)...)
				}
			}
			rows = append(rows, originTrace("before-0", "ledger")...)
			o, counts := facts.JudgeOrigin(facts.OriginInput{Service: "api", Signal: tt.signal, ThrMs: 500, Since: since, Baseline: []string{"before-0", "missing"},
				Rows: rows, Onset: onset, Onsets: tt.onsets, Share: facts.DefaultOriginShare})
			require.NotEmpty(t, counts)
			require.Equal(t, tt.first, counts[0].Service, "most failures first")
			if tt.origin == "" {
				require.Nil(t, o)
				return
			}
			require.NotNil(t, o)
			require.Equal(t, tt.origin, o.Service)
			require.Equal(t, tt.path, o.Path)
			require.Equal(t, tt.signal, o.Signal)
			require.Equal(t, int64(len(since)), o.Total)
			require.Equal(t, tt.fails, o.Failures)
			require.Equal(t, o.Service == "ledger" && tt.signal == "errors", o.Baseline == 1, "the baseline's trace begins in ledger")
			require.Equal(t, time.Duration(0), o.Onset.Sub(ledgerAt))
		})
	}
}

// TestWithOrigin: the origin joins the co-regressed services, sorted, once.
func TestWithOrigin(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		co     []string
		origin string
		want   []string
	}{
		{"no origin", []string{"b"}, "", []string{"b"}},
		{"already co-regressed", []string{"a", "b"}, "b", []string{"a", "b"}},
		{"added, sorted", []string{"c"}, "a", []string{"a", "c"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var o *contracts.FailureOrigin
			if tt.origin != "" {
				o = &contracts.FailureOrigin{Service: tt.origin}
			}
			co := append([]string(nil), tt.co...)
			require.Equal(t, tt.want, facts.WithOrigin(co, o))
			require.Equal(t, tt.co, co, "the input is not changed")
		})
	}
}
