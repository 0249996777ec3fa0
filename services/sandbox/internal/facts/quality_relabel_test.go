package facts

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestQualityRelabelPlacesNoOnset is s491049-w006's shape: a release an
// hour before the alert renamed its prompt template (a value never carried
// before, on every span since), and the answers degraded only later (a
// finish reason that was rare became common). The relabel names the
// release; the degradation is the onset. A value carried before at a low
// share is no relabel. Red with mutant sandbox.quality_relabel (the onset
// then lies at the release, right after its marker).
func TestQualityRelabelPlacesNoOnset(t *testing.T) {
	release := synthEnd.Add(-60 * time.Minute)
	degraded := synthEnd.Add(-6 * time.Minute)
	template := valueShift("app.prompt.template", "answer-v23", templateSeries(time.Time{}, release), synthEnd, QualitySplitLR, DefaultMargins)
	require.NotNil(t, template)
	require.True(t, template.relabel)
	var finish []Minute
	for at := synthEnd.Add(-3 * time.Hour); !at.After(synthEnd); at = at.Add(time.Minute) {
		x := Minute{At: at, Requests: 10}
		if !at.Before(degraded) {
			x.Errors = 6
		} else if at.Minute()%20 == 0 {
			x.Errors = 1
		}
		finish = append(finish, x)
	}
	length := valueShift("gen_ai.response.finish_reasons", "length", finish, synthEnd, QualitySplitLR, DefaultMargins)
	require.NotNil(t, length)
	require.False(t, length.relabel)
	seen := valueShift("app.prompt.template", "answer-v23", templateSeries(time.Time{}, release, synthEnd.Add(-150*time.Minute)), synthEnd, QualitySplitLR, DefaultMargins)
	require.NotNil(t, seen)
	require.False(t, seen.relabel)

	on := EarliestWithQuality(Onset{}, []QualityDeparture{*template, *length})
	require.NotNil(t, on.At)
	require.Equal(t, degraded, *on.At)
	// A relabel alone places no onset.
	require.Nil(t, EarliestWithQuality(Onset{}, []QualityDeparture{*template}).At)
}
