package facts

import (
	"encoding/json"
	"strconv"
	"time"

	"agentk/services/sandbox/internal/signoz"
)

// The readers of raw rows. AttrMaps and resourceMaps are where SigNoz puts
// attributes in raw rows, depending on version and on whether fields were
// selected: flat keys first, then the typed maps.
var AttrMaps = []string{"attributes_string", "attributes_number", "attributes_bool", "attributes", "span_attributes", "tag_attributes"}
var resourceMaps = []string{"resources_string", "resource", "resources"}

// ResourceValue reads a resource attribute. Flat keys are what SigNoz returns
// for selected resource fields; span attribute maps are never consulted, so a
// span attribute cannot pose as the resource.
func ResourceValue(d map[string]any, key string) string {
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

// AttrValue reads a span or log column or attribute.
func AttrValue(d map[string]any, key string) any {
	if v, ok := d[key]; ok && v != nil {
		return v
	}
	for _, m := range AttrMaps {
		if mm, ok := d[m].(map[string]any); ok {
			if v, ok := mm[key]; ok && v != nil {
				return v
			}
		}
	}
	return nil
}

// AttrString is AttrValue as a string (a number or a boolean formatted, ""
// for none or another type).
func AttrString(d map[string]any, key string) string {
	switch v := AttrValue(d, key).(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

// RowTime is the row's timestamp: the row's own, else its data column (RFC
// 3339 or Unix nanoseconds).
func RowTime(r signoz.RawRow) time.Time {
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
