package signoz

import (
	"testing"

	"github.com/segmentio/encoding/json"
	"github.com/stretchr/testify/require"
)

func TestBoundedStatesLimitAndOrder(t *testing.T) {
	t.Parallel()
	count := []Aggregation{{Expression: "count()"}, {Expression: "p95(duration_nano)"}}
	tests := []struct {
		name        string
		requestType string
		q           BuilderQuery
		wantLimit   int
		wantOrder   []string
	}{
		{"raw spans", RequestRaw, BuilderQuery{Signal: SignalTraces}, DefaultLimit, []string{"timestamp"}},
		{"raw logs", RequestRaw, BuilderQuery{Signal: SignalLogs, Limit: 20}, 20, []string{"timestamp", "id"}},
		{"grouped", RequestTimeSeries, BuilderQuery{Signal: SignalTraces, Aggregations: count, Limit: 50}, 50, []string{"count()"}},
		{"scalar", RequestScalar, BuilderQuery{Signal: SignalTraces, Aggregations: count[1:]}, DefaultLimit, []string{"p95(duration_nano)"}},
		{"own order kept", RequestRaw, BuilderQuery{Signal: SignalTraces, Limit: 5, Order: []OrderBy{{Key: OrderKey{Name: "timestamp"}, Direction: "asc"}}}, 5, []string{"timestamp"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := NewRequest(tt.requestType, 1, 2, tt.q)
			got := r.CompositeQuery.Queries[0].Spec
			require.Equal(t, tt.wantLimit, got.Limit)
			var keys []string
			for _, o := range got.Order {
				keys = append(keys, o.Key.Name)
			}
			require.Equal(t, tt.wantOrder, keys)
		})
	}
}

func TestCutSaysWhereSigNozCutTheAnswer(t *testing.T) {
	t.Parallel()
	grouped := NewRequest(RequestScalar, 1, 2, BuilderQuery{Name: "A", Signal: SignalTraces, Limit: 2,
		Aggregations: []Aggregation{{Expression: "count()"}}, GroupBy: []FieldKey{{Name: "name"}}})
	raw := NewRequest(RequestRaw, 1, 2, BuilderQuery{Name: "A", Signal: SignalTraces, Limit: 2})
	series := NewRequest(RequestTimeSeries, 1, 2, BuilderQuery{Name: "A", Signal: SignalTraces, Limit: 1,
		Aggregations: []Aggregation{{Expression: "count()"}}, GroupBy: []FieldKey{{Name: "service.name"}}})
	resp := func(result string) Response {
		var r Response
		require.NoError(t, json.Unmarshal([]byte(`{"type":"x","data":{"results":[`+result+`]}}`), &r))
		return r
	}
	tests := []struct {
		name string
		req  QueryRangeRequest
		resp Response
		want string
	}{
		{"raw with a next page", raw, resp(`{"queryName":"A","nextCursor":"MTc5","rows":[{},{}]}`), "2 rows returned, its limit; SigNoz holds a next page"},
		{"raw complete", raw, resp(`{"queryName":"A","nextCursor":"","rows":[{}]}`), ""},
		{"raw empty", raw, resp(`{"queryName":"A","nextCursor":"","rows":null}`), ""},
		{"groups at the limit", grouped, resp(`{"queryName":"A","columns":[],"data":[["a",1],["b",2]]}`), "2 groups returned, its limit"},
		{"groups under the limit", grouped, resp(`{"queryName":"A","columns":[],"data":[["a",1]]}`), ""},
		{"series at the limit", series, resp(`{"queryName":"A","aggregations":[{"index":0,"series":[{"values":[]}]}]}`), "1 series returned, its limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Cut(tt.req, tt.resp)
			if tt.want == "" {
				require.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			require.Contains(t, got[0], tt.want)
		})
	}
}
