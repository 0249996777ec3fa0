package tools_test

import (
	"os"
	"testing"

	"agentk/contracts"
	"agentk/services/sandbox/internal/compact"
)

// BenchmarkCompactionCorpus runs the sandbox's investigation tools for every
// incident of the corpus through the real SigNoz client against the fake
// SigNoz, and reports the bytes (and estimated tokens, one per four bytes) of
// the raw query_range responses beside those of the compact evidence text
// the model is shown. One op is one pass over the corpus.
//
//	go test -run '^$' -bench CompactionCorpus -benchtime 3x ./services/sandbox/internal/tools
func BenchmarkCompactionCorpus(b *testing.B) {
	entries, err := os.ReadDir(corpus)
	if err != nil {
		b.Fatal(err)
	}
	type incidentHarness struct {
		h       harness
		service string
		trace   string
	}
	var hs []incidentHarness
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		inc, startsAt := loadIncident(b, e.Name())
		ih := incidentHarness{h: newHarness(b, inc, startsAt), service: inc.Meta.Service}
		for _, s := range inc.Spans {
			if s.HasError && s.Service() == inc.Meta.Service {
				ih.trace = s.TraceID
				break
			}
		}
		hs = append(hs, ih)
	}
	var raw, text, calls, rawTok, textTok int
	// byTool is each tool's raw and model bytes: where the model's bytes go.
	var byTool map[string][2]int
	b.ResetTimer()
	for range b.N {
		raw, text, calls, rawTok, textTok = 0, 0, 0, 0, 0
		byTool = map[string][2]int{}
		for _, ih := range hs {
			svc := `{"service":"` + ih.service + `"`
			args := []struct{ tool, args string }{
				{contracts.ToolServiceOverview, svc + `}`},
				{contracts.ToolDeploymentMarkers, svc + `}`},
				{contracts.ToolErrorTraces, svc + `,"limit":20}`},
				{contracts.ToolErrorLogs, svc + `,"limit":20}`},
			}
			if ih.trace != "" {
				args = append(args, struct{ tool, args string }{contracts.ToolGetTrace, `{"trace_id":"` + ih.trace + `"}`})
			}
			for _, a := range args {
				r, err := ih.h.run(b, a.tool, a.args)
				if err != nil {
					b.Fatalf("%s %s: %v", a.tool, a.args, err)
				}
				t := byTool[a.tool]
				for _, body := range r.bodies {
					raw += len(body)
					rawTok += (len(body) + 3) / 4
					t[0] += len(body)
				}
				text += len(r.out.Compact)
				t[1] += len(r.out.Compact)
				byTool[a.tool] = t
				textTok += compact.EstimateTokens(r.out.Compact)
				calls++
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(hs)), "incidents")
	b.ReportMetric(float64(calls), "tool-calls")
	b.ReportMetric(float64(raw), "raw-bytes")
	b.ReportMetric(float64(text), "model-bytes")
	b.ReportMetric(float64(rawTok), "raw-tokens")
	b.ReportMetric(float64(textTok), "model-tokens")
	b.ReportMetric(float64(raw)/float64(text), "ratio")
	for tool, t := range byTool {
		b.ReportMetric(float64(t[1]), "model-bytes-"+tool)
		b.ReportMetric(float64(t[0])/float64(t[1]), "ratio-"+tool)
	}
}
