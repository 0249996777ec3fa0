package facts_test

import (
	"encoding/json"
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// TestRowReaders: a raw row's attributes as SigNoz versions put them (flat
// keys first, then the typed maps), its resources (never a span attribute
// posing as one) and its timestamp in each form it comes in.
func TestRowReaders(t *testing.T) {
	t.Parallel()
	d := map[string]any{
		"name":              "GET /pay",
		"attributes_string": map[string]any{"name": "shadowed", "app.plan": "pro"},
		"attributes_number": map[string]any{"app.score": 0.25},
		"attributes_bool":   map[string]any{"app.cached": true},
		"tag_attributes":    map[string]any{"service.version": "span-says-v9"},
		"resources_string":  map[string]any{"service.version": "v2"},
		"serviceName":       "payments",
	}
	attrs := []struct {
		key  string
		want any
		str  string
	}{
		{"name", "GET /pay", "GET /pay"},
		{"app.plan", "pro", "pro"},
		{"app.score", 0.25, "0.25"},
		{"app.cached", true, "true"},
		{"app.missing", nil, ""},
	}
	for _, a := range attrs {
		require.Equal(t, a.want, facts.AttrValue(d, a.key), a.key)
		require.Equal(t, a.str, facts.AttrString(d, a.key), a.key)
	}
	require.Equal(t, "v2", facts.ResourceValue(d, "service.version"))
	require.Equal(t, "payments", facts.ResourceValue(d, "service.name"), "the old serviceName column")
	require.Empty(t, facts.ResourceValue(map[string]any{"attributes_string": map[string]any{"service.version": "v9"}}, "service.version"),
		"a span attribute is no resource")

	at := time.Date(2026, 11, 20, 12, 0, 1, 500, time.UTC)
	nanos := at.UnixNano()
	times := []struct {
		name string
		row  signoz.RawRow
		want time.Time
	}{
		{"the row's own", signoz.RawRow{Timestamp: at.In(time.FixedZone("x", 3600))}, at},
		{"RFC 3339", signoz.RawRow{Data: map[string]any{"timestamp": at.Format(time.RFC3339Nano)}}, at},
		{"nanoseconds as text", signoz.RawRow{Data: map[string]any{"timestamp": itoa(nanos)}}, at},
		{"a JSON number", signoz.RawRow{Data: map[string]any{"timestamp": json.Number(itoa(nanos))}}, at},
		{"nanoseconds as a float", signoz.RawRow{Data: map[string]any{"timestamp": float64(at.Truncate(time.Second).UnixNano())}}, at.Truncate(time.Second)},
		{"none", signoz.RawRow{Data: map[string]any{"timestamp": "yesterday"}}, time.Time{}},
	}
	for _, c := range times {
		require.Equal(t, c.want, facts.RowTime(c.row), c.name)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }
