package worldgen

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Corner pins a world to an edge of the ranges issue 18 names: recordings of
// 20 minutes to 24 hours, 0.1 to 500 requests/s, trace sampling 1/1 to
// 1/100. Draw keeps every world within a few megabytes by sampling a busy
// service harder and thinning a long one; a corner world does not, so it
// holds the traffic it says (the test that replays corners picks the
// corners a replay can hold: 500 requests/s unsampled for 20 minutes is
// 600,000 traces).
type Corner struct {
	Length   time.Duration
	Rate     float64 // offered requests/s of the affected service
	Sampling int     // 1 in Sampling traces is stored
	// Baseline is how much of the recording precedes the onset; zero for
	// all but the last 10 minutes.
	Baseline time.Duration
	Class    string
	// WordingRelease: the alerted service calls a model and deployed a
	// release that changed only its prompt's wording 1 to 5 minutes before
	// the onset; the model then slows by itself (Class is the dependency's,
	// retrieval_latency). The release sends the model what the previous
	// version sent (PromptChange zero), so the trap is the same telemetry
	// as a prompt regression whose model slowed minutes after it: the gate
	// must deny (gate.change_slow_answered), whatever the diagnosis.
	WordingRelease bool
}

// DrawCorner draws world i of seed at corner c: no variant but the prompt's
// (drawPrompt) and WordingRelease's, the affected service deployed a few
// minutes before the onset when the class is a deployment class (or the
// corner a WordingRelease), and the expectation by the documented minimum
// of evidence (see enoughEvidence).
func DrawCorner(seed uint64, i int, c Corner) World {
	r := rand.New(rand.NewPCG(seed, uint64(i)*0x9e3779b97f4a7c15+0xc0))
	w := World{Index: i, Seed: seed, Class: c.Class}
	topoClass := w.Class
	if c.WordingRelease {
		topoClass = "prompt_regression"
	}
	w.Topo = drawTopology(r, topoClass)
	w.Semconv = SemconvOld
	if r.Float64() < 0.5 {
		w.Semconv = SemconvNew
	}
	w.MarkerStyle = r.IntN(markerStyles)
	base := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * 26 * time.Hour)
	w.Now = base.Add(time.Duration(6*3600+r.IntN(12*3600)) * time.Second)
	w.StartsAt = w.Now.Add(-time.Minute)
	baseline := c.Baseline
	if baseline == 0 {
		baseline = c.Length - 10*time.Minute
	}
	w.Start = w.Now.Add(-c.Length)
	w.Onset = w.Start.Add(baseline)
	w.Rate, w.Sampling = c.Rate, c.Sampling
	old, cur := versionPair(r, w.MarkerStyle)
	w.Versions = []string{olderVersion(old), old}
	if deploymentClass(w.Class) || c.WordingRelease {
		// Deployed 1 to 5 minutes before the onset, inside the recording.
		at := w.Onset.Add(-time.Minute - time.Duration(r.IntN(240))*time.Second)
		if at.Before(w.Start) {
			at = w.Start.Add(w.Onset.Sub(w.Start) / 2)
		}
		w.Deploys = []Deploy{{Service: w.Topo.Affected, Version: cur, Previous: old, At: at.Truncate(time.Second)}}
		w.Versions = append(w.Versions, cur)
	}
	w.BurnRate = 9.5
	w.drawPrompt(promptRng(seed, i))
	if c.WordingRelease {
		w.add(ModelSlowedAfterWording)
	}
	w.Expect = expect(w)
	w.ID = fmt.Sprintf("s%d-c%02d-%s-%s", seed, i, slug(w.Class), w.Topo.Affected)
	return w
}
