package tools_test

import (
	"testing"

	"agentk/contracts"
)

// BenchmarkFakeSigNozInvestigation is one investigation's tool calls (the
// pipeline benchmark's incident: service_overview, deployment_markers,
// error_traces, error_logs) through the real SigNoz client against one fake
// SigNoz that serves them all, as a replay's does: what the test double
// costs per investigation once it has loaded its incident.
//
//	go test -run '^$' -bench FakeSigNozInvestigation ./services/sandbox/internal/tools
func BenchmarkFakeSigNozInvestigation(b *testing.B) {
	inc, startsAt := loadIncident(b, "retry-storm-01")
	h := newHarness(b, inc, startsAt)
	svc := `{"service":"` + inc.Meta.Service + `"`
	calls := []struct{ tool, args string }{
		{contracts.ToolServiceOverview, svc + `}`},
		{contracts.ToolDeploymentMarkers, svc + `}`},
		{contracts.ToolErrorTraces, svc + `,"limit":20}`},
		{contracts.ToolErrorLogs, svc + `,"limit":20}`},
	}
	for b.Loop() {
		for _, c := range calls {
			if _, err := h.run(b, c.tool, c.args); err != nil {
				b.Fatal(err)
			}
		}
	}
}
