package mcpbackend_test

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"agentk/services/sandbox/internal/mcpbackend"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzDecode feeds tool results from outside (an MCP server's answer) to
// the decoder: it never panics, and a success's payload is its first text
// block, whatever follows. Seeds: every captured result of the official server.
func FuzzDecode(f *testing.F) {
	if file, err := os.Open(capturesFile); err == nil {
		sc := bufio.NewScanner(file)
		sc.Buffer(make([]byte, 0, 1<<20), 8<<20)
		for sc.Scan() {
			var c struct {
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal(sc.Bytes(), &c) == nil && c.Result != nil {
				f.Add([]byte(c.Result))
			}
		}
		_ = file.Close()
	}
	f.Add([]byte(`{"content":[{"type":"text","text":"{}"},{"type":"text","text":"note: returned 1 rows (limit 1) — more results likely exist (hasMore=true)."}]}`))
	f.Add([]byte(`{"content":[],"isError":true,"structuredContent":{"code":"RATE_LIMITED","status":429,"upstreamRetry":{"delay":-5}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var res mcp.CallToolResult
		if json.Unmarshal(b, &res) != nil {
			return
		}
		reply, err := mcpbackend.Decode("signoz_execute_builder_query", &res)
		if err != nil || res.IsError {
			return
		}
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				if string(reply.Payload) != tc.Text {
					t.Fatalf("payload %q is not the first text block %q", reply.Payload, tc.Text)
				}
				break
			}
		}
		for _, n := range reply.Notes {
			if len(n.Text) > mcpbackend.MaxNoteText+len("…") {
				t.Fatalf("note of %d bytes, over the cap", len(n.Text))
			}
		}
	})
}
