package mcpbackend_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"
	"agentk/platform/links"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/config"
	"agentk/services/sandbox/internal/fieldtool"
	"agentk/services/sandbox/internal/mcpbackend"
	"agentk/services/sandbox/internal/signoz"
	"agentk/services/sandbox/internal/tools"

	"github.com/stretchr/testify/require"
)

type querier interface {
	QueryRange(ctx context.Context, req signoz.QueryRangeRequest) (signoz.Result, error)
}

// evidence runs one tool call the way the executor does (validate, plan,
// query, build) and returns its facts, compact text and raw hash; notes,
// when not nil, receives the route's notes about each query's answer.
func evidence(t *testing.T, q querier, tool, args string, startsAt, now time.Time, notes *[]contracts.SourceNote) (contracts.Facts, string, [32]byte) {
	t.Helper()
	lim := tools.DefaultLimits(config.DefaultExclude)
	c, err := tools.Validate(tool, json.RawMessage(args), startsAt, now, lim)
	require.NoError(t, err)
	p := tools.PlanCall(c, links.DefaultBaseURL, lim)
	var resps []signoz.Response
	h := sha256.New()
	for i, qq := range p.Queries {
		res, err := q.QueryRange(context.Background(), qq.Request)
		require.NoError(t, err, "query %s", qq.Name)
		if notes != nil {
			for _, n := range res.Notes {
				n.Query = tool + "/" + qq.Name
				*notes = append(*notes, n)
			}
		}
		if i > 0 {
			h.Write([]byte{'\n'})
		}
		h.Write(res.Body)
		resps = append(resps, res.Response)
	}
	out, err := tools.Build(c, resps, lim, compact.DefaultLimits)
	require.NoError(t, err)
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return out.Facts, out.Compact, sum
}

// TestEvidenceFactsEqualTheDirectRoute: on corpus incidents, every tool's
// evidence (onset, markers, counts, error classes in the compact text, and
// the raw hash) is the same whether the sandbox asks SigNoz's v5 API or
// the MCP server in front of it: ours, and, when
// AGENTK_TEST_OFFICIAL_MCP_COMMAND names a build of the official server
// (which CI cannot build), that one over stdio too.
func TestEvidenceFactsEqualTheDirectRoute(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"bad-release-01", "db-pool-exhaustion-02-deploy-coincides", "retry-storm-01", "dependency-outage-04-marker-after-onset", "traffic-surge-01"} {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			inc := loadIncident(t, id)
			var alert struct {
				Alerts []struct {
					StartsAt time.Time `json:"startsAt"`
				} `json:"alerts"`
			}
			require.NoError(t, json.Unmarshal(inc.AlertJSON, &alert))
			startsAt, now := alert.Alerts[0].StartsAt, inc.Meta.Now
			sig := fakeSigNoz(t, inc)
			direct := &signoz.Client{BaseURL: sig.URL, APIKey: key, HTTP: sig.Client()}
			routes := map[string]querier{"ours": httpBackend(t, sig, nil)}
			if official := os.Getenv("AGENTK_TEST_OFFICIAL_MCP_COMMAND"); official != "" {
				c, err := mcpbackend.New(mcpbackend.Config{Command: official, SigNozURL: sig.URL, APIKey: key, Timeout: 60 * time.Second})
				require.NoError(t, err)
				t.Cleanup(func() { _ = c.Close() })
				routes["official"] = c
			}
			calls := toolCalls(inc)
			sawOnset := false
			var notes []contracts.SourceNote
			for _, c := range calls {
				wantFacts, wantCompact, wantHash := evidence(t, direct, c[0], c[1], startsAt, now, nil)
				for name, viaMCP := range routes {
					gotFacts, gotCompact, gotHash := evidence(t, viaMCP, c[0], c[1], startsAt, now, &notes)
					require.Equal(t, wantFacts, gotFacts, "%s: %s facts", name, c[0])
					require.Equal(t, wantCompact, gotCompact, "%s: %s compact (error classes, rows)", name, c[0])
					require.Equal(t, wantHash, gotHash, "%s: %s raw hash", name, c[0])
				}
				if wantFacts.Onset != nil {
					sawOnset = true
				}
			}
			require.True(t, sawOnset, "the overview found an onset to compare")
			warned := false
			for _, n := range notes {
				// Every query states its limit and order: the server never
				// has to decide either (issue 32).
				require.NotEqual(t, contracts.NoteDecisionsApplied, n.Kind, "%s: %s", n.Query, n.Text)
				warned = warned || n.Kind == contracts.NoteBackendWarnings
			}
			require.True(t, warned, "the server's warnings notes came after the payloads and were read")

			// Field discovery: same evidence from /api/v1/fields/* and the MCP tools.
			lim := tools.DefaultLimits(config.DefaultExclude)
			for _, fc := range []fieldtool.Call{
				{Signal: "traces", Limit: 50}, {Signal: "logs", Search: "service", Limit: 50},
				{Signal: "traces", Key: "service.name", Limit: 50}, {Signal: "traces", Key: "http.response.status_code", Limit: 50},
			} {
				want, err := fieldtool.Run(context.Background(), direct, fc, lim, compact.DefaultLimits)
				require.NoError(t, err)
				for name, viaMCP := range routes {
					got, err := fieldtool.Run(context.Background(), viaMCP.(fieldtool.Querier), fc, lim, compact.DefaultLimits)
					require.NoError(t, err)
					require.Equal(t, want, got, "%s: list_fields %+v", name, fc)
				}
			}
		})
	}
}

// toolCalls are the calls compared on an incident: every evidence tool on
// the alert's service (get_trace on its first failing trace).
func toolCalls(inc *incident.Incident) [][2]string {
	trace := ""
	for _, s := range inc.Spans {
		if s.HasError && s.Service() == inc.Meta.Service {
			trace = s.TraceID
			break
		}
	}
	svc := fmt.Sprintf(`{"service":%q}`, inc.Meta.Service)
	calls := [][2]string{
		{contracts.ToolServiceOverview, svc},
		{contracts.ToolDeploymentMarkers, svc},
		{contracts.ToolErrorTraces, svc},
		{contracts.ToolErrorLogs, svc},
		{contracts.ToolAggregateTraces, fmt.Sprintf(`{"service":%q,"aggregation":"p95","group_by":["name"]}`, inc.Meta.Service)},
	}
	if trace != "" {
		calls = append(calls, [2]string{contracts.ToolGetTrace, fmt.Sprintf(`{"trace_id":%q}`, trace)})
	}
	return calls
}
