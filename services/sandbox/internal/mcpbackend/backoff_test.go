package mcpbackend_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"agentk/services/sandbox/fakesignoz/mcpserver"
	"agentk/services/sandbox/internal/mcpbackend"
	"agentk/services/sandbox/internal/signoz"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// waits records the backoff the client asked for, without waiting.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) wait(_ context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.d = append(w.d, d)
	return nil
}

func (w *waits) got() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

// rateLimitedServer serves signoz_get_field_keys; its first limited calls
// answer as the official server does when SigNoz said 429
// (RATE_LIMITED, status 429, upstreamRetry in nanoseconds when delay > 0).
func rateLimitedServer(t *testing.T, limited int32, delay time.Duration, wrap func(http.Handler) http.Handler) (string, *atomic.Int32) {
	t.Helper()
	cat, err := mcpserver.Catalogue()
	require.NoError(t, err)
	var calls atomic.Int32
	srv := mcp.NewServer(&mcp.Implementation{Name: "limited", Version: "v0.13.0"}, nil)
	for _, tool := range cat {
		if tool.Name != mcpbackend.ToolFieldKeys && tool.Name != mcpbackend.ToolQuery {
			continue
		}
		srv.AddTool(&mcp.Tool{Name: tool.Name, Annotations: tool.Annotations, InputSchema: tool.InputSchema},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if calls.Add(1) <= limited {
					sc := map[string]any{"code": "RATE_LIMITED", "status": 429}
					if delay > 0 {
						sc["upstreamRetry"] = map[string]any{"delay": delay.Nanoseconds()}
					}
					return &mcp.CallToolResult{IsError: true, StructuredContent: sc,
						Content: []mcp.Content{&mcp.TextContent{Text: "SigNoz API error: unexpected status 429: too many requests"}}}, nil
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"status":"success","data":{"keys":{},"complete":true}}`}}}, nil
			})
	}
	var h http.Handler = mcpserver.HTTPHandler(srv)
	if wrap != nil {
		h = wrap(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL, &calls
}

func limitedClient(t *testing.T, url string, w *waits) *mcpbackend.Client {
	t.Helper()
	c, err := mcpbackend.New(mcpbackend.Config{URL: url, APIKey: key, Timeout: 10 * time.Second,
		Attempts: 3, Backoff: 100 * time.Millisecond, MaxBackoff: 5 * time.Second, Wait: w.wait})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestRateLimitedToolCallsBackOff: a tool result saying SigNoz answered
// 429 is tried again, after SigNoz's own retry delay when the server passes
// it on (capped at MaxBackoff), else after a doubling backoff; after
// Attempts tries the call fails as retryable.
func TestRateLimitedToolCallsBackOff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		limited   int32
		delay     time.Duration
		wantWaits []time.Duration
		wantErr   bool
	}{
		{"backoff doubles", 2, 0, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, false},
		{"signoz's delay honoured", 1, 2 * time.Second, []time.Duration{2 * time.Second}, false},
		{"delay capped", 1, time.Hour, []time.Duration{5 * time.Second}, false},
		{"attempts bounded", 10, 0, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url, calls := rateLimitedServer(t, tt.limited, tt.delay, nil)
			w := &waits{}
			c := limitedClient(t, url, w)
			_, err := c.FieldKeys(context.Background(), "traces", "")
			require.Equal(t, tt.wantWaits, w.got())
			if tt.wantErr {
				require.ErrorIs(t, err, signoz.ErrUnavailable, "a 429 stays retryable for the caller")
				require.Equal(t, int32(3), calls.Load(), "never more than Attempts tries")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.limited+1, calls.Load())
		})
	}
}

// TestHTTP429FromTheServerHonoursRetryAfter: an MCP server (or a proxy in
// front of it) that refuses a request with HTTP 429 gets it again after its
// Retry-After, never longer than MaxBackoff, at most Attempts times.
func TestHTTP429FromTheServerHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		retryAfter string
		refusals   int32
		wantWaits  []time.Duration
		wantErr    bool
	}{
		{"retry-after seconds", "2", 1, []time.Duration{2 * time.Second}, false},
		{"retry-after capped", "3600", 1, []time.Duration{5 * time.Second}, false},
		{"no retry-after: backoff", "", 2, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, false},
		{"attempts bounded", "1", 100, []time.Duration{time.Second, time.Second}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var refused atomic.Int32
			url, _ := rateLimitedServer(t, 0, 0, func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodPost && refused.Add(1) <= tt.refusals {
						if tt.retryAfter != "" {
							rw.Header().Set("Retry-After", tt.retryAfter)
						}
						http.Error(rw, "slow down", http.StatusTooManyRequests)
						return
					}
					next.ServeHTTP(rw, r)
				})
			})
			w := &waits{}
			c := limitedClient(t, url, w)
			_, err := c.FieldKeys(context.Background(), "traces", "")
			if tt.wantErr {
				require.ErrorIs(t, err, signoz.ErrUnavailable)
				require.Equal(t, tt.wantWaits, w.got()[:2], "the first request's tries")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.wantWaits, w.got())
		})
	}
}
