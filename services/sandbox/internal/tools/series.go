package tools

import (
	"errors"
	"fmt"
	"time"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// The series readers live in package facts; these wrappers keep tools' own
// names for them.

// A labelFunc names the group a series belongs to ("" drops the series).
type labelFunc = facts.LabelFunc

// labelOf returns the value of the first of keys a series carries, non-empty.
func labelOf(keys ...string) labelFunc { return facts.LabelOf(keys...) }

// samples calls add for every finite sample of a time-series response (see
// facts.Samples).
func samples(resp signoz.Response, label labelFunc, add func(group string, agg int, ts int64, v float64)) error {
	return badResponse(facts.Samples(resp, label, add))
}

// perMinuteGrouped merges a grouped count/p95 series and a grouped error
// count series into each group's minutes (unsorted; facts.PerMinuteGrouped).
func perMinuteGrouped(all, errs signoz.Response, label labelFunc) (map[string][]Minute, error) {
	by, err := facts.PerMinuteGrouped(all, errs, label)
	return by, badResponse(err)
}

// perMinuteBy splits grouped series by their service.name label.
func perMinuteBy(all, errs signoz.Response) (map[string][]Minute, error) {
	return perMinuteGrouped(all, errs, labelOf("service.name"))
}

// badResponse makes an error of package facts an ErrBadResponse of tools as
// well, so that callers of Build test one sentinel.
func badResponse(err error) error {
	if err == nil || errors.Is(err, ErrBadResponse) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrBadResponse, err)
}

// labelJoin names a series by the values of every key, joined by " "
// (facts.LabelJoin).
func labelJoin(keys ...string) labelFunc { return facts.LabelJoin(keys...) }

// The readers of raw rows live in package facts (facts/fields.go).

// resourceValue reads a resource attribute (facts.ResourceValue).
func resourceValue(d map[string]any, key string) string { return facts.ResourceValue(d, key) }

// attrValue reads a span or log column or attribute (facts.AttrValue).
func attrValue(d map[string]any, key string) any { return facts.AttrValue(d, key) }

// attrString is attrValue as a string (facts.AttrString).
func attrString(d map[string]any, key string) string { return facts.AttrString(d, key) }

// rowTime is the row's timestamp (facts.RowTime).
func rowTime(r signoz.RawRow) time.Time { return facts.RowTime(r) }

// ms converts nanoseconds to milliseconds, rounded to 3 significant decimals.
func ms(nanos float64) float64 { return round(nanos / 1e6) }

// round rounds to 3 decimals (facts.Round).
func round(f float64) float64 { return facts.Round(f) }

func num(v any) (float64, bool) { return signoz.ToFloat(v) }
