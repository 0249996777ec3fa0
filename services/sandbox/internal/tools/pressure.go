package tools

import (
	"fmt"
	"strings"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// PressureVocabulary is what a log record's body says when a process is
// short of a resource (facts.PressureVocabulary).
const PressureVocabulary = facts.PressureVocabulary

// pressureQuery is the per-minute count of the service's log records at
// WARN or above (severity_text, every spelling) whose body names a resource
// under pressure, over the onset window.
func pressureQuery(svc string, ow Window) Query {
	var sev []string
	for _, s := range severities["WARN"] {
		sev = append(sev, Quote(s))
	}
	f := and(svc, "severity_text IN ("+strings.Join(sev, ", ")+")", "body REGEXP "+Quote(PressureVocabulary))
	return Query{Name: qPressure, Request: signoz.NewRequest(signoz.RequestTimeSeries, ow.From.UnixMilli(), ow.To.UnixMilli(), signoz.BuilderQuery{Name: "A", Signal: signoz.SignalLogs,
		StepInterval: 60, Filter: signoz.Filter{Expression: f}, Aggregations: []signoz.Aggregation{{Expression: "count()"}}, Limit: 1})}

}

// resourcePressure splits the pressure logs' per-minute counts at the onset
// (facts.ResourcePressure); minutes are the service's own.
func resourcePressure(resp signoz.Response, on Onset, minutes []Minute) (*contracts.ResourcePressure, error) {
	p, err := facts.ResourcePressure(resp, *on.At, on.BaselineFrom, minutes)
	return p, badResponse(err)
}

// pressureLine says what the pressure logs showed, for the model and the human.
func pressureLine(p *contracts.ResourcePressure) string {
	return fmt.Sprintf("logs at WARN or above naming memory, heap, GC or CPU pressure: %d in the %d min since the onset, %d in the %d min of baseline",
		p.Logs, p.Minutes, p.BaselineLogs, p.BaselineMinutes)
}
