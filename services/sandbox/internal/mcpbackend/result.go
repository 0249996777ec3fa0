package mcpbackend

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Reply is one successful tool result, decoded the way the official server
// (v0.13.0) answers: the first text block is the payload (JSON), every
// further text block a prose note about it
// (../shared/signoz/README.md, testdata/contract/mcp-server-results.jsonl).
type Reply struct {
	// Payload is the first text block, as sent.
	Payload []byte
	// Notes are the further blocks, in order, each classified.
	Notes []contracts.SourceNote
}

// MaxNoteText caps one note's text in the evidence: a warnings note lists
// one line per missing key and signoz_search_traces asks for 48 of them.
const MaxNoteText = 2000

// ErrResult is a success result without a payload to decode.
var ErrResult = errors.New("mcpbackend: the tool's result has no text payload")

// Decode reads a tool's result: an error result is an *signoz.APIError
// (classified by its structuredContent), a success is its payload and notes.
// Only the first text block is the payload: the official server appends
// notes as further blocks, and joined to the JSON they make it unreadable.
func Decode(tool string, res *mcp.CallToolResult) (Reply, error) {
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	if res.IsError {
		return Reply{}, toolError(tool, strings.Join(texts, "\n"), res.StructuredContent)
	}
	if len(texts) == 0 {
		return Reply{}, fmt.Errorf("%w: %s", ErrResult, tool)
	}
	if mutant.Off(mutant.SandboxMCPFirstBlock) {
		return Reply{Payload: []byte(strings.Join(texts, ""))}, nil
	}
	r := Reply{Payload: []byte(texts[0])}
	for _, t := range texts[1:] {
		if strings.TrimSpace(t) == "" {
			continue
		}
		r.Notes = append(r.Notes, ClassifyNote(t))
	}
	return r, nil
}

// ClassifyNote names what one of the server's notes says; the text is kept
// (capped at MaxNoteText).
func ClassifyNote(text string) contracts.SourceNote {
	n := contracts.SourceNote{Kind: contracts.NoteOther, Text: capText(strings.TrimSpace(text), MaxNoteText)}
	switch t := strings.TrimSpace(text); {
	case strings.HasPrefix(t, "[Decisions applied]"):
		n.Kind = contracts.NoteDecisionsApplied
	case strings.HasPrefix(t, "note: returned ") && strings.Contains(t, "hasMore=true"):
		n.Kind = contracts.NoteRowsCut
	case strings.HasPrefix(t, "note: returned ") && strings.Contains(t, "hasMore=false"):
		n.Kind = contracts.NoteAllRows
	case strings.HasPrefix(t, "note: SigNoz backend returned non-fatal warnings"):
		n.Kind = contracts.NoteBackendWarnings
	case strings.HasPrefix(t, "Input validation notice:"):
		n.Kind = contracts.NoteInputNotice
	}
	return n
}

func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// failure is the structuredContent of the official server's error results.
type failure struct {
	Code            string   `json:"code"`
	Status          int      `json:"status"`
	UpstreamCode    string   `json:"upstreamCode"`
	UpstreamMessage string   `json:"upstreamMessage"`
	MissingKeys     []string `json:"missingKeys"`
	UpstreamRetry   *struct {
		Delay int64 `json:"delay"` // nanoseconds
	} `json:"upstreamRetry"`
}

// statusOfCode is the HTTP status an error code of the official server
// stands for when the result gives none (its own checks, a SigNoz that did
// not answer).
var statusOfCode = map[string]int{
	"VALIDATION_FAILED": http.StatusBadRequest,
	"UNAUTHORIZED":      http.StatusUnauthorized,
	"PERMISSION_DENIED": http.StatusForbidden,
	"NOT_FOUND":         http.StatusNotFound,
	"CONFLICT":          http.StatusConflict,
	"RATE_LIMITED":      http.StatusTooManyRequests,
	"UNSUPPORTED":       http.StatusNotImplemented,
	"TIMEOUT":           http.StatusGatewayTimeout,
	"UPSTREAM_ERROR":    http.StatusBadGateway,
	"INTERNAL_ERROR":    http.StatusInternalServerError,
}

var statusInText = regexp.MustCompile(`(?i)(?:status(?: code)?|HTTP)[ :=]*([1-5][0-9]{2})\b`)

// ToolError is a failed tool call: SigNoz's or the server's refusal, kept
// with the class its status gives (429 and 5xx retryable, 401/403 auth,
// the rest a refused query), and the wait the server asked for, if any.
type ToolError struct {
	*signoz.APIError
	// RetryAfter is SigNoz's own retry delay, passed on by the server
	// (structuredContent.upstreamRetry); zero when none was given.
	RetryAfter time.Duration
}

// Unwrap gives the APIError, and through it the class.
func (e *ToolError) Unwrap() error { return e.APIError }

// toolError turns an error result into a *ToolError: the code and status
// from structuredContent (the official server sets both), else a status
// quoted in the text, else SigNoz's own error envelope passed through.
func toolError(name, text string, structured any) error {
	e := &signoz.APIError{Code: "mcp_tool_error", Message: fmt.Sprintf("%s: %s", name, strings.TrimSpace(text))}
	te := &ToolError{APIError: e}
	var f failure
	if structured != nil {
		if b, err := json.Marshal(structured); err == nil {
			_ = json.Unmarshal(b, &f)
		}
	}
	switch {
	case f.Code != "":
		e.Code, e.HTTPStatus = f.Code, f.Status
		if e.HTTPStatus == 0 {
			e.HTTPStatus = statusOfCode[f.Code]
		}
		if len(f.MissingKeys) > 0 {
			e.Details = append(e.Details, "keys missing from SigNoz's metadata: "+strings.Join(f.MissingKeys, ", "))
		}
		if f.UpstreamRetry != nil && f.UpstreamRetry.Delay > 0 {
			te.RetryAfter = time.Duration(f.UpstreamRetry.Delay)
		}
	default:
		if m := statusInText.FindStringSubmatch(text); m != nil {
			e.HTTPStatus, _ = strconv.Atoi(m[1])
		}
		// SigNoz's own error envelope, when a server passes it through.
		if i := strings.Index(text, `{"status":"error"`); i >= 0 {
			var env signoz.Envelope
			if json.NewDecoder(strings.NewReader(text[i:])).Decode(&env) == nil && env.Error != nil {
				e.Code, e.Message = env.Error.Code, name+": "+env.Error.Message
			}
		}
	}
	e.Message = capText(e.Message, MaxNoteText)
	return te
}

// rpcError classifies an error of CallTool: a JSON-RPC error about the call
// itself (an unknown tool, bad params) is the server's answer, an
// *signoz.APIError; anything else (nil returned) broke the session.
func rpcError(name string, err error) error {
	var we *jsonrpc.Error
	if errors.As(err, &we) && (we.Code == jsonrpc.CodeInvalidParams || we.Code == jsonrpc.CodeMethodNotFound) {
		return &signoz.APIError{Code: "mcp_invalid_params", Message: fmt.Sprintf("%s: JSON-RPC %d: %s", name, we.Code, we.Message)}
	}
	if strings.Contains(err.Error(), "invalid params") {
		return &signoz.APIError{Code: "mcp_invalid_params", Message: err.Error()}
	}
	return nil
}
