package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"agentk/contracts/incident"
	"agentk/services/sandbox/fakesignoz"
	"agentk/services/sandbox/fakesignoz/mcpserver"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

func session(t *testing.T, opts mcpserver.Options) *mcp.ClientSession {
	t.Helper()
	srv, err := mcpserver.New(opts)
	require.NoError(t, err)
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func sig(t *testing.T) string {
	at := time.Date(2026, 11, 4, 10, 0, 0, 0, time.UTC)
	inc := &incident.Incident{Spans: []incident.Span{{Timestamp: at, TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "00f067aa0ba902b7",
		Name: "GET /", Kind: 2, Resource: map[string]string{"service.name": "shop-api"}}}}
	ts := httptest.NewServer(fakesignoz.New(inc, fakesignoz.Options{APIKey: "k"}))
	t.Cleanup(ts.Close)
	return ts.URL
}

func TestToolsAreTheOfficialOnes(t *testing.T) {
	t.Parallel()
	cat, err := mcpserver.Catalogue()
	require.NoError(t, err)
	official := map[string]mcpserver.Tool{}
	for _, tool := range cat {
		official[tool.Name] = tool
	}
	cs := session(t, mcpserver.Options{SigNozURL: sig(t), APIKey: "k"})
	n := 0
	for tool, err := range cs.Tools(context.Background(), nil) {
		require.NoError(t, err)
		want, ok := official[tool.Name]
		require.True(t, ok, "%s is an official tool", tool.Name)
		got, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		require.JSONEq(t, string(want.InputSchema), string(got), tool.Name)
		require.Equal(t, want.Description, tool.Description)
		require.True(t, tool.Annotations.ReadOnlyHint, tool.Name)
		n++
	}
	require.Equal(t, len(mcpserver.Served), n)
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.(*mcp.TextContent).Text)
	}
	return b.String(), res.IsError
}

func TestCallsReachSigNozWithTheKey(t *testing.T) {
	t.Parallel()
	url := sig(t)
	cs := session(t, mcpserver.Options{SigNozURL: url, APIKey: "k"})
	text, isErr := call(t, cs, "signoz_get_field_values", map[string]any{"signal": "traces", "name": "service.name"})
	require.False(t, isErr, text)
	require.Contains(t, text, `"shop-api"`)
	text, isErr = call(t, cs, "signoz_list_services", map[string]any{"start": "1793786400000", "end": "1793790000000"})
	require.False(t, isErr, text)
	require.Contains(t, text, `"serviceName":"shop-api"`)

	text, isErr = call(t, cs, "signoz_get_field_keys", map[string]any{"signal": "profiles"})
	require.True(t, isErr)
	require.Contains(t, text, "invalid arguments")

	wrong := session(t, mcpserver.Options{SigNozURL: url, APIKey: "not-the-key"})
	text, isErr = call(t, wrong, "signoz_get_field_keys", map[string]any{"signal": "traces"})
	require.True(t, isErr)
	require.Contains(t, text, "unexpected status 401")

	keyless := session(t, mcpserver.Options{SigNozURL: url})
	text, isErr = call(t, keyless, "signoz_get_field_keys", map[string]any{"signal": "traces"})
	require.True(t, isErr)
	require.Contains(t, text, "no SigNoz API key")
}

func TestUnknownToolsAreRefusedAtStart(t *testing.T) {
	t.Parallel()
	_, err := mcpserver.New(mcpserver.Options{SigNozURL: "http://x", Tools: []string{"signoz_run_anything"}})
	require.ErrorContains(t, err, "not in the official catalogue")
	_, err = mcpserver.New(mcpserver.Options{SigNozURL: "http://x", Tools: []string{"signoz_create_alert"}})
	require.ErrorContains(t, err, "not implemented")
}
