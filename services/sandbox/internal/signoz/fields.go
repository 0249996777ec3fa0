package signoz

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// FieldValues are the values of one key (TelemetrytypesTelemetryFieldValues).
type FieldValues struct {
	StringValues []string  `json:"stringValues"`
	NumberValues []float64 `json:"numberValues"`
	BoolValues   []bool    `json:"boolValues"`
}

// Fields is the data of GET /api/v1/fields/keys or /api/v1/fields/values.
type Fields struct {
	Keys     map[string][]FieldKey `json:"keys"`
	Values   FieldValues           `json:"values"`
	Complete bool                  `json:"complete"`
}

// FieldsResult is one answered field query: the raw body (hashed into
// evidence) and its decoded form.
type FieldsResult struct {
	Body   []byte
	Fields Fields
}

// DecodeFields decodes SigNoz's envelope around field keys or values.
func DecodeFields(b []byte) (Fields, error) {
	var env Envelope
	if err := json.Unmarshal(b, &env); err != nil {
		return Fields{}, fmt.Errorf("%w: %v", ErrDecode, err)
	}
	if env.Status != "success" {
		return Fields{}, newAPIError(0, env.Error)
	}
	var f Fields
	if err := json.Unmarshal(env.Data, &f); err != nil {
		return Fields{}, fmt.Errorf("%w: field data: %v", ErrDecode, err)
	}
	return f, nil
}

// FieldKeys asks GET /api/v1/fields/keys for the keys of signal (optionally
// containing search).
func (c *Client) FieldKeys(ctx context.Context, signal, search string) (FieldsResult, error) {
	q := url.Values{"signal": {signal}}
	if search != "" {
		q.Set("searchText", search)
	}
	return c.fields(ctx, "/api/v1/fields/keys", q)
}

// FieldValues asks GET /api/v1/fields/values for the values of key name.
func (c *Client) FieldValues(ctx context.Context, signal, name, search string) (FieldsResult, error) {
	q := url.Values{"signal": {signal}, "name": {name}}
	if search != "" {
		q.Set("searchText", search)
	}
	return c.fields(ctx, "/api/v1/fields/values", q)
}

func (c *Client) fields(ctx context.Context, path string, q url.Values) (FieldsResult, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(c.BaseURL, "/")+path+"?"+q.Encode(), nil)
	if err != nil {
		return FieldsResult{}, fmt.Errorf("signoz: build request: %w", err)
	}
	hreq.Header.Set("Accept", "application/json")
	resp, err := c.send(hreq)
	if err != nil {
		return FieldsResult{}, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	defer resp.Body.Close()
	b, err := c.readBody(resp)
	if err != nil {
		return FieldsResult{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return FieldsResult{}, refusal(resp.StatusCode, b)
	}
	f, err := DecodeFields(b)
	if err != nil {
		return FieldsResult{}, err
	}
	return FieldsResult{Body: b, Fields: f}, nil
}
