package facts_test

import (
	"math"
	"testing"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

func TestLabelOf(t *testing.T) {
	t.Parallel()
	s := func(kv ...any) signoz.Series {
		var out signoz.Series
		for i := 0; i+1 < len(kv); i += 2 {
			out.Labels = append(out.Labels, signoz.Label{Key: signoz.FieldKey{Name: kv[i].(string)}, Value: kv[i+1]})
		}
		return out
	}
	tests := []struct {
		name string
		keys []string
		s    signoz.Series
		want string
	}{
		{"the first key", []string{"server.address", "net.peer.name"}, s("server.address", "db", "net.peer.name", "old"), "db"},
		{"the next key when the first is absent", []string{"server.address", "net.peer.name"}, s("net.peer.name", "old"), "old"},
		{"an empty value counts as absent", []string{"server.address", "net.peer.name"}, s("server.address", "", "net.peer.name", "old"), "old"},
		{"a nil value counts as absent", []string{"server.address"}, s("server.address", nil), ""},
		{"a number is printed", []string{"process.pid"}, s("process.pid", float64(201)), "201"},
		{"no key: the series is dropped", []string{"service.version"}, s("service.name", "api"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, facts.LabelOf(tt.keys...)(tt.s))
		})
	}
}

// TestSamples: every finite sample reaches add with its group and its
// aggregation's index; NaN samples and series without a group do not; a
// response that is not a time series is ErrBadResponse.
func TestSamples(t *testing.T) {
	t.Parallel()
	type got struct {
		group string
		agg   int
		ts    int64
		v     float64
	}
	resp := response(t,
		ser{labels("service.version", "v1"), 0, map[int]float64{0: 3, 1: math.NaN(), 2: 5}},
		ser{labels("service.version", "v2"), 1, map[int]float64{2: 7}},
		ser{labels("service.name", "api"), 0, map[int]float64{0: 11}},
	)
	var all []got
	require.NoError(t, facts.Samples(resp, facts.LabelOf("service.version"), func(g string, agg int, ts int64, v float64) {
		all = append(all, got{g, agg, ts, v})
	}))
	require.Equal(t, []got{{"v1", 0, at(0).UnixMilli(), 3}, {"v1", 0, at(2).UnixMilli(), 5}, {"v2", 1, at(2).UnixMilli(), 7}}, all)

	err := facts.Samples(rawResponse(), facts.All, func(string, int, int64, float64) { t.Fatal("no sample of a raw response") })
	require.ErrorIs(t, err, facts.ErrBadResponse)
}

// TestEachSeries: every named series once, a series of NaN only too (its
// group exists, its samples do not), an unnamed one never.
func TestEachSeries(t *testing.T) {
	t.Parallel()
	resp := response(t,
		ser{labels("http.route", "/pay"), 0, map[int]float64{0: math.NaN()}},
		ser{labels("http.route", "/refund"), 1, map[int]float64{0: 2, 1: 3}},
		ser{labels("service.name", "api"), 0, map[int]float64{0: 11}},
	)
	got := map[string]int{}
	require.NoError(t, facts.EachSeries(resp, facts.LabelOf("http.route"), func(g string, agg int, s signoz.Series) {
		got[g] = agg*10 + len(s.Values)
	}))
	require.Equal(t, map[string]int{"/pay": 1, "/refund": 12}, got)
	require.ErrorIs(t, facts.EachSeries(rawResponse(), facts.All, func(string, int, signoz.Series) { t.Fatal("no series of a raw response") }), facts.ErrBadResponse)
}

// TestPerMinuteGrouped: counts add up per group and minute, p95 is read in
// nanoseconds and given in milliseconds (NaN for a minute without one),
// errors are merged into the same minutes; PerMinute sorts one group.
func TestPerMinuteGrouped(t *testing.T) {
	t.Parallel()
	all := response(t,
		ser{labels("service.name", "api"), 0, map[int]float64{1: 10, 0: 20}},
		ser{labels("service.name", "api"), 1, map[int]float64{0: 50e6, 1: 70e6}},
		ser{labels("service.name", "web"), 0, map[int]float64{0: 4}},
	)
	errs := response(t,
		ser{labels("service.name", "api"), 0, map[int]float64{1: 2, 3: 1}},
		ser{labels("service.name", "api"), 1, map[int]float64{1: 99}},
	)
	by, err := facts.PerMinuteGrouped(all, errs, facts.LabelOf("service.name"))
	require.NoError(t, err)
	require.Len(t, by, 2)
	require.Len(t, by["web"], 1)
	require.Equal(t, at(0), by["web"][0].At)
	require.Equal(t, 4.0, by["web"][0].Requests)
	require.True(t, math.IsNaN(by["web"][0].P95Ms))

	ms, err := facts.PerMinute(all, errs)
	require.NoError(t, err)
	require.Len(t, ms, 3)
	require.Equal(t, facts.Minute{At: at(0), Requests: 24, P95Ms: 50}, ms[0])
	require.Equal(t, facts.Minute{At: at(1), Requests: 10, Errors: 2, P95Ms: 70}, ms[1])
	require.Equal(t, at(3), ms[2].At)
	require.Equal(t, 1.0, ms[2].Errors)
	require.Zero(t, ms[2].Requests)

	_, err = facts.PerMinuteGrouped(all, rawResponse(), facts.All)
	require.ErrorIs(t, err, facts.ErrBadResponse)
	_, err = facts.PerMinute(rawResponse(), errs)
	require.ErrorIs(t, err, facts.ErrBadResponse)
}
