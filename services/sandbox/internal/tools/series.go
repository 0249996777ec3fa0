package tools

import (
	"errors"
	"fmt"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// The series readers live in package facts; these wrappers keep tools' own
// names and its Minute type until the files that call them move there too.

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
	if err != nil {
		return nil, badResponse(err)
	}
	out := make(map[string][]Minute, len(by))
	for g, ms := range by {
		out[g] = toolMinutes(ms)
	}
	return out, nil
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

// factMinutes and toolMinutes convert between tools' Minute and facts'
// (the same fields).
func factMinutes(ms []Minute) []facts.Minute {
	out := make([]facts.Minute, len(ms))
	for i, m := range ms {
		out[i] = facts.Minute(m)
	}
	return out
}

func toolMinutes(ms []facts.Minute) []Minute {
	out := make([]Minute, len(ms))
	for i, m := range ms {
		out[i] = Minute(m)
	}
	return out
}
