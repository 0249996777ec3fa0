package facts_test

import (
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

// canaryWindow is the spans of a canary's first three minutes, after
// e2e/incidents-heldout8's qh8-canary-panic-transfers-ledger-rs: the stable
// 3.3.2 answers POST /v1/transfers every 6 s and GET /v1/transfers/{id}
// every 4 s, cleanly; the canary 3.4.0 serves from 25 s on (a GET first),
// its POSTs every 11 s from 34 s, two in three panicking. stable edits or
// drops each of the stable version's marks (by its index: its 30 POSTs
// first, then its GETs); late delays the canary.
func canaryWindow(t0 time.Time, late time.Duration, stable func(i int, m facts.SpanMark) (facts.SpanMark, bool)) []facts.SpanMark {
	post, get := []string{"POST /v1/transfers Server", "route /v1/transfers"}, []string{"GET /v1/transfers/{id} Server"}
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	var ms []facts.SpanMark
	i := 0
	add := func(m facts.SpanMark) {
		if m, ok := stable(i, m); ok {
			ms = append(ms, m)
		}
		i++
	}
	for s := 1; s < 180; s += 6 {
		add(facts.SpanMark{At: at(s), Ops: post, Version: "3.3.2"})
	}
	for s := 2; s < 180; s += 4 {
		add(facts.SpanMark{At: at(s), Ops: get, Version: "3.3.2"})
	}
	ms = append(ms, facts.SpanMark{At: at(25).Add(late), Ops: get, Version: "3.4.0"})
	for n, s := 0, 34; s < 180; n, s = n+1, s+11 {
		if at(s).Add(late).Before(at(180)) {
			ms = append(ms, facts.SpanMark{At: at(s).Add(late), Off: n%3 != 1, Ops: post, Version: "3.4.0"})
		}
	}
	sortMarks(ms)
	return ms
}

func keep(_ int, m facts.SpanMark) (facts.SpanMark, bool) { return m, true }

func notServed(string) bool { return false }

// TestRefineByVersionPlacesACanary: a canary's failure, confined to it on a
// route the stable version answers cleanly, begins no earlier than the
// canary's first span (25 s), however many clean spans of the stable
// version the bucket's refinement weighed; it is never past the canary's
// first failing span (34 s). Kills mutant sandbox.version_onset.
func TestRefineByVersionPlacesACanary(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 8, 10, 14, 0, 0, time.UTC)
	on := facts.Onset{At: &t0, Signal: "error_rate", ErrorThreshold: 0.05}
	marks := canaryWindow(t0, 0, keep)

	all := facts.RefineOnset(on, marks)
	require.True(t, all.At.Before(t0.Add(25*time.Second)), "over every span the onset lies before the canary served: %s", all.At)

	c, ok := facts.Confined(marks, notServed)
	require.True(t, ok, "%+v", c)
	require.Equal(t, "3.4.0", c.Version)
	require.Equal(t, []string{"POST /v1/transfers Server", "route /v1/transfers"}, c.Ops)
	require.Less(t, c.Chance, facts.ConfinedAlpha)

	// Fisher's exact test: three canary requests, all off, beside twelve
	// clean stable ones put all three failures among the canary's with
	// chance C(3,3)/C(15,3) = 1/455 were the failure every version's.
	three := []facts.SpanMark{}
	for i := 0; i < 15; i++ {
		m := facts.SpanMark{At: t0.Add(time.Duration(i) * time.Second), Ops: []string{"POST /x Server"}, Version: "1.0"}
		if i%5 == 0 {
			m.Off, m.Version = true, "1.1"
		}
		three = append(three, m)
	}
	c3, ok := facts.Confined(three, notServed)
	require.True(t, ok)
	require.Equal(t, [3]int{3, 3, 12}, [3]int{c3.Requests, c3.Off, c3.Others})
	require.InDelta(t, 1.0/455, c3.Chance, 1e-12)

	got := facts.RefineByVersion(on, all, marks, notServed)
	require.False(t, got.At.Before(t0.Add(25*time.Second)), "the canary's failure begins once it serves: %s", got.At)
	require.False(t, got.At.After(t0.Add(34*time.Second)), "never past its first failing span: %s", got.At)
	require.Contains(t, got.Refined, `placed over version "3.4.0"'s spans`)
	require.Contains(t, got.Refined, "served no entry span before the onset's minute")

	// A pooled onset, which the bucket's refinement leaves, moves alike.
	pooled := on
	pooled.Pooled = true
	require.Equal(t, pooled.At, facts.RefineOnset(pooled, marks).At)
	require.Equal(t, got.At, facts.RefineByVersion(pooled, pooled, marks, notServed).At)
}

// TestRefineByVersionNeedsAll: each condition of a confined failure, broken
// alone, leaves the onset where the bucket's refinement put it. The canary
// that served before the onset's minute kills sandbox.version_onset_new;
// the recreate whose old version answered the route twice more kills
// sandbox.version_onset_others; the canary first serving in the second
// bucket kills sandbox.version_onset_bucket; the canary whose three failing
// requests made five attempts each beside three clean ones of the stable
// version kills sandbox.version_onset_requests.
func TestRefineByVersionNeedsAll(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 8, 10, 14, 0, 0, time.UTC)
	on := facts.Onset{At: &t0, Signal: "error_rate", ErrorThreshold: 0.05}
	stablePost := func(i int) bool { return i < 30 } // the first 30 stable marks are its POSTs (1 s, 7 s, …)
	for _, tc := range []struct {
		name   string
		late   time.Duration
		stable func(i int, m facts.SpanMark) (facts.SpanMark, bool)
		served func(string) bool
	}{
		{"the canary served before the onset's minute", 0, keep, func(v string) bool { return v == "3.4.0" }},
		{"the canary served from the onset's second bucket on", 40 * time.Second, keep, notServed},
		{"a recreate: the old version answered the route twice after the first failure", 0, func(i int, m facts.SpanMark) (facts.SpanMark, bool) {
			return m, !stablePost(i) || m.At.Before(t0.Add(46*time.Second))
		}, notServed},
		{"the old version fails the route too", 0, func(i int, m facts.SpanMark) (facts.SpanMark, bool) {
			m.Off = stablePost(i) && i%5 == 4 && m.At.After(t0.Add(40*time.Second))
			return m, true
		}, notServed},
		{"the old version answers only the other route after the first failure", 0, func(i int, m facts.SpanMark) (facts.SpanMark, bool) {
			return m, !stablePost(i) || m.At.Before(t0.Add(34*time.Second))
		}, notServed},
		{"the first failing span is the old version's", 0, func(i int, m facts.SpanMark) (facts.SpanMark, bool) {
			m.Off = i == 3 // POST at 19 s
			return m, true
		}, notServed},
		{"no span names its version", 0, keep, notServed},
		{"the canary's failing requests retried five times", 0, nil, notServed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var marks []facts.SpanMark
			if tc.stable != nil {
				marks = canaryWindow(t0, tc.late, tc.stable)
			} else {
				marks = retriedCanary(t0)
			}
			if tc.name == "no span names its version" {
				for i := range marks {
					marks[i].Version = ""
				}
			}
			all := facts.RefineOnset(on, marks)
			got := facts.RefineByVersion(on, all, marks, tc.served)
			require.Equal(t, all.At, got.At, "%s", got.Refined)
			if tc.late == 0 {
				_, ok := facts.Confined(marks, tc.served)
				require.False(t, ok)
			}
		})
	}
}

// retriedCanary is a canary's three requests to a failing route, five
// failing attempt spans each (one trace a request), beside three clean
// requests of the stable version, one span each, after the first failure:
// as requests, all three failures among the canary's have chance
// C(3,3)/C(6,3) = 1/20 were the failure every version's; as spans, 1/816.
func retriedCanary(t0 time.Time) []facts.SpanMark {
	call := []string{"GET Client"}
	var ms []facts.SpanMark
	for r := 0; r < 3; r++ {
		for a := 0; a < 5; a++ {
			ms = append(ms, facts.SpanMark{At: t0.Add(time.Duration(30+10*r+a) * time.Second), Off: true, Ops: call, Version: "3.8.0", Trace: string(rune('a' + r))})
		}
		ms = append(ms, facts.SpanMark{At: t0.Add(time.Duration(36+10*r) * time.Second), Ops: call, Version: "3.7.2", Trace: string(rune('x' + r))})
	}
	sortMarks(ms)
	return ms
}
