package mcpserver

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file answers in the official server's shapes (v0.13.0, as captured
// in fakesignoz/testdata/contract/mcp-server-results.jsonl): the payload in
// the first text block, notes as further blocks, list_services wrapped with
// pagination, errors with structuredContent.code. A client coded against
// this server then meets what it meets in production.

// upstreamError is SigNoz's refusal (a status other than 200), answered as
// the official server's upstreamError does.
type upstreamError struct {
	status int
	body   []byte
}

func (e *upstreamError) Error() string {
	return fmt.Sprintf("unexpected status %d: %s", e.status, e.message())
}

// message is SigNoz's own message from its error envelope, else the body.
func (e *upstreamError) message() string {
	var env struct {
		Error *struct {
			Code    string `json:"code"`
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(e.body, &env) == nil && env.Error != nil && env.Error.Message != "" {
		return env.Error.Message
	}
	return strings.TrimSpace(string(e.body))
}

// codeOfStatus is the official server's upstreamCodeForStatus.
func codeOfStatus(status int) string {
	switch status {
	case 400:
		return "VALIDATION_FAILED"
	case 401:
		return "UNAUTHORIZED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 409:
		return "CONFLICT"
	case 429:
		return "RATE_LIMITED"
	case 501:
		return "UNSUPPORTED"
	case 504:
		return "TIMEOUT"
	}
	return "UPSTREAM_ERROR"
}

// errorResult is an error result as the official server sends one.
func errorResult(code, text string, fields map[string]any) *mcp.CallToolResult {
	sc := map[string]any{"code": code}
	for k, v := range fields {
		sc[k] = v
	}
	return &mcp.CallToolResult{IsError: true, StructuredContent: sc, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// upstreamResult answers SigNoz's refusal: "SigNoz API error: unexpected
// status N: <SigNoz's message>", with the status and SigNoz's code, type
// and message in structuredContent.
func upstreamResult(e *upstreamError) *mcp.CallToolResult {
	fields := map[string]any{"status": e.status}
	var env struct {
		Error *struct {
			Code    string `json:"code"`
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(e.body, &env) == nil && env.Error != nil {
		for k, v := range map[string]string{"upstreamCode": env.Error.Code, "upstreamType": env.Error.Type, "upstreamMessage": env.Error.Message} {
			if v != "" {
				fields[k] = v
			}
		}
	}
	return errorResult(codeOfStatus(e.status), "SigNoz API error: "+e.Error(), fields)
}

// withNotes is the payload as the first block and each note after it.
func withNotes(payload string, notes ...string) *mcp.CallToolResult {
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: payload}}}
	for _, n := range notes {
		if strings.TrimSpace(n) != "" {
			res.Content = append(res.Content, &mcp.TextContent{Text: n})
		}
	}
	return res
}

// warningsNote is the official server's note listing SigNoz's non-fatal
// warnings (data.warning.warnings[].message); empty when there are none.
func warningsNote(body string) string {
	var resp struct {
		Data struct {
			Warning struct {
				Warnings []struct {
					Message string `json:"message"`
				} `json:"warnings"`
			} `json:"warning"`
		} `json:"data"`
	}
	if json.Unmarshal([]byte(body), &resp) != nil {
		return ""
	}
	var b strings.Builder
	for _, w := range resp.Data.Warning.Warnings {
		if strings.TrimSpace(w.Message) == "" {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("note: SigNoz backend returned non-fatal warnings:")
		}
		b.WriteString("\n- " + w.Message)
	}
	return b.String()
}

// wrapServices is list_services' answer: SigNoz's array, each service with
// its webUrl under base, paged (limit 50 unless asked), keys sorted as the
// official server re-encodes them.
func wrapServices(body, base string, limit, offset int) (string, any, error) {
	var services []any
	if err := json.Unmarshal([]byte(body), &services); err != nil {
		return "", nil, fmt.Errorf("failed to parse response: %v", err)
	}
	for _, s := range services {
		if m, ok := s.(map[string]any); ok {
			if name, _ := m["serviceName"].(string); name != "" {
				m["webUrl"] = strings.TrimRight(base, "/") + "/services/" + url.PathEscape(name)
			}
		}
	}
	total := len(services)
	page := []any{}
	if offset < total {
		page = services[offset:min(total, offset+limit)]
	}
	next := offset + limit
	if next >= total {
		next = -1
	}
	type pagination struct {
		Total      int  `json:"total"`
		Offset     int  `json:"offset"`
		Limit      int  `json:"limit"`
		HasMore    bool `json:"hasMore"`
		NextOffset int  `json:"nextOffset"`
	}
	out := struct {
		Data       []any      `json:"data"`
		Pagination pagination `json:"pagination"`
	}{page, pagination{total, offset, limit, next != -1, next}}
	b, err := json.Marshal(out)
	if err != nil {
		return "", nil, err
	}
	var structured any
	if err := json.Unmarshal(b, &structured); err != nil {
		return "", nil, err
	}
	return string(b), structured, nil
}
