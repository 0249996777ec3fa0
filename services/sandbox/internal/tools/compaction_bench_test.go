package tools_test

import (
	"os"
	"testing"

	"agentk/contracts"
	"agentk/services/sandbox/internal/compact"
)

// corpusCall is one tool call of an incident of the corpus, with a harness
// over that incident's fake SigNoz.
type corpusCall struct {
	incident, tool, args string
	h                    harness
}

// corpusCalls are the calls an investigation of every incident of the
// corpus starts with: the overview, the markers, the failing traces and
// logs, and one failing trace of the service.
func corpusCalls(tb testing.TB) []corpusCall {
	tb.Helper()
	entries, err := os.ReadDir(corpus)
	if err != nil {
		tb.Fatal(err)
	}
	var calls []corpusCall
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		inc, startsAt := loadIncident(tb, e.Name())
		h := newHarness(tb, inc, startsAt)
		svc := `{"service":"` + inc.Meta.Service + `"`
		args := [][2]string{
			{contracts.ToolServiceOverview, svc + `}`},
			{contracts.ToolDeploymentMarkers, svc + `}`},
			{contracts.ToolErrorTraces, svc + `,"limit":20}`},
			{contracts.ToolErrorLogs, svc + `,"limit":20}`},
		}
		for _, s := range inc.Spans {
			if s.HasError && s.Service() == inc.Meta.Service {
				args = append(args, [2]string{contracts.ToolGetTrace, `{"trace_id":"` + s.TraceID + `"}`})
				break
			}
		}
		for _, a := range args {
			calls = append(calls, corpusCall{incident: e.Name(), tool: a[0], args: a[1], h: h})
		}
	}
	return calls
}

// BenchmarkCompactionCorpus runs the sandbox's investigation tools for every
// incident of the corpus through the real SigNoz client against the fake
// SigNoz, and reports the bytes (and estimated tokens, one per four bytes) of
// the raw query_range responses beside those of the compact evidence text
// the model is shown, in all and per tool. One op is one pass over the corpus.
//
//	go test -run '^$' -bench CompactionCorpus -benchtime 3x ./services/sandbox/internal/tools
func BenchmarkCompactionCorpus(b *testing.B) {
	calls := corpusCalls(b)
	incidents := map[string]bool{}
	for _, c := range calls {
		incidents[c.incident] = true
	}
	var raw, text, rawTok, textTok int
	// byTool is each tool's raw and model bytes: where the model's bytes go.
	var byTool map[string][2]int
	b.ResetTimer()
	for range b.N {
		raw, text, rawTok, textTok = 0, 0, 0, 0
		byTool = map[string][2]int{}
		for _, c := range calls {
			r, err := c.h.run(b, c.tool, c.args)
			if err != nil {
				b.Fatalf("%s %s %s: %v", c.incident, c.tool, c.args, err)
			}
			t := byTool[c.tool]
			for _, body := range r.bodies {
				raw += len(body)
				rawTok += (len(body) + 3) / 4
				t[0] += len(body)
			}
			text += len(r.out.Compact)
			textTok += compact.EstimateTokens(r.out.Compact)
			t[1] += len(r.out.Compact)
			byTool[c.tool] = t
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(incidents)), "incidents")
	b.ReportMetric(float64(len(calls)), "tool-calls")
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
