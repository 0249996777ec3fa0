package facts_test

import (
	"fmt"
	"testing"

	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

// traceIDs are n trace ids named after prefix.
func traceIDs(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%04d", prefix, i)
	}
	return out
}

// logged holds the first n of ids, and extra ids of dropped traces.
func logged(ids []string, n, extra int) map[string]bool {
	out := map[string]bool{}
	for _, id := range ids[:n] {
		out[id] = true
	}
	for i := range extra {
		out[fmt.Sprintf("dropped%04d", i)] = true
	}
	return out
}

// thinned is ms with every minute from minute from on scaled by share.
func thinned(ms []facts.Minute, from int, share float64) []facts.Minute {
	for i := range ms {
		if i >= from {
			ms[i].Requests *= share
		}
	}
	return ms
}

// TestLoggedArrivals: a service's arrivals are read from its logged trace
// ids only when samples of its kept entry traces before and since the onset
// are nearly all logged and the baseline's logs outnumber the kept traces
// (the logs are not sampled with them). Kills mutant
// sandbox.logged_arrivals (error-only logs, logs sampled with the traces,
// one instance's logs and logs missing once the service fails each report
// a steady ratio without the checks).
func TestLoggedArrivals(t *testing.T) {
	onset := at(40)
	on := facts.Onset{At: &onset, BaselineFrom: at(10)}
	base, since := traceIDs("b", 40), traceIDs("s", 40)
	for _, tc := range []struct {
		name            string
		logs, kept      []facts.Minute
		baseLogs, logsS map[string]bool
		cut             bool
		want            float64
		none            bool
	}{
		// A tail sampler keeping 1 in 10 and every failing trace: a
		// regression failing half the requests keeps 5.5x the entry spans;
		// the logs, one record a request, say the arrivals held.
		{name: "a regression under a tail sampler, unsampled request logs", logs: stepSeries(100, 100), kept: stepSeries(10, 55),
			baseLogs: logged(base, 40, 200), logsS: logged(since, 40, 200), want: 1},
		// TRAP: a surge beyond capacity under the same sampler and logs:
		// four times the arrivals, logged; the excess fails.
		{name: "a surge beyond capacity, logged", logs: stepSeries(100, 400), kept: stepSeries(10, 280),
			baseLogs: logged(base, 40, 200), logsS: logged(since, 40, 200), want: 4},
		// TRAP: logs written only for errors (heldout13): the baseline's
		// kept clean traces have none.
		{name: "error-only logs", logs: stepSeries(2, 45), kept: stepSeries(10, 55),
			baseLogs: logged(base, 2, 0), logsS: logged(since, 36, 0), none: true},
		// TRAP: logs sampled with the traces (a dropped trace drops its
		// logs): as many logged trace ids as kept entry spans.
		{name: "logs sampled with the traces", logs: stepSeries(10, 55), kept: stepSeries(10, 55),
			baseLogs: logged(base, 40, 0), logsS: logged(since, 40, 0), none: true},
		// TRAP: one instance of three writes its logs where they are read.
		{name: "one instance's logs", logs: stepSeries(33, 40), kept: stepSeries(10, 55),
			baseLogs: logged(base, 13, 60), logsS: logged(since, 14, 60), none: true},
		// TRAP: a surge the service turns away before it logs: the kept
		// failures since the onset have no record, the logs read steady.
		{name: "requests turned away unlogged", logs: stepSeries(100, 100), kept: stepSeries(10, 280),
			baseLogs: logged(base, 40, 200), logsS: logged(since, 10, 200), none: true},
		// TRAP: logs that thin out after the coverage samples (a logger
		// dropping lines under a surge): from minute 50 on, a tenth of the
		// requests are logged.
		{name: "logs that thin out later", logs: thinned(stepSeries(100, 400), 50, 0.1), kept: stepSeries(10, 280),
			baseLogs: logged(base, 40, 200), logsS: logged(since, 40, 200), none: true},
		{name: "a sample cut at its limit", logs: stepSeries(100, 100), kept: stepSeries(10, 55),
			baseLogs: logged(base, 40, 200), logsS: logged(since, 40, 200), cut: true, none: true},
		{name: "too few logs in the baseline", logs: stepSeries(0.5, 0.5), kept: stepSeries(0.1, 0.5),
			baseLogs: logged(base, 40, 0), logsS: logged(since, 40, 0), none: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := facts.LoggedArrivals(facts.LoggedArrivalsInput{Logged: tc.logs, Inbound: tc.kept,
				BaselineSample: base, Sample: since, BaselineLogs: tc.baseLogs, Logs: tc.logsS, Cut: tc.cut, Onset: on})
			if tc.none {
				require.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			require.InDelta(t, tc.want, got.Ratio, 0.01)
			require.EqualValues(t, 40, got.BaselineSampled)
		})
	}
}

// TestLoggedArrivalsNeedSamples: a sample of fewer than MinCoverageSample
// kept traces proves nothing, however well covered.
func TestLoggedArrivalsNeedSamples(t *testing.T) {
	t.Parallel()
	onset := at(40)
	few := traceIDs("f", facts.MinCoverageSample-1)
	got := facts.LoggedArrivals(facts.LoggedArrivalsInput{Logged: stepSeries(100, 100), Inbound: stepSeries(10, 55),
		BaselineSample: few, Sample: few, BaselineLogs: logged(few, len(few), 100), Logs: logged(few, len(few), 100),
		Onset: facts.Onset{At: &onset, BaselineFrom: at(10)}})
	require.Nil(t, got)
}
