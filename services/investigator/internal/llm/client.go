package llm

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"agentk/platform/wait"
	"agentk/services/investigator/internal/loop"

	openai "github.com/sashabaranov/go-openai"
)

// Errors returned by Next, each wrapped with the status or cause.
var (
	ErrRateLimited = errors.New("llm: rate limited")
	ErrTooLarge    = errors.New("llm: request too large")
	ErrServer      = errors.New("llm: server error")
	ErrTimeout     = errors.New("llm: request timed out")
	ErrMalformed   = errors.New("llm: malformed response")
	ErrRejected    = errors.New("llm: request rejected")
)

// Config configures a Client.
type Config struct {
	Provider string
	BaseURL  string
	Model    string
	// APIKey is sent as a bearer token and never logged.
	APIKey string
	// Timeout bounds one HTTP request.
	Timeout time.Duration
	// MaxAttempts bounds the requests one turn makes (default 5).
	MaxAttempts int
	// MaxRetryAfter caps how long a 429's Retry-After is honoured (default 30 s).
	MaxRetryAfter time.Duration
	// RetryBackoff is the wait after the first failed attempt, doubled after
	// each further one up to 8 s (default 500 ms).
	RetryBackoff time.Duration
	// MaxOutputTokens caps a completion (default 1024).
	MaxOutputTokens int
	Logger          *slog.Logger
	// HTTPClient defaults to a plain http.Client.
	HTTPClient *http.Client
	// Sleep waits between attempts; tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Client is a loop.Model backed by a chat-completions endpoint.
type Client struct {
	api  *openai.Client
	cfg  Config
	salt [16]byte
}

// New returns a Client for cfg.
func New(cfg Config) *Client {
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 5
	}
	if cfg.MaxRetryAfter <= 0 {
		cfg.MaxRetryAfter = 30 * time.Second
	}
	if cfg.MaxOutputTokens <= 0 {
		cfg.MaxOutputTokens = 1024
	}
	if cfg.RetryBackoff <= 0 {
		cfg.RetryBackoff = 500 * time.Millisecond
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	if cfg.Sleep == nil {
		cfg.Sleep = wait.Sleep
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = headerDoer{cfg.HTTPClient}
	c := &Client{api: openai.NewClientWithConfig(oc), cfg: cfg}
	if _, err := rand.Read(c.salt[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return c
}

// Model returns the model name requests use.
func (c *Client) Model() string { return c.cfg.Model }

// nonce delimits one investigation's data sections; it is unguessable by
// whoever wrote the telemetry.
func (c *Client) nonce(investigationID string) string {
	h := sha256.New()
	h.Write(c.salt[:])
	h.Write([]byte(investigationID))
	return hex.EncodeToString(h.Sum(nil)[:6])
}

// Next implements loop.Model.
func (c *Client) Next(ctx context.Context, s loop.State) (loop.Answer, error) {
	nonce := c.nonce(s.InvestigationID)
	maxChars, shrunk := EvidenceChars, false
	ans := loop.Answer{Model: c.cfg.Model}
	var lastErr error
	for attempt := 1; attempt <= c.cfg.MaxAttempts; attempt++ {
		msgs := messages(s, nonce, maxChars)
		req := openai.ChatCompletionRequest{Model: c.cfg.Model, Messages: msgs, Temperature: 0}
		if !s.Final {
			req.Tools = tools()
		}
		est := estimateTokens(msgs, !s.Final)
		if s.TokensLeft > 0 && est+256 > s.TokensLeft {
			if !shrunk {
				maxChars, shrunk = ShrunkEvidenceChars, true
				attempt--
				continue
			}
			return ans, fmt.Errorf("%w: about %d tokens needed, %d left", loop.ErrTokenBudget, est+256, s.TokensLeft)
		}
		// Still max_tokens on the wire, not max_completion_tokens: switching is a
		// behaviour change for the OpenAI-compatible servers this client also
		// speaks to, some of which know only max_tokens.
		req.MaxTokens = c.cfg.MaxOutputTokens //nolint:staticcheck // SA1019: see above
		if s.TokensLeft > 0 {
			req.MaxTokens = min(req.MaxTokens, s.TokensLeft-est) //nolint:staticcheck // SA1019: see above
		}
		resp, hdr, err := c.do(ctx, req)
		if err == nil {
			return c.answer(resp, est, ans)
		}
		lastErr = err
		if ctx.Err() != nil {
			return ans, ctx.Err()
		}
		wait := backoff(c.cfg.RetryBackoff, attempt)
		switch {
		case errors.Is(err, ErrTooLarge):
			if shrunk {
				return ans, err
			}
			maxChars, shrunk, wait = ShrunkEvidenceChars, true, 0
		case errors.Is(err, ErrRateLimited):
			if ra, ok := retryAfter(hdr); ok {
				wait = min(ra, c.cfg.MaxRetryAfter)
			}
		case errors.Is(err, ErrServer), errors.Is(err, ErrTimeout), errors.Is(err, ErrMalformed):
		default:
			return ans, err
		}
		if attempt == c.cfg.MaxAttempts {
			break
		}
		c.cfg.Logger.WarnContext(ctx, "llm request failed, retrying", "provider", c.cfg.Provider, "model", c.cfg.Model,
			"investigation_id", s.InvestigationID, "attempt", attempt, "wait", wait, "err", err)
		if err := c.cfg.Sleep(ctx, wait); err != nil {
			return ans, err
		}
	}
	return ans, fmt.Errorf("llm: %d attempts: %w", c.cfg.MaxAttempts, lastErr)
}

// answer maps a response to the loop's Answer.
func (c *Client) answer(resp openai.ChatCompletionResponse, est int, ans loop.Answer) (loop.Answer, error) {
	if resp.Model != "" {
		ans.Model = resp.Model
	}
	ans.TokensIn, ans.TokensOut = resp.Usage.PromptTokens, resp.Usage.CompletionTokens
	if ans.TokensIn == 0 { // a server that reports no usage still spends the budget
		ans.TokensIn = est
	}
	if len(resp.Choices) == 0 {
		return ans, fmt.Errorf("%w: no choices", ErrMalformed)
	}
	msg := resp.Choices[0].Message
	if ans.TokensOut == 0 {
		ans.TokensOut = len(msg.Content)/4 + 1
	}
	ans.Content = msg.Content
	for _, tc := range msg.ToolCalls {
		args := json.RawMessage(tc.Function.Arguments)
		if !json.Valid(args) {
			args = json.RawMessage(strconv.Quote(tc.Function.Arguments)) // the sandbox rejects it, the model reads why
		}
		ans.Calls = append(ans.Calls, loop.ToolRequest{ID: tc.ID, Tool: tc.Function.Name, Arguments: args})
	}
	return ans, nil
}

// do sends one request with the per-request timeout and classifies failures.
func (c *Client) do(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, http.Header, error) {
	hdr := &http.Header{}
	rctx, cancel := context.WithTimeout(context.WithValue(ctx, headerKey{}, hdr), c.cfg.Timeout)
	defer cancel()
	resp, err := c.api.CreateChatCompletion(rctx, req)
	if err == nil {
		return resp, *hdr, nil
	}
	if ctx.Err() != nil {
		return resp, *hdr, ctx.Err()
	}
	if rctx.Err() != nil {
		return resp, *hdr, fmt.Errorf("%w: after %s", ErrTimeout, c.cfg.Timeout)
	}
	return resp, *hdr, classify(err)
}

func classify(err error) error {
	status := 0
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		status = apiErr.HTTPStatusCode
	case errors.As(err, &reqErr):
		status = reqErr.HTTPStatusCode
	}
	switch {
	case status == http.StatusTooManyRequests:
		return fmt.Errorf("%w: status %d", ErrRateLimited, status)
	case status == http.StatusRequestEntityTooLarge:
		return fmt.Errorf("%w: status %d", ErrTooLarge, status)
	case status >= 500:
		return fmt.Errorf("%w: status %d", ErrServer, status)
	case status >= 400:
		return fmt.Errorf("%w: status %d", ErrRejected, status)
	case status == 0:
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if errors.As(err, &syn) || errors.As(err, &typ) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		return fmt.Errorf("%w: %v", ErrServer, err) // connection refused, reset
	}
	return fmt.Errorf("%w: %v", ErrMalformed, err)
}

// retryAfter reads Retry-After as seconds or as an HTTP date relative to the
// response's own Date header (so no local clock is read).
func retryAfter(h http.Header) (time.Duration, bool) {
	v := h.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
		return time.Duration(secs * float64(time.Second)), true
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	date, err := http.ParseTime(h.Get("Date"))
	if err != nil {
		return 0, false
	}
	return max(at.Sub(date), 0), true
}

func backoff(base time.Duration, attempt int) time.Duration {
	d := base << (attempt - 1)
	return min(d, 8*time.Second)
}

type headerKey struct{}

// headerDoer records the response headers go-openai does not surface on
// errors (Retry-After) into the request context's holder.
type headerDoer struct{ c *http.Client }

func (d headerDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.c.Do(req)
	if resp != nil {
		if h, ok := req.Context().Value(headerKey{}).(*http.Header); ok {
			*h = resp.Header.Clone()
		}
	}
	return resp, err
}
