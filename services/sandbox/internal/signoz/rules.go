package signoz

import (
	"context"
	"encoding/json"
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
	return RuleResult{Body: RuleBody(b)}, nil
}

// RuleBody is a rule's body as both routes hash it into evidence: SigNoz's
// envelope and its data object with their keys in order and compacted,
// without the webUrl deep link the official MCP server (v0.13.0,
// util.InjectWebURL) adds to data (to the envelope when data is not an
// object) and re-encoding both levels as it does. Without it the same rule
// read through that server hashed differently from the direct route. A body
// that is not a JSON object is returned as is.
func RuleBody(b []byte) []byte {
	var env map[string]json.RawMessage
	if err := json.Unmarshal(b, &env); err != nil || env == nil {
		return b
	}
	var data map[string]json.RawMessage
	if err := json.Unmarshal(env["data"], &data); err == nil && data != nil {
		delete(data, "webUrl")
		d, err := json.Marshal(data)
		if err != nil {
			return b
		}
		env["data"] = d
	} else {
		delete(env, "webUrl")
	}
	out, err := json.Marshal(env)
	if err != nil {
		return b
	}
	return out
}
