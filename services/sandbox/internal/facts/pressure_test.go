package facts_test

import (
	"regexp"
	"testing"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

// TestPressureVocabulary: the bodies a runtime writes when it is short of
// memory, heap, GC or CPU match, however spelt; a release's panic and a
// rate limit's throttling do not.
func TestPressureVocabulary(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(facts.PressureVocabulary)
	for _, tc := range []struct {
		body string
		want bool
	}{
		{"GC pause 1.4s (heap 934 MiB of 1024 MiB)", true},
		{"[gc] Pause Full (G1 Compaction Pause) 1180M->1160M(1024M) 1.900s", true},
		{"java.lang.OutOfMemoryError: Java heap space", true},
		{"MemoryError", true},
		{"Memory cgroup out of memory: OOM-killed process 4121", true},
		{"cgroup cpu throttled: 625 ms of the last 1000 ms", true},
		{"memory usage above 90% of the container limit", true},
		{"CPU saturated at 100%", true},
		{"runtime error: invalid memory address or nil pointer dereference", false},
		{"request throttled by upstream: 429 Too Many Requests", false},
		{"gcc build finished", false},
		{"logic error in handler", false},
	} {
		require.Equal(t, tc.want, re.MatchString(tc.body), tc.body)
	}
	require.NotContains(t, facts.PressureVocabulary, `\`, "no backslash: the filter's quoting must not change it")
}

// TestResourcePressure: the pressure logs per minute since the onset (up
// to the end of the service's last minute with a span) and in the baseline
// (from its start); other aggregations are not counted.
func TestResourcePressure(t *testing.T) {
	t.Parallel()
	const onset, from = 50, 10
	served := func(to int) []facts.Minute {
		var out []facts.Minute
		for i := 0; i < 60; i++ {
			n := 30.0
			if i >= to {
				n = 0
			}
			out = append(out, facts.Minute{At: at(i), Requests: n})
		}
		return out
	}
	tests := []struct {
		name    string
		logs    []ser
		minutes []facts.Minute
		want    contracts.ResourcePressure
	}{
		{"GC pauses since the onset", []ser{{nil, 0, flat(onset, 60, 1)}}, served(60),
			contracts.ResourcePressure{Logs: 10, Minutes: 10, BaselineMinutes: 40}},
		{"two lines a minute since the onset", []ser{{nil, 0, flat(onset, 60, 2)}}, served(60),
			contracts.ResourcePressure{Logs: 20, Minutes: 10, BaselineMinutes: 40}},
		{"before and since; none counted before the baseline", []ser{{nil, 0, flat(0, 60, 1)}}, served(60),
			contracts.ResourcePressure{Logs: 10, BaselineLogs: 40, Minutes: 10, BaselineMinutes: 40}},
		{"the recording ends before the window", []ser{{nil, 0, flat(onset, 60, 1)}}, served(56),
			contracts.ResourcePressure{Logs: 6, Minutes: 6, BaselineMinutes: 40}},
		{"no span since the onset: one minute", []ser{{nil, 0, flat(onset, 60, 1)}}, served(40),
			contracts.ResourcePressure{Logs: 1, Minutes: 1, BaselineMinutes: 40}},
		{"another aggregation is not counted", []ser{{nil, 1, flat(0, 60, 1)}}, served(60),
			contracts.ResourcePressure{Minutes: 10, BaselineMinutes: 40}},
		{"no pressure log", nil, served(60),
			contracts.ResourcePressure{Minutes: 10, BaselineMinutes: 40}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := facts.ResourcePressure(response(t, tt.logs...), at(onset), at(from), tt.minutes)
			require.NoError(t, err)
			require.Equal(t, tt.want, *got)
		})
	}
	_, err := facts.ResourcePressure(rawResponse(), at(onset), at(from), nil)
	require.ErrorIs(t, err, facts.ErrBadResponse)
}
