package signoz

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// RuleResult is one alert rule as SigNoz answered GET /api/v2/rules/{id}:
// the raw body (hashed into evidence), SigNoz's envelope around the rule
// (RuletypesRule). The sandbox's core decodes the rule itself.
type RuleResult struct {
	Body []byte
}

// Rule asks GET /api/v2/rules/{id} for the alert rule id (VIEWER: the
// read-only key may). A rule SigNoz does not have is an *APIError wrapping
// ErrAPI with HTTPStatus 404.
func (c *Client) Rule(ctx context.Context, id string) (RuleResult, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(c.BaseURL, "/")+"/api/v2/rules/"+url.PathEscape(id), nil)
	if err != nil {
		return RuleResult{}, fmt.Errorf("signoz: build request: %w", err)
	}
	hreq.Header.Set("Accept", "application/json")
	resp, err := c.send(hreq)
	if err != nil {
		return RuleResult{}, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	defer resp.Body.Close()
	b, err := c.readBody(resp)
	if err != nil {
		return RuleResult{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return RuleResult{}, refusal(resp.StatusCode, b)
	}
	return RuleResult{Body: b}, nil
}
