package tools

import (
	"fmt"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// RuntimeAttributes are the runtime and process attributes whose rise is
// runtime saturation (facts.RuntimeAttributes).
var RuntimeAttributes = facts.RuntimeAttributes

// Runtime-level minimums (facts.MinRuntimeMinutes,
// facts.MinRuntimeBaselineMinutes).
const (
	MinRuntimeMinutes         = facts.MinRuntimeMinutes
	MinRuntimeBaselineMinutes = facts.MinRuntimeBaselineMinutes
)

// runtimeQuery is the per-minute mean of every RuntimeAttributes key over
// the service's spans (deployment markers aside), over the onset window. It
// is optional (Query.Optional).
func runtimeQuery(svc string, ow Window) Query {
	aggs := make([]signoz.Aggregation, 0, len(RuntimeAttributes))
	for _, k := range RuntimeAttributes {
		aggs = append(aggs, signoz.Aggregation{Expression: "avg(" + k + ")"})
	}
	return Query{Name: qRuntime, Request: signoz.NewRequest(signoz.RequestTimeSeries, ow.From.UnixMilli(), ow.To.UnixMilli(), signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces,
		StepInterval: 60, Filter: signoz.Filter{Expression: and(serviceFilter(svc), notMarker)}, Aggregations: aggs, Limit: 1}),
		// SigNoz resolves a bare key through the keys it has seen, and
		// refuses the query ("field `jvm.gc.duration` not found") when one
		// of these was never sent by any service: then the overview goes on
		// without runtime attributes and says so.
		Optional: true}
}

// runtimeSaturation is the runtime attribute that rose most since the
// onset (facts.RuntimeSaturation); nil when none has enough minutes.
func runtimeSaturation(resp signoz.Response, on Onset) (*contracts.RuntimeLevel, error) {
	l, err := facts.RuntimeSaturation(resp, *on.At, on.BaselineFrom)
	return l, badResponse(err)
}

// runtimeLine says what the runtime attributes showed, for the model and the human.
func runtimeLine(l *contracts.RuntimeLevel) string {
	return fmt.Sprintf("runtime attribute %s on the service's spans (median of per-minute means): %s in the %d min since the onset, %s in the %d min of baseline (%sx)",
		l.Attribute, fmtF(l.Since), l.Minutes, fmtF(l.Baseline), l.BaselineMinutes, fmtF(l.Rise()))
}
