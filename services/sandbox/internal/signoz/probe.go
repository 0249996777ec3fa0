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
)

// Probe asks SigNoz one cheap authenticated question (POST /api/v1/services
// over the minute before now) and returns nil when SigNoz answered with the
// key accepted, ErrAuth when it refused the key, ErrUnavailable when it
// could not be reached or failed. Any other refusal of the question itself
// (ErrAPI) means SigNoz answered and took the key, so it is nil: readiness is
// about reaching SigNoz with the key, not about that endpoint. Never retried.
func (c *Client) Probe(ctx context.Context, now time.Time) error {
	body, _ := json.Marshal(map[string]any{
		"start": strconv.FormatInt(now.Add(-time.Minute).UnixNano(), 10),
		"end":   strconv.FormatInt(now.UnixNano(), 10),
		"tags":  []any{},
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(c.BaseURL, "/")+"/api/v1/services", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%w: probe: %v", ErrUnavailable, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.send(req)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	var env Envelope
	_ = json.Unmarshal(b, &env)
	apiErr := newAPIError(resp.StatusCode, env.Error)
	if apiErr.Message == "" {
		apiErr.Message = http.StatusText(resp.StatusCode)
	}
	if errors.Is(apiErr, ErrAPI) {
		return nil
	}
	return apiErr
}
