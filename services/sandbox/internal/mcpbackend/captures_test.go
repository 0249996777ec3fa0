package mcpbackend_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/fakesignoz/mcpserver"
	"agentk/services/sandbox/internal/mcpbackend"
	"agentk/services/sandbox/internal/signoz"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// capturesFile holds the official server's answers (v0.13.0), byte for byte,
// copied from ../shared/signoz (see its README, captures-README.md there).
var capturesFile = filepath.Join("..", "..", "fakesignoz", "testdata", "contract", "mcp-server-results.jsonl")

type capture struct {
	Line      int
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Result    json.RawMessage `json:"result"`
	Error     *jsonrpc.Error  `json:"error"`
}

func loadCaptures(t *testing.T) []capture {
	t.Helper()
	f, err := os.Open(capturesFile)
	require.NoError(t, err)
	defer f.Close()
	var out []capture
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 8<<20)
	for n := 1; sc.Scan(); n++ {
		var c capture
		require.NoError(t, json.Unmarshal(sc.Bytes(), &c), "line %d", n)
		c.Line = n
		out = append(out, c)
	}
	require.NoError(t, sc.Err())
	require.Len(t, out, 51, "the initialize answer and 50 tool results")
	return out
}

// wantNotes are the notes each captured success carries after its payload,
// by line, read off the file by hand (the first line is the initialize answer).
var wantNotes = map[int][]string{
	2:  {contracts.NoteDecisionsApplied},
	4:  {contracts.NoteDecisionsApplied},
	6:  {contracts.NoteDecisionsApplied},
	9:  {contracts.NoteBackendWarnings},
	11: {contracts.NoteBackendWarnings},
	23: {contracts.NoteRowsCut, contracts.NoteBackendWarnings},
	24: {contracts.NoteAllRows, contracts.NoteBackendWarnings},
	29: {contracts.NoteRowsCut},
	30: {contracts.NoteRowsCut},
	37: {contracts.NoteAllRows, contracts.NoteBackendWarnings},
	38: {contracts.NoteBackendWarnings},
	39: {contracts.NoteAllRows, contracts.NoteBackendWarnings},
	40: {contracts.NoteBackendWarnings},
	48: {contracts.NoteRowsCut, contracts.NoteBackendWarnings, contracts.NoteInputNotice},
}

// TestCapturedResultsOfTheOfficialServer feeds every captured result of
// the official server through the client's decoder and checks the decoded
// value: the payload is the first block and parses as the tool's answer
// (SigNoz's envelope, list_services' wrapper, top_operations' bare array),
// every further block is a note of a known kind, and an error result is a
// refusal of the class its structuredContent gives. Decoding the blocks
// joined (mutant sandbox.mcp_first_block) fails on every line with notes.
func TestCapturedResultsOfTheOfficialServer(t *testing.T) {
	t.Parallel()
	caps := loadCaptures(t)
	withNotes, errorsSeen := 0, 0
	for _, c := range caps[1:] {
		if c.Error != nil {
			continue // the JSON-RPC error: TestCapturedJSONRPCErrorIsARefusal
		}
		var res mcp.CallToolResult
		require.NoError(t, json.Unmarshal(c.Result, &res), "line %d", c.Line)
		reply, err := mcpbackend.Decode(c.Tool, &res)
		if res.IsError {
			errorsSeen++
			requireCapturedRefusal(t, c, &res, err)
			continue
		}
		require.NoError(t, err, "line %d", c.Line)
		requireDecodedPayload(t, c, reply.Payload)
		first := res.Content[0].(*mcp.TextContent).Text
		require.Equal(t, first, string(reply.Payload), "line %d: the payload is the first block, as sent", c.Line)
		var kinds []string
		for _, n := range reply.Notes {
			kinds = append(kinds, n.Kind)
			require.NotEmpty(t, n.Text)
		}
		require.Equal(t, wantNotes[c.Line], kinds, "line %d (%s): the notes after the payload", c.Line, c.Tool)
		if len(kinds) > 0 {
			withNotes++
		}
	}
	require.Equal(t, len(wantNotes), withNotes)
	require.Equal(t, 8, errorsSeen, "the captured error results")
}

// requireDecodedPayload checks that a success's payload decodes as that
// tool's answer and holds what the capture shows.
func requireDecodedPayload(t *testing.T, c capture, payload []byte) {
	t.Helper()
	switch c.Tool {
	case "signoz_get_field_keys", "signoz_get_field_values":
		_, err := signoz.DecodeFields(payload)
		require.NoError(t, err, "line %d", c.Line)
	case "signoz_list_services":
		var v struct {
			Data       []map[string]any `json:"data"`
			Pagination *struct {
				Total   int  `json:"total"`
				HasMore bool `json:"hasMore"`
			} `json:"pagination"`
		}
		require.NoError(t, json.Unmarshal(payload, &v), "line %d", c.Line)
		require.NotNil(t, v.Pagination, "line %d: list_services wraps SigNoz's array", c.Line)
		require.Len(t, v.Data, v.Pagination.Total)
	case "signoz_get_service_top_operations":
		var v []struct {
			Name     string  `json:"name"`
			NumCalls int64   `json:"numCalls"`
			P95      float64 `json:"p95"`
		}
		require.NoError(t, json.Unmarshal(payload, &v), "line %d: top_operations is SigNoz's bare array", c.Line)
	default:
		r, err := signoz.Decode(payload)
		require.NoError(t, err, "line %d (%s)", c.Line, c.Tool)
		require.NotEmpty(t, r.Data.Results, "line %d", c.Line)
		var args struct {
			Query struct {
				RequestType string `json:"requestType"`
			} `json:"query"`
		}
		if json.Unmarshal(c.Arguments, &args) == nil && args.Query.RequestType != "" {
			require.Equal(t, args.Query.RequestType, r.Type, "line %d", c.Line)
		}
	}
}

// requireCapturedRefusal checks an error result's class: SigNoz's 400 and
// the server's own argument checks are refused queries, never retryable.
func requireCapturedRefusal(t *testing.T, c capture, res *mcp.CallToolResult, err error) {
	t.Helper()
	var te *mcpbackend.ToolError
	require.ErrorAs(t, err, &te, "line %d", c.Line)
	sc, ok := res.StructuredContent.(map[string]any)
	require.True(t, ok, "line %d: every error result has structuredContent", c.Line)
	require.Equal(t, sc["code"], te.Code, "line %d", c.Line)
	require.Equal(t, 400, te.HTTPStatus, "line %d: VALIDATION_FAILED", c.Line)
	require.ErrorIs(t, err, signoz.ErrAPI, "line %d", c.Line)
	require.NotErrorIs(t, err, signoz.ErrUnavailable, "line %d", c.Line)
	require.Contains(t, te.Message, res.Content[0].(*mcp.TextContent).Text[:20], "line %d: the server's words are kept", c.Line)
}

// replayServer is an MCP server offering the allowlisted tools with the
// official schemas and answering each call with the next captured result
// (or JSON-RPC error) it is given.
type replayServer struct {
	mu   sync.Mutex
	next capture
}

func (s *replayServer) answer(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	c := s.next
	s.mu.Unlock()
	if c.Error != nil {
		return nil, c.Error
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(c.Result, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

func newReplayClient(t *testing.T, s *replayServer) *mcpbackend.Client {
	t.Helper()
	cat, err := mcpserver.Catalogue()
	require.NoError(t, err)
	srv := mcp.NewServer(&mcp.Implementation{Name: "replay", Version: "v0.13.0"}, nil)
	for _, tool := range cat {
		for _, a := range mcpbackend.Allowlist {
			if tool.Name == a {
				srv.AddTool(&mcp.Tool{Name: tool.Name, Description: tool.Description, Annotations: tool.Annotations, InputSchema: tool.InputSchema}, s.answer)
			}
		}
	}
	ts := httptest.NewServer(mcpserver.HTTPHandler(srv))
	t.Cleanup(ts.Close)
	c, err := mcpbackend.New(mcpbackend.Config{URL: ts.URL, SigNozURL: "http://127.0.0.1:1", APIKey: key, Timeout: 10 * time.Second,
		Wait: func(context.Context, time.Duration) error { return nil }})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestCapturedResultsThroughTheClient sends every captured call of an
// allowlisted tool through the client, over streamable HTTP, to a server
// that answers with the captured result: QueryRange returns the first block
// as SigNoz's body and the notes with it.
func TestCapturedResultsThroughTheClient(t *testing.T) {
	t.Parallel()
	s := &replayServer{}
	c := newReplayClient(t, s)
	sent := 0
	for _, cp := range loadCaptures(t)[1:] {
		if cp.Tool != mcpbackend.ToolQuery || cp.Error != nil {
			continue
		}
		var args struct {
			Query json.RawMessage `json:"query"`
		}
		if json.Unmarshal(cp.Arguments, &args) != nil {
			continue
		}
		var req signoz.QueryRangeRequest
		if json.Unmarshal(args.Query, &req) != nil {
			continue // "SELECT 1": our client cannot even form it
		}
		s.mu.Lock()
		s.next = cp
		s.mu.Unlock()
		var res mcp.CallToolResult
		require.NoError(t, json.Unmarshal(cp.Result, &res))
		got, err := c.QueryRange(context.Background(), req)
		sent++
		if res.IsError {
			require.ErrorIs(t, err, signoz.ErrAPI, "line %d", cp.Line)
			continue
		}
		require.NoError(t, err, "line %d", cp.Line)
		require.Equal(t, res.Content[0].(*mcp.TextContent).Text, string(got.Body), "line %d", cp.Line)
		var kinds []string
		for _, n := range got.Notes {
			kinds = append(kinds, n.Kind)
		}
		require.Equal(t, wantNotes[cp.Line], kinds, "line %d", cp.Line)
	}
	require.Equal(t, 11, sent, "the captured builder queries our client can form")
}

// TestCapturedJSONRPCErrorIsARefusal: the server's JSON-RPC error (an
// unknown tool, -32602) is its answer, a refused call; the session stays.
func TestCapturedJSONRPCErrorIsARefusal(t *testing.T) {
	t.Parallel()
	caps := loadCaptures(t)
	rpc := caps[len(caps)-1]
	require.NotNil(t, rpc.Error)
	s := &replayServer{next: rpc}
	c := newReplayClient(t, s)
	_, err := c.Call(context.Background(), mcpbackend.ToolFieldKeys, map[string]any{"signal": "traces"})
	var apiErr *signoz.APIError
	require.ErrorAs(t, err, &apiErr)
	require.ErrorIs(t, err, signoz.ErrAPI)
	require.Contains(t, apiErr.Message, rpc.Error.Message)
	require.Contains(t, apiErr.Message, "-32602")
}
