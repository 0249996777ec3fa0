package signoz

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/platform/wait"
)

// Errors returned by the client. ErrUnavailable is the retryable class: the same
// query may succeed later.
var (
	ErrUnavailable = errors.New("signoz: unavailable")
	ErrAPI         = errors.New("signoz: query refused")
	ErrAuth        = errors.New("signoz: not authorised")
)

// APIError is SigNoz's error envelope, made readable.
type APIError struct {
	HTTPStatus int
	Code       string
	Message    string
	Details    []string
}

func newAPIError(status int, b *APIErrorBody) *APIError {
	e := &APIError{HTTPStatus: status}
	if b != nil {
		e.Code, e.Message = b.Code, b.Message
		for _, d := range b.Errors {
			if d.Message != "" {
				e.Details = append(e.Details, d.Message)
			}
		}
	}
	return e
}

func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("signoz: ")
	if e.HTTPStatus != 0 {
		fmt.Fprintf(&b, "HTTP %d: ", e.HTTPStatus)
	}
	if e.Code != "" {
		b.WriteString(e.Code + ": ")
	}
	if e.Message == "" {
		b.WriteString("error without message")
	} else {
		b.WriteString(e.Message)
	}
	if len(e.Details) > 0 {
		b.WriteString(" (" + strings.Join(e.Details, "; ") + ")")
	}
	return b.String()
}

// Unwrap classifies the error: unavailable for 429 and 5xx, auth for 401/403,
// otherwise a refused query.
func (e *APIError) Unwrap() error {
	switch {
	case e.HTTPStatus == http.StatusTooManyRequests || e.HTTPStatus >= 500:
		return ErrUnavailable
	case e.HTTPStatus == http.StatusUnauthorized || e.HTTPStatus == http.StatusForbidden:
		return ErrAuth
	}
	return ErrAPI
}

// Auth modes.
const (
	AuthHeader = "header"
	AuthBearer = "bearer"
)

// Client calls SigNoz's query API.
type Client struct {
	BaseURL string
	APIKey  string
	// Auth is AuthHeader (SIGNOZ-API-KEY) or AuthBearer (Authorization: Bearer).
	Auth string
	HTTP *http.Client
	// Attempts is the number of tries for a retryable failure (default 3).
	Attempts int
	// Backoff is the first wait between tries, doubled each time (default 500 ms);
	// a Retry-After header overrides it, capped at MaxBackoff.
	Backoff    time.Duration
	MaxBackoff time.Duration
	// Wait waits d or until ctx is done; tests replace it.
	Wait func(ctx context.Context, d time.Duration) error
	// MaxBody caps the response size (default 16 MiB).
	MaxBody int64
}

// Result is one answered query: the raw body (hashed into evidence) and its
// decoded form.
type Result struct {
	Body     []byte
	Response Response
	// Notes are what the route said about the answer beyond its data (an
	// MCP server's notes); the direct route has none.
	Notes []contracts.SourceNote
}

// QueryRange posts req to /api/v5/query_range, retrying 429, 5xx and
// transport failures with exponential backoff. It returns ErrUnavailable,
// ErrAuth or ErrAPI (as *APIError where SigNoz said why), or ErrDecode.
func (c *Client) QueryRange(ctx context.Context, req QueryRangeRequest) (Result, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Result{}, fmt.Errorf("signoz: encode request: %w", err)
	}
	attempts := c.Attempts
	if attempts <= 0 {
		attempts = 3
	}
	backoff := c.Backoff
	if backoff <= 0 {
		backoff = 500 * time.Millisecond
	}
	maxBackoff := c.MaxBackoff
	if maxBackoff <= 0 {
		maxBackoff = 10 * time.Second
	}
	var lastErr error
	for try := 1; ; try++ {
		res, retryAfter, err := c.once(ctx, body)
		if err == nil {
			return res, nil
		}
		lastErr = err
		if !errors.Is(err, ErrUnavailable) || try >= attempts || ctx.Err() != nil {
			break
		}
		d := backoff << (try - 1)
		if retryAfter > 0 {
			d = retryAfter
		}
		d = min(d, maxBackoff)
		if werr := c.wait(ctx, d); werr != nil {
			break
		}
	}
	return Result{}, lastErr
}

func (c *Client) wait(ctx context.Context, d time.Duration) error {
	if c.Wait != nil {
		return c.Wait(ctx, d)
	}
	return wait.Sleep(ctx, d)
}

// readBody reads a response body of at most MaxBody bytes (default 16 MiB):
// a body that fails to arrive is ErrUnavailable (retryable), one larger than
// the limit ErrDecode.
func (c *Client) readBody(resp *http.Response) ([]byte, error) {
	maxBody := c.MaxBody
	if maxBody <= 0 {
		maxBody = 16 << 20
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("%w: read body: %v", ErrUnavailable, err)
	}
	if int64(len(b)) > maxBody {
		return nil, fmt.Errorf("%w: response larger than %d bytes", ErrDecode, maxBody)
	}
	return b, nil
}

func (c *Client) once(ctx context.Context, body []byte) (Result, time.Duration, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(c.BaseURL, "/")+"/api/v5/query_range", bytes.NewReader(body))
	if err != nil {
		return Result{}, 0, fmt.Errorf("signoz: build request: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	resp, err := c.send(hreq)
	if err != nil {
		// The URL is ours; the error never carries the key (it is a header).
		return Result{}, 0, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	defer resp.Body.Close()
	b, err := c.readBody(resp)
	if err != nil {
		return Result{}, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return Result{}, retryAfter(resp.Header.Get("Retry-After")), refusal(resp.StatusCode, b)
	}
	r, err := Decode(b)
	if err != nil {
		var apiErr *APIError
		if errors.As(err, &apiErr) {
			apiErr.HTTPStatus = resp.StatusCode
		}
		return Result{}, 0, err
	}
	return Result{Body: b, Response: r}, 0, nil
}

// refusal is the error of a response that is not 200: SigNoz's error
// envelope in body, made readable, or the status text when it has none.
func refusal(status int, body []byte) *APIError {
	var env Envelope
	_ = json.Unmarshal(body, &env)
	apiErr := newAPIError(status, env.Error)
	if apiErr.Message == "" {
		apiErr.Message = http.StatusText(status)
	}
	return apiErr
}

func retryAfter(v string) time.Duration {
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	return 0
}

// send authenticates req with the API key, the way c.Auth says SigNoz
// wants it, and sends it on c.HTTP (http.DefaultClient when nil). Every
// request of the client goes through it.
func (c *Client) send(req *http.Request) (*http.Response, error) {
	if c.Auth == AuthBearer {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	} else {
		req.Header.Set("SIGNOZ-API-KEY", c.APIKey)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	return hc.Do(req)
}
