package facts_test

import (
	"slices"
	"testing"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

// level is one runtime attribute's per-minute means: before until the
// onset (minute 50), since from it, over minutes [start, end).
func level(t *testing.T, key string, start, end int, before, since float64) ser {
	t.Helper()
	i := slices.Index(facts.RuntimeAttributes, key)
	require.GreaterOrEqual(t, i, 0, key)
	return ser{nil, i, minutes(start, end, func(m int) float64 {
		if m >= 50 {
			return since
		}
		return before
	})}
}

// TestRuntimeSaturation: the runtime attribute whose median since the
// onset rose most over its baseline's, among those with enough minutes on
// both sides; a spike in the baseline does not move it, nor do minutes
// before the baseline began or aggregations past RuntimeAttributes.
func TestRuntimeSaturation(t *testing.T) {
	t.Parallel()
	const onset, from = 50, 10
	spiked := level(t, "go.memory.used", 0, 60, 2e8, 2e8)
	spiked.values[30] = 2e9
	early := level(t, "process.cpu.utilization", 0, 60, 0.3, 0.3)
	for i := 0; i < from; i++ {
		early.values[i] = 0.01
	}
	tests := []struct {
		name   string
		series []ser
		want   *contracts.RuntimeLevel
	}{
		{"JVM heap rises", []ser{level(t, "jvm.memory.used", 0, 60, 1.1e9, 1.9e9)},
			&contracts.RuntimeLevel{Attribute: "jvm.memory.used", Baseline: 1.1e9, Since: 1.9e9, Minutes: 10, BaselineMinutes: 40}},
		{"the older process.runtime name", []ser{level(t, "process.runtime.jvm.cpu.utilization", 0, 60, 0.3, 0.9)},
			&contracts.RuntimeLevel{Attribute: "process.runtime.jvm.cpu.utilization", Baseline: 0.3, Since: 0.9, Minutes: 10, BaselineMinutes: 40}},
		{"the one that rose most of two", []ser{level(t, "container.cpu.usage", 0, 60, 0.4, 0.98), level(t, "container.memory.usage", 0, 60, 1e8, 1.1e8)},
			&contracts.RuntimeLevel{Attribute: "container.cpu.usage", Baseline: 0.4, Since: 0.98, Minutes: 10, BaselineMinutes: 40}},
		{"flat CPU is still the level", []ser{level(t, "process.cpu.utilization", 0, 60, 0.3, 0.3)},
			&contracts.RuntimeLevel{Attribute: "process.cpu.utilization", Baseline: 0.3, Since: 0.3, Minutes: 10, BaselineMinutes: 40}},
		{"a spike in the baseline", []ser{spiked},
			&contracts.RuntimeLevel{Attribute: "go.memory.used", Baseline: 2e8, Since: 2e8, Minutes: 10, BaselineMinutes: 40}},
		{"minutes before the baseline are not read", []ser{early},
			&contracts.RuntimeLevel{Attribute: "process.cpu.utilization", Baseline: 0.3, Since: 0.3, Minutes: 10, BaselineMinutes: 40}},
		{"too few minutes since the onset", []ser{level(t, "jvm.memory.used", 0, onset+facts.MinRuntimeMinutes-1, 1e9, 2e9)}, nil},
		{"too little baseline", []ser{level(t, "jvm.memory.used", onset-facts.MinRuntimeBaselineMinutes+1, 60, 1e9, 2e9)}, nil},
		{"just enough of both", []ser{level(t, "jvm.memory.used", onset-facts.MinRuntimeBaselineMinutes, onset+facts.MinRuntimeMinutes, 1e9, 2e9)},
			&contracts.RuntimeLevel{Attribute: "jvm.memory.used", Baseline: 1e9, Since: 2e9, Minutes: facts.MinRuntimeMinutes, BaselineMinutes: facts.MinRuntimeBaselineMinutes}},
		{"an aggregation past the attributes is not read", []ser{{nil, len(facts.RuntimeAttributes), flat(0, 60, 5)}}, nil},
		{"no runtime attribute", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := facts.RuntimeSaturation(response(t, tt.series...), at(onset), at(from))
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
	_, err := facts.RuntimeSaturation(rawResponse(), at(onset), at(from))
	require.ErrorIs(t, err, facts.ErrBadResponse)
}

// TestRuntimeAttributesNoCounters: counters that only grow and limits are
// not runtime levels.
func TestRuntimeAttributesNoCounters(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"process.cpu.time", "jvm.gc.count", "jvm.memory.limit", "process.runtime.go.mem.heap_alloc_total"} {
		require.NotContains(t, facts.RuntimeAttributes, k)
	}
}
