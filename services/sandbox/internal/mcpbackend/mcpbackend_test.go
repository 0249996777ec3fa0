package mcpbackend_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"agentk/contracts/incident"
	"agentk/services/sandbox/fakesignoz"
	"agentk/services/sandbox/fakesignoz/mcpserver"
	"agentk/services/sandbox/internal/mcpbackend"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

const key = "ro-key"

var corpus = filepath.Join("..", "..", "..", "..", "e2e", "incidents")

func loadIncident(t testing.TB, id string) *incident.Incident {
	t.Helper()
	inc, err := incident.Load(filepath.Join(corpus, id))
	require.NoError(t, err)
	return inc
}

// fakeSigNoz serves inc through SigNoz's HTTP API.
func fakeSigNoz(t testing.TB, inc *incident.Incident) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(fakesignoz.New(inc, fakesignoz.Options{APIKey: key}))
	// A parallel subtest's *testing.T, and the cleanups it ran, live until
	// its parent ends: the cleanup lets go of the handler (the incident's
	// telemetry) once the server is closed, or one parent's subtests over
	// every corpus incident hold them all (22 GB, OOM-killed in CI).
	t.Cleanup(func() {
		ts.Close()
		ts.Config.Handler = nil
	})
	return ts
}

// httpBackend is the MCP route over streamable HTTP: our MCP server, which
// takes the key from each request, in front of sig.
func httpBackend(t testing.TB, sig *httptest.Server, tools []string) *mcpbackend.Client {
	t.Helper()
	srv, err := mcpserver.New(mcpserver.Options{SigNozURL: sig.URL, Tools: tools})
	require.NoError(t, err)
	ts := httptest.NewServer(mcpserver.HTTPHandler(srv))
	t.Cleanup(ts.Close)
	c, err := mcpbackend.New(mcpbackend.Config{URL: ts.URL, SigNozURL: sig.URL, APIKey: key, Auth: signoz.AuthHeader, Timeout: 20 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// stdioBackend is the MCP route over stdio: the fakesignoz-mcp binary as a
// subprocess, handed SIGNOZ_URL and SIGNOZ_API_KEY by the client.
func stdioBackend(t testing.TB, sig *httptest.Server) *mcpbackend.Client {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fakesignoz-mcp-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "fakesignoz-mcp")
		out, err := exec.Command("go", "build", "-o", binPath, "agentk/services/sandbox/cmd/fakesignoz-mcp").CombinedOutput()
		if err != nil {
			buildErr = err
			binPath = string(out)
		}
	})
	require.NoError(t, buildErr, binPath)
	c, err := mcpbackend.New(mcpbackend.Config{Command: binPath, SigNozURL: sig.URL, APIKey: key, Timeout: 20 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func markerQuery(inc *incident.Incident) signoz.QueryRangeRequest {
	return signoz.NewRequest(signoz.RequestRaw, inc.Meta.Now.Add(-2*time.Hour).UnixMilli(), inc.Meta.Now.UnixMilli(), signoz.BuilderQuery{
		Name: "A", Signal: signoz.SignalTraces, Limit: 50,
		Filter: signoz.Filter{Expression: "service.name = '" + inc.Meta.Service + "' AND name = 'deployment.marker'"},
		Order:  []signoz.OrderBy{{Key: signoz.OrderKey{Name: "timestamp"}, Direction: "asc"}},
	})
}

func TestQueryRangeOverMCPEqualsTheDirectAnswer(t *testing.T) {
	t.Parallel()
	inc := loadIncident(t, "bad-release-01")
	sig := fakeSigNoz(t, inc)
	direct := &signoz.Client{BaseURL: sig.URL, APIKey: key, HTTP: sig.Client()}
	want, err := direct.QueryRange(context.Background(), markerQuery(inc))
	require.NoError(t, err)
	require.NotEmpty(t, want.Response.Data.Results)
	for name, c := range map[string]*mcpbackend.Client{"http": httpBackend(t, sig, nil), "stdio": stdioBackend(t, sig)} {
		t.Run(name, func(t *testing.T) {
			got, err := c.QueryRange(context.Background(), markerQuery(inc))
			require.NoError(t, err)
			require.Equal(t, string(want.Body), string(got.Body), "the MCP server returns SigNoz's body as the tool's text")
			require.Equal(t, want.Response, got.Response)
		})
	}
}

func TestCallRefusesToolsOutsideTheAllowlist(t *testing.T) {
	t.Parallel()
	sig := fakeSigNoz(t, loadIncident(t, "bad-release-01"))
	c := httpBackend(t, sig, nil)
	for _, tool := range []string{"signoz_list_services", "signoz_create_alert", "signoz_delete_dashboard"} {
		_, err := c.Call(context.Background(), tool, map[string]any{})
		require.ErrorIs(t, err, mcpbackend.ErrNotAllowed, tool)
	}
}

func TestArgumentsAreCheckedAgainstTheServersSchema(t *testing.T) {
	t.Parallel()
	sig := fakeSigNoz(t, loadIncident(t, "bad-release-01"))
	c := httpBackend(t, sig, nil)
	_, err := c.Call(context.Background(), mcpbackend.ToolFieldKeys, map[string]any{"signal": "profiles"})
	require.ErrorIs(t, err, mcpbackend.ErrArguments)
	_, err = c.Call(context.Background(), mcpbackend.ToolFieldValues, map[string]any{"signal": "traces"})
	require.ErrorIs(t, err, mcpbackend.ErrArguments, "name is required by the schema")
	reply, err := c.Call(context.Background(), mcpbackend.ToolFieldValues, map[string]any{"signal": "traces", "name": "service.name"})
	require.NoError(t, err)
	require.Contains(t, string(reply.Payload), `"stringValues"`)
}

func TestAServerWithoutTheQueryToolIsRefused(t *testing.T) {
	t.Parallel()
	inc := loadIncident(t, "bad-release-01")
	c := httpBackend(t, fakeSigNoz(t, inc), []string{mcpbackend.ToolFieldKeys})
	_, err := c.QueryRange(context.Background(), markerQuery(inc))
	require.ErrorIs(t, err, mcpbackend.ErrCatalogue)
}

func TestToolErrorsKeepSigNozsWordsAndClass(t *testing.T) {
	t.Parallel()
	inc := loadIncident(t, "bad-release-01")
	c := httpBackend(t, fakeSigNoz(t, inc), nil)
	q := markerQuery(inc)
	q.CompositeQuery.Queries[0].Spec.Filter.Expression = "name = "
	_, err := c.QueryRange(context.Background(), q)
	var apiErr *signoz.APIError
	require.ErrorAs(t, err, &apiErr)
	require.ErrorIs(t, err, signoz.ErrAPI)
	require.NotErrorIs(t, err, signoz.ErrUnavailable)
	require.Contains(t, apiErr.Message, "invalid filter expression")
	require.Equal(t, 400, apiErr.HTTPStatus)
}

func TestAnUnreachableServerIsRetryable(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(nil)
	ts.Close()
	c, err := mcpbackend.New(mcpbackend.Config{URL: ts.URL + "/mcp", APIKey: key, Timeout: 5 * time.Second})
	require.NoError(t, err)
	_, err = c.QueryRange(context.Background(), signoz.QueryRangeRequest{})
	require.ErrorIs(t, err, signoz.ErrUnavailable)
}

func TestConfigIsChecked(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  mcpbackend.Config
	}{
		{"neither", mcpbackend.Config{APIKey: key}},
		{"both", mcpbackend.Config{Command: "x", URL: "http://h/mcp", APIKey: key}},
		{"no key", mcpbackend.Config{URL: "http://h/mcp"}},
		{"bad url", mcpbackend.Config{URL: "ftp://h/mcp", APIKey: key}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := mcpbackend.New(tt.cfg)
			require.ErrorIs(t, err, mcpbackend.ErrConfig)
		})
	}
}

// The served tools are the official catalogue's, schema for schema.
func TestOurServerPublishesTheOfficialSchemas(t *testing.T) {
	t.Parallel()
	cat, err := mcpserver.Catalogue()
	require.NoError(t, err)
	raw, err := os.ReadFile(filepath.Join("..", "..", "fakesignoz", "mcpserver", "tools.json"))
	require.NoError(t, err)
	var file struct {
		Tools []json.RawMessage `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(raw, &file))
	require.Len(t, cat, len(file.Tools))
	names := map[string]bool{}
	for _, tool := range cat {
		names[tool.Name] = true
	}
	for _, a := range mcpbackend.Allowlist {
		require.True(t, names[a], "%s is a real tool name", a)
	}
}
