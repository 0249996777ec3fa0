package facts

import (
	"math/rand/v2"
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts/synthetic"

	"github.com/stretchr/testify/require"
)

// sigWorld is a service's series with its entry errors by signature: about
// perMinute sampled requests a minute for length minutes ending at the alert
// (synthEnd), background errors of the old signature "internal error" at
// bgRate, and, counted back from the alert, one background error forced at
// bgAt, the old signature at oldRate from oldFrom, a new signature at
// newRate from newFrom, and a p95 tripled from slowFrom (zero: none).
type sigWorld struct {
	length, perMinute, bgRate float64
	bgAt, oldFrom, newFrom    time.Duration
	oldRate, newRate          float64
	slowFrom                  time.Duration
}

func (w sigWorld) draw(seed uint64) ([]Minute, []VersionErrors) {
	r := rand.New(rand.NewPCG(seed, seed^0x51c))
	start := synthEnd.Add(-time.Duration(w.length) * time.Minute)
	since := func(t time.Time, d time.Duration) bool { return d > 0 && !t.Before(synthEnd.Add(-d)) }
	var ms []Minute
	var errs []VersionErrors
	for t := start; t.Before(synthEnd); t = t.Add(time.Minute) {
		n := synthetic.Poisson(r, w.perMinute)
		forced := w.bgAt > 0 && t.Equal(synthEnd.Add(-w.bgAt))
		if forced && n == 0 {
			n = 1
		}
		if n == 0 {
			continue
		}
		// The deploy is where the new signature begins, or, without one,
		// where the old one rises (a release regressing with it).
		version, deploy := "v1", w.newFrom
		if deploy == 0 {
			deploy = w.oldFrom
		}
		if since(t, deploy) {
			version = "v2"
		}
		var old, fresh float64
		for range n {
			switch u := r.Float64(); {
			case since(t, w.newFrom) && u < w.newRate:
				fresh++
			case since(t, w.oldFrom) && u < w.oldRate, u < w.bgRate:
				old++
			}
		}
		if forced && old+fresh == 0 {
			old = 1
		}
		p95 := 120 * (0.9 + 0.2*r.Float64())
		if since(t, w.slowFrom) {
			p95 *= 3
		}
		ms = append(ms, Minute{At: t, Requests: float64(n), Errors: old + fresh, P95Ms: p95})
		if old > 0 {
			errs = append(errs, VersionErrors{Version: version, Signature: "internal error", TS: t.UnixMilli(), N: old})
		}
		if fresh > 0 {
			errs = append(errs, VersionErrors{Version: version, Signature: Signature("unsupported operand type(s) for +: 'NoneType' and 'int'"), TS: t.UnixMilli(), N: fresh})
		}
	}
	return ms, errs
}

// s77 is s77-w024's shape: 220 minutes of about 6 sampled requests a
// minute, background "internal error" at 0.3%, one of them 9 minutes before
// the alert, the deploy 7 minutes before it and the release failing 35% of
// requests with a new status message from 6 minutes before it.
var s77 = sigWorld{length: 220, perMinute: 6, bgRate: 0.003, bgAt: 9 * time.Minute, newFrom: 6 * time.Minute, newRate: 0.35}

// TestSignatureOnsetPassesABackgroundError: the onset of s77's shape is
// where the errors of the new signature begin, after the deploy, not at the
// background error before it. Red without SignatureOnset in the overview:
// the plain onset lands before the deploy in most draws.
func TestSignatureOnsetPassesABackgroundError(t *testing.T) {
	deploy := synthEnd.Add(-7 * time.Minute)
	plainBefore, after := 0, 0
	for seed := range uint64(20) {
		ms, errs := s77.draw(seed)
		plain := FindOnset(ms, synthEnd, DefaultMargins)
		got := SignatureOnset(plain, ms, errs, synthEnd, DefaultMargins)
		require.NotNil(t, got.At, "seed %d", seed)
		if plain.At != nil && plain.At.Before(deploy) {
			plainBefore++
		}
		if !got.At.Before(deploy) {
			after++
			require.False(t, got.At.After(synthEnd), "seed %d: after the alert", seed)
		}
	}
	t.Logf("plain onset before the deploy in %d of 20 draws; signature-aware after it in %d", plainBefore, after)
	require.GreaterOrEqual(t, plainBefore, 10, "the shape must trip the plain onset")
	require.GreaterOrEqual(t, after, 18)
}

// TestSignatureOnsetGuards: shapes where moving the onset later would move
// it past errors of the regression itself; the onset must stay where the
// whole series puts it. "old signature under way" (a regression of a known
// signature, then a deploy whose failures read as new: a bad deploy marker
// after the real onset) is red without the check of the known signatures'
// series (mutant sandbox.signature_rest).
func TestSignatureOnsetGuards(t *testing.T) {
	cases := []struct {
		name string
		w    sigWorld
	}{
		{"release regresses with the old signature", sigWorld{length: 220, perMinute: 6, bgRate: 0.003, bgAt: 9 * time.Minute, oldFrom: 6 * time.Minute, oldRate: 0.35}},
		{"old signature under way before a new one", sigWorld{length: 220, perMinute: 6, bgRate: 0.003, oldFrom: 14 * time.Minute, oldRate: 0.35, newFrom: 6 * time.Minute, newRate: 0.35}},
		{"weaker old signature under way, dense traffic", sigWorld{length: 120, perMinute: 40, bgRate: 0.003, oldFrom: 12 * time.Minute, oldRate: 0.12, newFrom: 5 * time.Minute, newRate: 0.3}},
		{"latency under way before a new signature", sigWorld{length: 220, perMinute: 6, bgRate: 0.003, bgAt: 13 * time.Minute, slowFrom: 12 * time.Minute, newFrom: 6 * time.Minute, newRate: 0.35}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for seed := range uint64(20) {
				ms, errs := c.w.draw(seed)
				plain := FindOnset(ms, synthEnd, DefaultMargins)
				got := SignatureOnset(plain, ms, errs, synthEnd, DefaultMargins)
				require.Equal(t, plain.At, got.At, "seed %d: moved from %v (%s)", seed, plain.At, got.Signatures)
			}
		})
	}
}

// TestSignatureOnsetNeverPassesTheNewSignature: where the new signature is
// the regression from its start (a deploy after the real onset), the onset
// may move past background errors but never past the first error of the
// new signature.
func TestSignatureOnsetNeverPassesTheNewSignature(t *testing.T) {
	w := sigWorld{length: 220, perMinute: 6, bgRate: 0.003, bgAt: 15 * time.Minute, newFrom: 12 * time.Minute, newRate: 0.35}
	for seed := range uint64(20) {
		ms, errs := w.draw(seed)
		got := SignatureOnset(FindOnset(ms, synthEnd, DefaultMargins), ms, errs, synthEnd, DefaultMargins)
		first := synthEnd
		for _, e := range errs {
			if at := time.UnixMilli(e.TS).UTC(); e.Signature != "internal error" && at.Before(first) {
				first = at
			}
		}
		require.NotNil(t, got.At, "seed %d", seed)
		require.False(t, got.At.After(first), "seed %d: onset %v after the first new error %v", seed, got.At, first)
	}
}

// TestSignatureOnsetKnownOldSignatureRegressions draws 300 regressions of
// a known signature (2 to 40 sampled requests a minute, 8% to 48% errors,
// 8 to 27 minutes before the alert) followed 2 to 6 minutes later by
// failures of a new signature on a new version (a deploy after the real
// onset, whose failures read as new), while the old one goes on or stops:
// a move past the regression's start passes at most one of its errors (one
// error of a signature the baseline shows is all the data cannot tell from
// background), and never a regression the old signature's series shows on
// its own. Red without the count of the errors between the two onsets
// (mutant sandbox.signature_rest).
func TestSignatureOnsetKnownOldSignatureRegressions(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 5150))
	moved := 0
	for seed := range uint64(300) {
		w := sigWorld{length: 60 + 240*r.Float64(), perMinute: 2 + 38*r.Float64(), bgRate: 0.01 * r.Float64(),
			oldFrom: time.Duration(8+r.IntN(20)) * time.Minute, oldRate: 0.08 + 0.4*r.Float64(), newRate: 0.1 + 0.4*r.Float64()}
		w.newFrom = w.oldFrom - time.Duration(2+r.IntN(5))*time.Minute
		ms, errs := w.draw(seed)
		plain := FindOnset(ms, synthEnd, DefaultMargins)
		got := SignatureOnset(plain, ms, errs, synthEnd, DefaultMargins)
		start := synthEnd.Add(-w.oldFrom)
		if got.At == nil || plain.At == nil || !got.At.After(start) || got.At.Equal(*plain.At) {
			continue
		}
		moved++
		var passed float64
		oldOnly := make([]Minute, 0, len(ms))
		for _, x := range ms {
			y := Minute{At: x.At, Requests: x.Requests, P95Ms: x.P95Ms}
			for _, e := range errs {
				if e.TS == x.At.UnixMilli() && e.Signature == "internal error" {
					y.Errors += e.N
				}
			}
			if !x.At.Before(maxTime(start, *plain.At)) && x.At.Before(*got.At) {
				passed += y.Errors
			}
			oldOnly = append(oldOnly, y)
		}
		require.LessOrEqual(t, passed, 1.0, "seed %d %+v: %s", seed, w, got.Signatures)
		require.Nil(t, FindOnset(oldOnly, synthEnd, DefaultMargins).At, "seed %d %+v: %s", seed, w, got.Signatures)
	}
	t.Logf("moved past the old signature's start in %d of 300 draws", moved)
}

// TestSignatureOnsetPassesABackgroundErrorBeforeARetryStorm is s77's shape
// with the p95 tripled from 5 minutes before the alert, a minute after the
// new signature begins (a retry storm's failures, then its latency: CI
// worlds s18-w100 and s18-w076): the latency is the regression's own,
// after the new signature's onset, and the onset moves past the
// background error as it does without it. Red while any departure of the
// rest kept the earlier onset.
func TestSignatureOnsetPassesABackgroundErrorBeforeARetryStorm(t *testing.T) {
	deploy := synthEnd.Add(-7 * time.Minute)
	w := s77
	w.slowFrom = 5 * time.Minute
	after := 0
	for seed := range uint64(20) {
		ms, errs := w.draw(seed)
		got := SignatureOnset(FindOnset(ms, synthEnd, DefaultMargins), ms, errs, synthEnd, DefaultMargins)
		require.NotNil(t, got.At, "seed %d", seed)
		if !got.At.Before(deploy) {
			after++
		}
	}
	require.GreaterOrEqual(t, after, 18)
}
