package tools

import (
	"time"

	"agentk/services/sandbox/internal/facts/synthetic"
)

// synth is a synthetic per-minute series (synthetic.Series) drawn as
// tools' minutes.
type synth struct{ synthetic.Series }

var synthEnd = synthetic.End

func (s synth) onsetAt() time.Time { return s.OnsetAt() }

// minutes draws the series (synthetic.Series.Minutes).
func (s synth) minutes(seed uint64) []Minute {
	var out []Minute
	for _, m := range s.Minutes(seed) {
		out = append(out, Minute(m))
	}
	return out
}
