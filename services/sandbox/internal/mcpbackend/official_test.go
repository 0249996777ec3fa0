package mcpbackend_test

import (
	"bufio"
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"
	"agentk/platform/links"
	"agentk/services/sandbox/internal/config"
	"agentk/services/sandbox/internal/mcpbackend"
	"agentk/services/sandbox/internal/signoz"
	"agentk/services/sandbox/internal/tools"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// officialFixture holds what the official server (v0.13.0, built from its
// source) answered to the sandbox's own queries on officialIncident: one
// line per query, {"tool", "query", "arguments", "result"}, the result as
// the Go SDK decoded it from the wire and encoded it again. Recorded by
// TestRecordOfficialAnswers; checked in CI by TestOfficialAnswersToOurQueries.
var officialFixture = filepath.Join("testdata", "official-answers-bad-release-01.jsonl")

const officialIncident = "bad-release-01"

type officialLine struct {
	Tool      string          `json:"tool"`
	Query     string          `json:"query"`
	Arguments json.RawMessage `json:"arguments"`
	Result    json.RawMessage `json:"result"`
}

// recorder is the MCP route to the official server without the client:
// it keeps every result as sent, and decodes it as the client does.
type recorder struct {
	t     *testing.T
	cs    *mcp.ClientSession
	tool  string
	names map[string]string // firstStageQueries: the plan's name of each query
	lines []officialLine
}

func (r *recorder) QueryRange(ctx context.Context, req signoz.QueryRangeRequest) (signoz.Result, error) {
	var query any
	b, _ := json.Marshal(req)
	_ = json.Unmarshal(b, &query)
	args := map[string]any{"query": query, "searchContext": "agentk sandbox: recording the official server's answers"}
	res, err := r.cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpbackend.ToolQuery, Arguments: args})
	if err != nil {
		return signoz.Result{}, err
	}
	raw, _ := json.Marshal(res)
	a, _ := json.Marshal(args)
	name := r.names[canonical(r.t, req)]
	if name == "" {
		name = r.tool + "/" + req.CompositeQuery.Queries[0].Spec.Name
	}
	r.lines = append(r.lines, officialLine{Tool: r.tool, Query: name, Arguments: a, Result: raw})
	reply, err := mcpbackend.Decode(mcpbackend.ToolQuery, res)
	if err != nil {
		return signoz.Result{}, err
	}
	resp, err := signoz.Decode(reply.Payload)
	return signoz.Result{Body: reply.Payload, Response: resp, Notes: reply.Notes}, err
}

// TestRecordOfficialAnswers records officialFixture from a build of the
// official server (AGENTK_TEST_OFFICIAL_MCP_COMMAND, with
// AGENTK_TEST_RECORD=1): CI cannot build it, so what it answers is kept.
func TestRecordOfficialAnswers(t *testing.T) {
	official := os.Getenv("AGENTK_TEST_OFFICIAL_MCP_COMMAND")
	if official == "" || os.Getenv("AGENTK_TEST_RECORD") == "" {
		t.Skip("set AGENTK_TEST_OFFICIAL_MCP_COMMAND and AGENTK_TEST_RECORD=1 to record the official server's answers")
	}
	inc := loadIncident(t, officialIncident)
	sig := fakeSigNoz(t, inc)
	cmd := exec.Command(official)
	cmd.Env = []string{"SIGNOZ_URL=" + sig.URL, "SIGNOZ_API_KEY=" + key, "PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agentk-recorder", Version: "v1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	startsAt, now := alertStart(t, inc), inc.Meta.Now
	rec := &recorder{t: t, cs: cs, names: firstStageQueries(t, inc)}
	for _, c := range toolCalls(inc) {
		rec.tool = c[0]
		evidence(t, rec, c[0], c[1], startsAt, now, nil)
	}
	f := createFixture(t, officialFixture)
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for _, l := range rec.lines {
		require.NoError(t, enc.Encode(l))
	}
	require.NoError(t, f.Close())
}

// TestOfficialAnswersToOurQueries: what the official server answered to
// every first-stage query of the sandbox's tools on bad-release-01 decodes
// through the client to exactly the body SigNoz (the fake) gives the same
// query directly; its only notes are SigNoz's warnings (the missing select
// fields of the incident), never a decision of its own, since every query
// states its limit and order.
func TestOfficialAnswersToOurQueries(t *testing.T) {
	t.Parallel()
	inc := loadIncident(t, officialIncident)
	sig := fakeSigNoz(t, inc)
	direct := &signoz.Client{BaseURL: sig.URL, APIKey: key, HTTP: sig.Client()}
	planned := firstStageQueries(t, inc)
	n, warned := 0, 0
	for _, l := range readOfficial(t) {
		var res mcp.CallToolResult
		require.NoError(t, json.Unmarshal(l.Result, &res))
		reply, err := mcpbackend.Decode(mcpbackend.ToolQuery, &res)
		require.NoError(t, err, "%s/%s", l.Tool, l.Query)
		var args struct {
			Query signoz.QueryRangeRequest `json:"query"`
		}
		require.NoError(t, json.Unmarshal(l.Arguments, &args))
		k := canonical(t, args.Query)
		_, ok := planned[k]
		require.True(t, ok, "%s/%s: a recorded query the tools no longer send: re-record (testdata/README.md)", l.Tool, l.Query)
		delete(planned, k)
		want, err := direct.QueryRange(context.Background(), args.Query)
		require.NoError(t, err)
		require.JSONEq(t, string(want.Body), string(reply.Payload), "%s/%s: the official server passes SigNoz's body on", l.Tool, l.Query)
		for _, note := range reply.Notes {
			require.Equal(t, contracts.NoteBackendWarnings, note.Kind, "%s/%s: %s", l.Tool, l.Query, note.Text)
			warned++
		}
		n++
	}
	require.Empty(t, slices.Sorted(maps.Values(planned)), "queries the tools send that the official server never answered: re-record (testdata/README.md)")
	require.GreaterOrEqual(t, n, 20, "the first-stage queries of six tools")
	require.Positive(t, warned, "the official server's warnings notes are in the fixture")
}

// readOfficial reads officialFixture.
func readOfficial(t *testing.T) []officialLine {
	t.Helper()
	f := openFixture(t, officialFixture)
	defer f.Close()
	var out []officialLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var l officialLine
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l))
		out = append(out, l)
	}
	require.NoError(t, sc.Err())
	return out
}

// firstStageQueries are the queries (canonical JSON, by query name) the
// six tools of toolCalls plan first on inc: every one must be in
// officialFixture, answered by the official server.
func firstStageQueries(t *testing.T, inc *incident.Incident) map[string]string {
	t.Helper()
	lim := tools.DefaultLimits(config.DefaultExclude)
	out := map[string]string{}
	for _, call := range toolCalls(inc) {
		c, err := tools.Validate(call[0], json.RawMessage(call[1]), alertStart(t, inc), inc.Meta.Now, lim)
		require.NoError(t, err)
		for _, q := range tools.PlanCall(c, links.DefaultBaseURL, lim).Queries {
			out[canonical(t, q.Request)] = call[0] + "/" + q.Name
		}
	}
	return out
}

// alertStart is the incident's alert's startsAt.
func alertStart(t *testing.T, inc *incident.Incident) time.Time {
	t.Helper()
	var alert struct {
		Alerts []struct {
			StartsAt time.Time `json:"startsAt"`
		} `json:"alerts"`
	}
	require.NoError(t, json.Unmarshal(inc.AlertJSON, &alert))
	return alert.Alerts[0].StartsAt
}
