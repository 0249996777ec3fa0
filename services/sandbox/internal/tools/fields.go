package tools

import (
	"encoding/json"
	"strconv"
	"time"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// Where SigNoz puts attributes in raw rows, depending on version and on
// whether fields were selected: flat keys first, then the typed maps.
var attrMaps = []string{"attributes_string", "attributes_number", "attributes_bool", "attributes", "span_attributes", "tag_attributes"}
var resourceMaps = []string{"resources_string", "resource", "resources"}

// resourceValue reads a resource attribute. Flat keys are what SigNoz returns
// for selected resource fields; span attribute maps are never consulted, so a
// span attribute cannot pose as the resource.
func resourceValue(d map[string]any, key string) string {
	if s, ok := d[key].(string); ok {
		return s
	}
	for _, m := range resourceMaps {
		if mm, ok := d[m].(map[string]any); ok {
			if s, ok := mm[key].(string); ok {
				return s
			}
		}
	}
	if key == "service.name" {
		if s, ok := d["serviceName"].(string); ok {
			return s
		}
	}
	return ""
}

// attrValue reads a span or log column or attribute.
func attrValue(d map[string]any, key string) any {
	if v, ok := d[key]; ok && v != nil {
		return v
	}
	for _, m := range attrMaps {
		if mm, ok := d[m].(map[string]any); ok {
			if v, ok := mm[key]; ok && v != nil {
				return v
			}
		}
	}
	return nil
}

func attrString(d map[string]any, key string) string {
	switch v := attrValue(d, key).(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

// rowTime is the row's timestamp: the row's own, else its data column (RFC
// 3339 or Unix nanoseconds).
func rowTime(r signoz.RawRow) time.Time {
	if !r.Timestamp.IsZero() {
		return r.Timestamp.UTC()
	}
	switch v := r.Data["timestamp"].(type) {
	case string:
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			return t.UTC()
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return time.Unix(0, n).UTC()
		}
	case float64:
		return time.Unix(0, int64(v)).UTC()
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return time.Unix(0, n).UTC()
		}
	}
	return time.Time{}
}

// ms converts nanoseconds to milliseconds, rounded to 3 significant decimals.
func ms(nanos float64) float64 { return round(nanos / 1e6) }

// round rounds to 3 decimals (facts.Round).
func round(f float64) float64 { return facts.Round(f) }

func num(v any) (float64, bool) { return signoz.ToFloat(v) }
