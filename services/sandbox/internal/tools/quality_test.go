package tools_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// promptShift is a recording of "api", an assistant that answers HTTP 200
// throughout, with no error and the same latency: from the change on (when
// shift is set) its prompt-building span carries a new template version,
// its input tokens drop, its output tokens grow and its answers are cut at
// the length limit far more often. perMinute is the spans a minute.
type promptShift struct {
	shift     bool
	perMinute int
}

func (p promptShift) incident(t *testing.T) (*incident.Incident, time.Time) {
	r := rand.New(rand.NewPCG(35, 3))
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	change, startsAt := now.Add(-14*time.Minute), now.Add(-6*time.Minute)
	inc := &incident.Incident{Meta: incident.Meta{ID: "prompt-shift", Service: "api", Now: now}}
	res := map[string]string{"service.name": "api", "service.version": "v1"}
	step := time.Minute / time.Duration(p.perMinute)
	for at := now.Add(-80 * time.Minute); at.Before(now); at = at.Add(step) {
		after := p.shift && !at.Before(change)
		in, out, template, finish := 1200.0, 220.0, "summarise-v3", "stop"
		if after {
			in, out, template = 640, 610, "summarise-v4"
		}
		if r.Float64() < map[bool]float64{false: 0.04, true: 0.45}[after] {
			finish = "length"
		}
		tokens := func(mu float64) json.RawMessage {
			return json.RawMessage(strconv.Itoa(int(mu * math.Exp(0.5*r.NormFloat64()))))
		}
		d := time.Duration(500+r.IntN(300)) * time.Millisecond
		trace, root := hexID(r, 16), hexID(r, 8)
		inc.Spans = append(inc.Spans,
			incident.Span{Timestamp: at, TraceID: trace, SpanID: root, Name: "POST /summaries", Kind: 2, DurationNano: int64(d + 20*time.Millisecond), Resource: res,
				Attributes: map[string]json.RawMessage{"http.route": json.RawMessage(`"/summaries"`), "http.response.status_code": json.RawMessage(`200`)}},
			incident.Span{Timestamp: at, TraceID: trace, SpanID: hexID(r, 8), ParentSpanID: root, Name: "chat", Kind: 3, DurationNano: int64(d), Resource: res,
				Attributes: map[string]json.RawMessage{"gen_ai.usage.input_tokens": tokens(in), "gen_ai.usage.output_tokens": tokens(out),
					"gen_ai.response.finish_reason": json.RawMessage(strconv.Quote(finish)), "app.prompt.template": json.RawMessage(strconv.Quote(template))}})
	}
	inc.AlertJSON = alertOf(t, "api", startsAt)
	return inc, startsAt
}

// TestQualityShiftPlacesTheOnset: a prompt regression that shows only in
// the attributes of the service's own spans places the onset at the change
// and names the attribute; the same service with its attributes wandering
// as they do places none (mutants sandbox.quality_onset and
// sandbox.quality_bonferroni).
func TestQualityShiftPlacesTheOnset(t *testing.T) {
	t.Parallel()
	change := time.Date(2026, 11, 20, 11, 46, 0, 0, time.UTC)
	for _, per := range []int{3, 12} {
		t.Run("shift at "+strconv.Itoa(per)+" spans a minute", func(t *testing.T) {
			t.Parallel()
			out := apiOverview(t, promptShift{shift: true, perMinute: per}.incident)
			f := out.Facts
			require.NotEmpty(t, f.QualityShifts, out.Compact)
			require.NotEmpty(t, f.OnsetAttribute, out.Compact)
			require.False(t, f.Onset.After(change.Add(2*time.Minute)), "onset %s\n%s", f.Onset, out.Compact)
			require.False(t, f.Onset.Before(change.Add(-2*time.Minute)), "onset %s\n%s", f.Onset, out.Compact)
			require.Contains(t, out.Compact, "attributes of the service's own spans that shifted")
		})
		t.Run("no shift at "+strconv.Itoa(per)+" spans a minute", func(t *testing.T) {
			t.Parallel()
			inc, startsAt := promptShift{perMinute: per}.incident(t)
			res, err := newHarness(t, inc, startsAt).run(t, "service_overview", `{"service":"api"}`)
			require.NoError(t, err)
			require.Nil(t, res.out.Facts.Onset, res.out.Compact)
			require.Empty(t, res.out.Facts.QualityShifts, res.out.Compact)
		})
	}
}
