package tools

import (
	"fmt"
	"slices"
	"strings"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// Fewer calls (issue 35, shape (a) of the held-out twin; the judgement is
// facts.FewerCalls): the queries of each examined service's failing spans a
// minute, their reading, and the line.

// fewerCallsText says what facts.FewerCalls read of one callee.
func fewerCallsText(svc string, c *facts.CallsFell) string {
	return fmt.Sprintf("%s (called %sx its baseline rate, %s failing spans a minute against %s before: it left its baseline for fewer calls, not more failures)",
		svc, fmtF(round((c.ReqSince/c.MinutesSince)/(c.ReqBefore/c.MinutesBefore))), fmtF(round(c.ErrSince/c.MinutesSince)), fmtF(round(c.ErrBefore/c.MinutesBefore)))
}

// fewerLine says which co-regressed services were only called less.
func fewerLine(svc string, fewer []string, fell map[string]*facts.CallsFell) string {
	var parts []string
	for _, f := range fewer {
		parts = append(parts, fewerCallsText(f, fell[f]))
	}
	return "services called less since the onset whose failures a minute did not rise (downstream of " + svc + ", not a shared cause): " + strings.Join(parts, ", ")
}

// failingCountQueries ask, for each examined service, its failing spans a
// minute (an error, or a duration at or above its own onset's p95
// threshold) over the overview's window: what facts.FewerCalls compares.
func failingCountQueries(c Call, st overviewState) []Query {
	ow := OnsetWindow(c)
	var qs []Query
	for _, svc := range st.examined {
		qs = append(qs, Query{Name: "failing_count_" + svc, Optional: true, Request: signoz.NewRequest(signoz.RequestTimeSeries, ow.From.UnixMilli(), ow.To.UnixMilli(),
			signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, StepInterval: 60, Filter: signoz.Filter{Expression: and(failing(svc, st.alt.Thresholds[svc]), notMarker)},
				Aggregations: []signoz.Aggregation{{Expression: "count()"}}})})
	}
	return qs
}

// fellOf reads failingCountQueries' answers: each examined service's
// requests (its own series) and failing spans a minute around its onset. A
// refused or unreadable answer leaves the service out (not fewer calls).
func fellOf(st overviewState, resps []signoz.Response) (map[string]*facts.CallsFell, error) {
	out := map[string]*facts.CallsFell{}
	for i, svc := range st.examined {
		if i >= len(resps) || resps[i].Refused != "" {
			continue
		}
		counts, err := perMinute(resps[i], resps[i])
		if err != nil {
			return nil, err
		}
		failing := map[int64]float64{}
		for _, m := range counts {
			failing[m.At.UnixMilli()] = m.Requests
		}
		series := slices.Clone(st.alt.Series[svc])
		for j := range series {
			series[j].Errors = failing[series[j].At.UnixMilli()]
		}
		out[svc] = facts.CallsFellOf(series, st.alt.Onsets[svc])
	}
	return out, nil
}
