package facts

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// templateSeries is a value's per-minute count among 4 spans a minute
// carrying its key over 3 h to the alert (synthEnd), with no span at all in
// the minute gap; from release on the value is on every span, and before it
// on the spans of the minutes in early.
func templateSeries(gap, release time.Time, early ...time.Time) []Minute {
	var ms []Minute
	for t := synthEnd.Add(-3 * time.Hour); !t.After(synthEnd); t = t.Add(time.Minute) {
		switch {
		case t.Equal(gap):
		case !t.Before(release):
			ms = append(ms, Minute{At: t, Requests: 4, Errors: 4})
		default:
			x := Minute{At: t, Requests: 4}
			for _, e := range early {
				if e.Equal(t) {
					x.Errors = 1
				}
			}
			ms = append(ms, x)
		}
	}
	return ms
}

// TestValueShiftNeverSeenStartsWhereFirstSeen is s1018-w038's shape: a new
// prompt template, never carried before, first sampled in the minute after
// a minute with no span at all. Its rise cannot have begun before a span
// first carried it: the onset is that minute, not the empty minute before
// it (where the marker's minute then looked after the onset). A value
// carried before at a low share may have begun to rise in the empty
// minute: that onset stays at the empty minute (red with mutant
// sandbox.quality_first_seen).
func TestValueShiftNeverSeenStartsWhereFirstSeen(t *testing.T) {
	release := synthEnd.Add(-20 * time.Minute)
	gap := release.Add(-time.Minute)
	cases := []struct {
		name string
		ms   []Minute
		want time.Time
	}{
		{"a value never seen: its first minute", templateSeries(gap, release), release},
		{"a value seen before at a low share: the empty minute", templateSeries(gap, release, synthEnd.Add(-150*time.Minute), synthEnd.Add(-90*time.Minute), synthEnd.Add(-40*time.Minute)), gap},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := valueShift("app.prompt.template", "answer-3252", c.ms, synthEnd, QualitySplitLR, DefaultMargins)
			require.NotNil(t, d)
			require.Equal(t, c.want, *d.on.At)
			require.Equal(t, c.want, d.fact.At)
		})
	}
}
