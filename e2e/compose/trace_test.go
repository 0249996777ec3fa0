package compose

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/platform/telemetry/otlptest"
)

// tracedServices are the services an incident's trace crosses on its way to
// a decision posted to the bridge (the deployer joins only once a human
// approves, which this test does not do).
var tracedServices = []string{"ingester", "investigator", "sandbox", "reviewer", "gate", "bridge"}

// sinkDump is what the otlpsink container answers on GET /spans.
type sinkDump struct {
	Requests int             `json:"requests"`
	Errors   []string        `json:"errors"`
	Spans    []otlptest.Span `json:"spans"`
	Metrics  []string        `json:"metrics"`
}

func readSink(ctx context.Context, url string) (sinkDump, error) {
	var d sinkDump
	code, body, err := get(ctx, url+"/spans", "")
	if err != nil {
		return d, err
	}
	if code != http.StatusOK {
		return d, fmt.Errorf("otlpsink: status %d: %s", code, body)
	}
	return d, json.Unmarshal(body, &d)
}

// checkTrace reads the spans every container exported to the OTLP sink and
// asserts the incident is one trace: rooted at the ingester's webhook span,
// through every service up to the decision, the gate's decide span carrying
// the decision's verdict, every span's resource named agentk-<service>.
func checkTrace(ctx context.Context, t *testing.T, sinkURL string, decision map[string]any) {
	t.Helper()
	decisionID, _ := decision["decision_id"].(string)
	var (
		dump    sinkDump
		decide  otlptest.Span
		inTrace map[string]otlptest.Span
	)
	// The batch span processors flush every few seconds: wait for the hops.
	poll(t, ctx, 90*time.Second, "the decision's trace in the OTLP sink", func(ctx context.Context) (bool, error) {
		d, err := readSink(ctx, sinkURL)
		if err != nil {
			return false, err
		}
		dump = d
		found := false
		for _, s := range d.Spans {
			if s.Name == "gate.decide" && s.Attrs["agentk.decision_id"] == decisionID {
				decide, found = s, true
			}
		}
		if !found {
			return false, fmt.Errorf("no gate.decide span for decision %s among %d spans from %v", decisionID, len(d.Spans), spanServices(d.Spans))
		}
		inTrace = map[string]otlptest.Span{}
		for _, s := range d.Spans {
			if s.TraceID == decide.TraceID {
				inTrace[s.SpanID] = s
			}
		}
		seen := spanServices(mapValues(inTrace))
		for _, svc := range tracedServices {
			if !slices.Contains(seen, "agentk-"+svc) {
				return false, fmt.Errorf("trace %s: no span of agentk-%s yet (seen: %v)", decide.TraceID, svc, seen)
			}
		}
		for _, s := range inTrace {
			if _, ok := inTrace[s.ParentID]; s.ParentID != "" && !ok {
				return false, fmt.Errorf("trace %s: span %q (%s) has no parent in the trace yet", decide.TraceID, s.Name, s.Service)
			}
		}
		return true, nil
	})
	require.Empty(t, dump.Errors, "exports the sink could not decode")

	// The decision, as the gate recorded it.
	require.Equal(t, "agentk-gate", decide.Service)
	require.Equal(t, decision["verdict"], decide.Attrs["agentk.gate.verdict"], "gate.decide's verdict")
	require.Equal(t, decisionID, decide.Attrs["agentk.decision_id"])

	// One root: the ingester's webhook span.
	byName := map[string][]otlptest.Span{}
	var roots []otlptest.Span
	for _, s := range inTrace {
		byName[s.Name] = append(byName[s.Name], s)
		if s.ParentID == "" {
			roots = append(roots, s)
		}
	}
	require.Len(t, roots, 1, "one root span in the incident's trace")
	require.Equal(t, "POST /v1/alerts", roots[0].Name)
	require.Equal(t, "agentk-ingester", roots[0].Service)

	// Each hop, in the service it belongs to.
	for name, svc := range map[string]string{
		"investigator.investigate": "agentk-investigator",
		"sandbox.tool":             "agentk-sandbox",
		"POST /api/v5/query_range": "agentk-sandbox",
		"reviewer.review":          "agentk-reviewer",
		"gate.decide":              "agentk-gate",
	} {
		require.NotEmpty(t, byName[name], "no %s span in the trace", name)
		for _, s := range byName[name] {
			require.Equal(t, svc, s.Service, "%s", name)
		}
	}

	// Every span of every agentk container: its resource is agentk-<service>,
	// and a container exports under its own name alone.
	names := map[string]bool{}
	for _, svc := range agentkServices {
		names["agentk-"+svc] = true
	}
	for _, s := range inTrace {
		require.True(t, names[s.Resource["service.name"]], "span %q: resource service.name %q", s.Name, s.Resource["service.name"])
		if role := s.Resource["agentk.service"]; role != "" {
			require.Equal(t, "agentk-"+role, s.Resource["service.name"], "span %q", s.Name)
		}
	}
	names["agentk-provision"] = true // the one-shot provisioner, never in an incident's trace
	for _, s := range dump.Spans {
		if svc := s.Resource["service.name"]; strings.HasPrefix(svc, "agentk") {
			require.True(t, names[svc], "span %q exported as %q", s.Name, svc)
		}
	}
	t.Logf("trace %s: %d spans from %v (sink: %d spans, %d export requests, metrics %d names)",
		decide.TraceID, len(inTrace), spanServices(mapValues(inTrace)), len(dump.Spans), dump.Requests, len(dump.Metrics))
}

func spanServices(spans []otlptest.Span) []string {
	seen := map[string]bool{}
	for _, s := range spans {
		seen[s.Service] = true
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func mapValues(m map[string]otlptest.Span) []otlptest.Span {
	out := make([]otlptest.Span, 0, len(m))
	for _, s := range m {
		out = append(out, s)
	}
	return out
}

// buildOTLPSink builds testdata/cmd/otlpsink into a FROM-scratch image.
func buildOTLPSink(ctx context.Context, t *testing.T, root, tag string) {
	t.Helper()
	bctx := t.TempDir()
	rootfs := filepath.Join(bctx, "rootfs")
	require.NoError(t, os.MkdirAll(rootfs, 0o755))
	_, err := run(ctx, filepath.Join(root, "e2e"), []string{"CGO_ENABLED=0", "GOOS=linux"},
		"go", "build", "-trimpath", "-o", filepath.Join(rootfs, "otlpsink"), "./compose/testdata/cmd/otlpsink")
	require.NoError(t, err)
	dockerfile := "FROM scratch\nCOPY rootfs/ /\nUSER 65532:65532\nENTRYPOINT [\"/otlpsink\"]\n"
	require.NoError(t, os.WriteFile(filepath.Join(bctx, "Dockerfile"), []byte(dockerfile), 0o644))
	_, err = run(ctx, "", nil, "docker", "build", "--pull=false", "-q", "-t", tag, bctx)
	require.NoError(t, err)
}
