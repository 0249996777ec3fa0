package fakesignoz

import (
	"path/filepath"
	"testing"
	"time"

	"agentk/contracts/incident"
	"github.com/stretchr/testify/require"
)

// scanRecords is the definition the index must agree with: every record of
// the signal, in order, inside the window and matching the filter.
func scanRecords(q *builderQuery, st *store, start, end time.Time) []*record {
	all := st.records(q.Signal)
	var out []*record
	for i := range all {
		r := &all[i]
		if !r.ts.Before(start) && !r.ts.After(end) && matches(q.filter, r, q.Signal) {
			out = append(out, r)
		}
	}
	return out
}

// TestIndexAgreesWithAScan checks that the indexed selection returns exactly
// the records, in the same order, that scanning every record returns, for
// filters the index narrows (string equality, IN), filters it must not
// narrow on (numbers, OR, NOT) and keys whose values are not strings.
func TestIndexAgreesWithAScan(t *testing.T) {
	t.Parallel()
	inc, err := incident.Load(filepath.Join("..", "..", "..", "e2e", "incidents", "retry-storm-01"))
	require.NoError(t, err)
	st := newStore(inc)
	svc := inc.Meta.Service
	var trace string
	for _, s := range inc.Spans {
		if s.HasError {
			trace = s.TraceID
			break
		}
	}
	end := inc.Meta.Now.Add(time.Millisecond)
	tests := []struct {
		name, signal, filter string
		from                 time.Duration // before now
	}{
		{"service equality", signalTraces, "service.name = '" + svc + "'", 2 * time.Hour},
		{"service and error", signalTraces, "service.name = '" + svc + "' AND has_error = true", 2 * time.Hour},
		{"resource context", signalTraces, "resource.service.name = '" + svc + "'", 2 * time.Hour},
		{"narrow window", signalTraces, "service.name = '" + svc + "'", 5 * time.Minute},
		{"other services", signalTraces, "service.name != '" + svc + "' AND has_error = true", 2 * time.Hour},
		{"trace in", signalTraces, "trace_id IN ('" + trace + "', 'no-such-trace')", 24 * time.Hour},
		{"or is not narrowed", signalTraces, "service.name = '" + svc + "' OR name = 'deployment.marker'", 2 * time.Hour},
		{"not is not narrowed", signalTraces, "NOT service.name = '" + svc + "'", 2 * time.Hour},
		{"numeric text on a string column", signalTraces, "response_status_code = '500'", 2 * time.Hour},
		{"number literal", signalTraces, "response_status_code = 500", 2 * time.Hour},
		{"bare word", signalTraces, "kind_string = Server", 2 * time.Hour},
		{"no filter", signalTraces, "", 2 * time.Hour},
		{"logs by service", signalLogs, "service.name = '" + svc + "' AND severity_text IN ('ERROR', 'error')", 2 * time.Hour},
		{"metrics by service", signalMetrics, "service.name = '" + svc + "'", 2 * time.Hour},
		{"free text", signalLogs, "service.name = '" + svc + "' AND timeout", 2 * time.Hour},
		{"absent key", signalTraces, "no.such.key = 'x'", 2 * time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var n node
			if tc.filter != "" {
				n, err = parseFilter(tc.filter)
				require.NoError(t, err)
			}
			q := &builderQuery{Signal: tc.signal, filter: n}
			start := end.Add(-tc.from)
			want := scanRecords(q, st, start, end)
			got := selectRecords(q, st, uint64(start.UnixMilli()), uint64(end.UnixMilli()))
			require.Equal(t, want, got)
		})
	}
}
