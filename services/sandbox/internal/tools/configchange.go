package tools

import (
	"fmt"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// configChangeQuery is the per-minute count of the service's log records,
// any severity, whose body says its configuration changed at runtime
// (facts.ConfigChangeVocabulary), over the onset window.
func configChangeQuery(svc string, ow Window) Query {
	f := and(svc, "body REGEXP "+Quote(facts.ConfigChangeVocabulary))
	return Query{Name: qConfigChg, Request: signoz.NewRequest(signoz.RequestTimeSeries, ow.From.UnixMilli(), ow.To.UnixMilli(), signoz.BuilderQuery{Name: "A", Signal: signoz.SignalLogs,
		StepInterval: 60, Filter: signoz.Filter{Expression: f}, Aggregations: []signoz.Aggregation{{Expression: "count()"}}, Limit: 1})}
}

// configChanges keeps the minutes around the onset with a configuration
// change logged (facts.ConfigChanges).
func configChanges(resp signoz.Response, onset time.Time) ([]contracts.LogMinute, error) {
	if mutant.Off(mutant.SandboxConfigChangeLogs) {
		return nil, nil
	}
	ms, err := facts.ConfigChanges(resp, onset)
	return ms, badResponse(err)
}

// configChangeLine says when the service logged configuration changes, for
// the model and the human.
func configChangeLine(ms []contracts.LogMinute) string {
	var n int64
	for _, m := range ms {
		n += m.Logs
	}
	return fmt.Sprintf("logs saying the configuration changed at runtime (a feature flag, a refresh): %d, first in the minute from %s", n, ms[0].At.UTC().Format(time.RFC3339))
}
