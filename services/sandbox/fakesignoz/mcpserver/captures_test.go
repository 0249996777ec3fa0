package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"agentk/contracts/incident"
	"agentk/services/sandbox/fakesignoz"
	"agentk/services/sandbox/fakesignoz/mcpserver"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// capturedURL is the SIGNOZ_URL the official server had when the results
// were captured; its webUrl links point there.
const capturedURL = "http://127.0.0.1:8080"

type captured struct {
	Line      int
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Result    *struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent map[string]any `json:"structuredContent"`
		IsError           bool           `json:"isError"`
	} `json:"result"`
}

// TestAnswersAreTheOfficialServersShapes replays every captured call of a
// tool this server serves, against the fake serving the incident the
// captures were made on, and compares the answer block by block: the same
// payload (compared parsed: key order differs between tools), the same
// notes word for word ([Decisions applied], SigNoz's warnings), the same
// error codes. Calls without a time range ran a month after the incident:
// their shapes (empty lists, rows: null) are compared, not the wall clock's
// times in their warnings.
func TestAnswersAreTheOfficialServersShapes(t *testing.T) {
	t.Parallel()
	inc, err := incident.Load(filepath.Join("..", "..", "..", "..", "e2e", "incidents", "bad-release-01"))
	require.NoError(t, err)
	ts := httptest.NewServer(fakesignoz.New(inc, fakesignoz.Options{APIKey: "k"}))
	t.Cleanup(ts.Close)
	cs := session(t, mcpserver.Options{SigNozURL: ts.URL, APIKey: "k"})

	f, err := os.Open(filepath.Join("..", "testdata", "contract", "mcp-server-results.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 8<<20)
	compared := 0
	for n := 1; sc.Scan(); n++ {
		var c captured
		require.NoError(t, json.Unmarshal(sc.Bytes(), &c))
		c.Line = n
		if c.Result == nil || !slices.Contains(mcpserver.Served, c.Tool) {
			continue
		}
		var args any
		require.NoError(t, json.Unmarshal(c.Arguments, &args))
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.Tool, Arguments: args})
		require.NoError(t, err, "line %d", n)
		compareAnswer(t, c, res, ts.URL)
		compared++
	}
	require.NoError(t, sc.Err())
	require.Equal(t, 29, compared, "the captured calls of the tools this server serves")
}

func compareAnswer(t *testing.T, c captured, res *mcp.CallToolResult, url string) {
	t.Helper()
	want := c.Result
	require.Equal(t, want.IsError, res.IsError, "line %d (%s): %v", c.Line, c.Tool, res.Content)
	var got []string
	for _, b := range res.Content {
		got = append(got, b.(*mcp.TextContent).Text)
	}
	require.Len(t, got, len(want.Content), "line %d (%s): blocks %q", c.Line, c.Tool, got)
	if want.IsError {
		gotSC, _ := json.Marshal(res.StructuredContent)
		var sc map[string]any
		require.NoError(t, json.Unmarshal(gotSC, &sc))
		require.Equal(t, want.StructuredContent["code"], sc["code"], "line %d", c.Line)
		require.Equal(t, want.StructuredContent["status"], sc["status"], "line %d", c.Line)
		if want.StructuredContent["status"] != nil {
			require.Equal(t, want.Content[0].Text, got[0], "line %d: SigNoz's refusal, as the official server words it", c.Line)
		}
		return
	}
	timed := strings.Contains(string(c.Arguments), `"end"`)
	payload := strings.ReplaceAll(want.Content[0].Text, capturedURL, url)
	if timed {
		require.JSONEq(t, payload, got[0], "line %d (%s): the payload", c.Line, c.Tool)
	} else {
		require.Equal(t, shape(t, payload), shape(t, got[0]), "line %d (%s): the payload's shape", c.Line, c.Tool)
	}
	for i := 1; i < len(want.Content); i++ {
		if timed {
			require.Equal(t, want.Content[i].Text, got[i], "line %d (%s): note %d", c.Line, c.Tool, i)
		} else {
			require.Equal(t, strings.SplitN(want.Content[i].Text, "\n", 2)[0], strings.SplitN(got[i], "\n", 2)[0], "line %d: note %d", c.Line, i)
		}
	}
	if want.StructuredContent != nil {
		require.NotNil(t, res.StructuredContent, "line %d (%s): structuredContent", c.Line, c.Tool)
		b, _ := json.Marshal(res.StructuredContent)
		wb, _ := json.Marshal(want.StructuredContent)
		if timed {
			require.JSONEq(t, strings.ReplaceAll(string(wb), capturedURL, url), string(b), "line %d", c.Line)
		}
	} else {
		require.Nil(t, res.StructuredContent, "line %d (%s): no structuredContent on this tool", c.Line, c.Tool)
	}
}

// shape is a JSON value with every string, number and boolean blanked and
// arrays cut to their first element: what is left is the keys, the nulls
// and the nesting.
func shape(t *testing.T, s string) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(s), &v), "%s", s)
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			out := map[string]any{}
			for k, e := range x {
				out[k] = walk(e)
			}
			return out
		case []any:
			if len(x) == 0 {
				return []any{}
			}
			return []any{walk(x[0])}
		case nil:
			return nil
		}
		return "·"
	}
	return walk(v)
}
