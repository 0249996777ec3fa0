package mcpbackend_test

import (
	"bufio"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"

	"agentk/services/sandbox/fakesignoz/mcpserver"
	"agentk/services/sandbox/internal/mcpbackend"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// loopback is the fake SigNoz's address in a webUrl: another port on every
// run.
var loopback = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`)

// TestOurDoubleAnswersAsTheOfficialServer (DESIGN rule 18): every call the
// official server answered in both fixtures, sent to our double
// (fakesignoz/mcpserver) in front of the same fake SigNoz, gets the same
// result: error or not, the same text blocks (the payload byte for byte,
// then the notes) and the same structured content, the fake's address in a
// webUrl aside.
func TestOurDoubleAnswersAsTheOfficialServer(t *testing.T) {
	t.Parallel()
	type line struct {
		Incident  string          `json:"incident"`
		Query     string          `json:"query"`
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
		Result    json.RawMessage `json:"result"`
	}
	dirs := map[string]string{"": filepath.Join(corpus, officialIncident)}
	for id, c := range stagesIncidents {
		dirs[id] = filepath.Join("..", "..", "..", "..", "e2e", c, id)
	}
	sessions := map[string]*mcp.ClientSession{}
	session := func(id string) *mcp.ClientSession {
		if cs := sessions[id]; cs != nil {
			return cs
		}
		r := newOverviewRun(t, dirs[id])
		sig := fakeSigNoz(t, r.inc)
		srv, err := mcpserver.New(mcpserver.Options{SigNozURL: sig.URL, APIKey: key})
		require.NoError(t, err)
		ct, st := mcp.NewInMemoryTransports()
		_, err = srv.Connect(context.Background(), st, nil)
		require.NoError(t, err)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "agentk-test", Version: "v1"}, nil).Connect(context.Background(), ct, nil)
		require.NoError(t, err)
		t.Cleanup(func() { _ = cs.Close() })
		sessions[id] = cs
		return cs
	}
	norm := func(v any) string {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return loopback.ReplaceAllString(string(b), "SIGNOZ")
	}
	n := 0
	for _, file := range []string{officialFixture, stagesFixture} {
		f := openFixture(t, file)
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 1<<20), 32<<20)
		for sc.Scan() {
			var l line
			require.NoError(t, json.Unmarshal(sc.Bytes(), &l))
			tool := l.Tool
			if file == officialFixture {
				tool = mcpbackend.ToolQuery // the agentk tool is in Tool, its query in Query
			}
			var args map[string]any
			require.NoError(t, json.Unmarshal(l.Arguments, &args))
			got, err := session(l.Incident).CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
			require.NoError(t, err)
			var want mcp.CallToolResult
			require.NoError(t, json.Unmarshal(l.Result, &want))
			what := file + ": " + l.Incident + " " + tool + " " + l.Query
			require.Equal(t, want.IsError, got.IsError, what)
			require.Equal(t, norm(want.Content), norm(got.Content), what)
			require.Equal(t, norm(want.StructuredContent), norm(got.StructuredContent), what)
			n++
		}
		require.NoError(t, sc.Err())
		require.NoError(t, f.Close())
	}
	require.Positive(t, n)
}
