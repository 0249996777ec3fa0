package worldgen

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// TestWorldsLoadAndKeepTheirPromises writes worlds and loads them with the
// format's own loader: every folder is valid, the onset lies inside the
// recording after a baseline of at least 15 minutes, the recording ends at
// now, and a marker that the expectation relies on is a span in the file.
func TestWorldsLoadAndKeepTheirPromises(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ws := Generate(7, 20)
	require.NoError(t, Write(dir, ws))
	classes := map[string]bool{}
	verdicts := map[string]int{}
	for _, w := range ws {
		inc, err := incident.Load(filepath.Join(dir, w.ID))
		require.NoError(t, err, w.ID)
		require.Equal(t, w.Expect, inc.Meta.Expect, w.ID)
		require.Equal(t, w.Topo.Affected, inc.Meta.Service)
		require.Equal(t, RuleMetric(w) != "", inc.RuleJSON != nil, "%s: rule.json where a rule was drawn (its id is the alert's ruleId: the loader checks)", w.ID)
		classes[w.Class] = true
		verdicts[w.Expect.Verdict]++
		require.GreaterOrEqual(t, w.Onset.Sub(w.Start), 15*time.Minute, w.ID)
		require.True(t, w.Onset.Before(w.StartsAt) && !w.StartsAt.After(w.Now), w.ID)
		d := w.Duration()
		require.True(t, d >= 20*time.Minute && d <= 30*time.Hour, "%s: %s", w.ID, d)
		require.True(t, w.Rate >= 0.05 && w.Rate <= 500 && w.Sampling >= 1 && w.Sampling <= 100, w.ID)
		var markers, affected int
		for _, s := range inc.Spans {
			require.False(t, s.Timestamp.After(w.Now), w.ID)
			if s.Name == "deployment.marker" {
				markers++
			}
			if s.Service() == w.Topo.Affected {
				affected++
			}
		}
		require.Equal(t, len(w.Deploys)+len(w.FalseMarkers), markers, w.ID)
		require.Positive(t, affected, w.ID)
		if w.Expect.Verdict == contracts.VerdictAllow {
			require.True(t, w.markerExplainsOnset(), w.ID)
		}
	}
	require.Len(t, classes, 10, "every failure class of the catalogue")
	require.Positive(t, verdicts[contracts.VerdictAllow])
	require.Positive(t, verdicts[contracts.VerdictDeny])
}

// TestDeterministic: the same seed writes the same bytes.
func TestDeterministic(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	ws := Generate(3, 6)
	require.NoError(t, Write(a, ws))
	require.NoError(t, Write(b, Generate(3, 6)))
	for _, w := range ws {
		files := []string{"incident.yaml", "alert.json", "spans.jsonl", "logs.jsonl", "releases.yaml"}
		if RuleMetric(w) != "" {
			files = append(files, "rule.json")
		}
		for _, f := range files {
			x, err := os.ReadFile(filepath.Join(a, w.ID, f))
			require.NoError(t, err)
			y, err := os.ReadFile(filepath.Join(b, w.ID, f))
			require.NoError(t, err)
			require.True(t, bytes.Equal(x, y), "%s/%s differs between two runs", w.ID, f)
		}
	}
	require.NotEqual(t, Generate(4, 1)[0].Title(), Generate(3, 1)[0].Title())
}

// TestExpect is the gate's six checks applied to a world's facts.
func TestExpect(t *testing.T) {
	t.Parallel()
	onset := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	base := func(class string, vs ...Variant) World {
		w := World{Class: class, Variants: vs, Onset: onset, Versions: []string{"v1", "v2"},
			Start: onset.Add(-time.Hour), Now: onset.Add(10 * time.Minute), Rate: 1, Sampling: 1}
		w.Topo.Affected = "svc"
		w.Topo.Endpoints = []Endpoint{{Method: "GET", Route: "/", Share: 1, UsesCallee: true}}
		w.Deploys = []Deploy{{Service: "svc", Version: "v2", Previous: "v1", At: onset.Add(-5 * time.Minute)}}
		return w
	}
	for _, tc := range []struct {
		name    string
		w       World
		verdict string
		failed  []string
	}{
		{"deployment class with a marker 5 min before the onset", base("bad_release"), "allow", nil},
		{"runtime class with the same marker", base("db_pool_exhaustion"), "deny", []string{"deployment_related"}},
		{"burn rate NaN", base("retry_storm", BurnNaN), "deny", []string{"slo_breach"}},
		{"burn rate only in prose", base("retry_storm", BurnProse), "deny", []string{"slo_breach"}},
		{"NaN label, valid annotation", base("retry_storm", BurnNaNThenValid), "allow", nil},
		{"out of scope and in cooldown", base("prompt_regression", OutOfScope, CooldownActive), "deny", []string{"cooldown", "sandbox_scope"}},
		{"expired cooldown", base("config_regression", CooldownExpired), "allow", nil},
		{"marker at the onset", func() World {
			w := base("bad_release")
			w.Deploys[0].At = onset
			return w
		}(), "deny", []string{"deployment_related"}},
		{"marker 31 min before", func() World {
			w := base("bad_release")
			w.Deploys[0].At = onset.Add(-31 * time.Minute)
			return w
		}(), "deny", []string{"deployment_related"}},
		{"marker of another service", func() World {
			w := base("bad_release")
			w.Deploys[0].Service = "other"
			return w
		}(), "deny", []string{"deployment_related"}},
		// The documented minimum of evidence (enoughEvidence).
		{"baseline 6 min", func() World {
			w := base("bad_release")
			w.Start = onset.Add(-6 * time.Minute)
			return w
		}(), "deny", []string{"deployment_related"}},
		{"29 sampled requests of baseline", func() World {
			w := base("bad_release")
			w.Rate, w.Sampling = 29.0/60/60*100, 100 // 29 traces over the hour before the onset
			return w
		}(), "deny", []string{"deployment_related"}},
		{"30 sampled requests of baseline", func() World {
			w := base("bad_release")
			w.Rate, w.Sampling = 30.0/60/60*100, 100
			w.Now = onset.Add(30 * time.Minute) // 15 since: enough failing ones at any failing share
			return w
		}(), "allow", nil},
		{"under 3 sampled requests since the onset", func() World {
			w := base("bad_release")
			w.Rate, w.Now = 1.0/60, onset.Add(2*time.Minute) // one trace a minute: 60 before, 2 since
			return w
		}(), "deny", []string{"deployment_related"}},
		{"3.2 sampled requests since the onset, under 3 expected to fail", func() World {
			w := base("bad_release")
			w.Rate, w.Now = 1.6/60, onset.Add(2*time.Minute) // at most 85% of them fail
			return w
		}(), "deny", []string{"deployment_related"}},
		{"no rollback target", func() World {
			w := base("bad_release")
			w.Versions = []string{"v2"}
			return w
		}(), "deny", []string{"deployment_related"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := expect(tc.w)
			require.Equal(t, tc.verdict, e.Verdict)
			require.Equal(t, tc.failed, e.FailedChecks)
		})
	}
}

// TestCulpritCalleeIsTheCalleesRelease: a world whose callee released and
// broke (CulpritCallee) has the callee's release as its root cause, as
// DrawCulprit's worlds and e2e/incidents-culprit do (issue 33, DESIGN.md
// rule 17), and the callee's rollback as its culprit; the same dependency
// outage without the callee's release stays an outage (s70429-w017 was
// labelled dependency_outage while the rules named the callee's release).
func TestCulpritCalleeIsTheCalleesRelease(t *testing.T) {
	t.Parallel()
	onset := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	w := World{Class: "dependency_outage", Variants: []Variant{CulpritCallee}, Onset: onset, Versions: []string{"v1", "v2"},
		Start: onset.Add(-time.Hour), Now: onset.Add(10 * time.Minute), Rate: 1, Sampling: 1}
	w.Topo.Affected, w.Topo.Callee = "svc", "callee"
	e := expect(w)
	require.Equal(t, "bad_release", e.RootCause)
	require.NotNil(t, e.Culprit)
	require.Equal(t, incident.Culprit{Service: "callee", Verdict: contracts.VerdictAllow}, *e.Culprit)
	w.Variants = nil
	e = expect(w)
	require.Equal(t, "dependency_outage", e.RootCause)
	require.Nil(t, e.Culprit)
}

// TestCICorpus: the CI corpus is at least 200 worlds with distinct ids,
// every class, and allows as well as denies.
func TestCICorpus(t *testing.T) {
	t.Parallel()
	ids := map[string]bool{}
	classes := map[string]int{}
	allow := 0
	for _, b := range CI {
		for _, w := range b.Worlds() {
			require.False(t, ids[w.ID], "duplicate id %s", w.ID)
			ids[w.ID] = true
			classes[w.Class]++
			if w.Expect.Verdict == contracts.VerdictAllow {
				allow++
			}
		}
	}
	require.GreaterOrEqual(t, len(ids), 200)
	require.Len(t, classes, 10)
	require.Greater(t, allow, 30)
	require.Greater(t, len(ids)-allow, 100)
}

// TestThinReleaseIsNoRollback: s9393-w008 (0.67 requests/s sampled 1 in 10,
// the onset 2.6 minutes before now) is expected to leave 2.2 failing sampled
// requests and stored one error: no evidence can justify its rollback, and
// the world expects a deny (it expected an allow before the failing count).
func TestThinReleaseIsNoRollback(t *testing.T) {
	t.Parallel()
	w := Draw(9393, 8)
	require.Equal(t, "s9393-w008-bad-release-pricing", w.ID)
	require.Less(t, w.StoredPerMinute()*w.Now.Sub(w.Onset).Minutes()*w.affectedShare(), float64(minOnsetFailing))
	require.Equal(t, "deny", w.Expect.Verdict)
	require.Equal(t, []string{"deployment_related"}, w.Expect.FailedChecks)
}

// TestSettleNeedsStoredFailures: s5150-w048 (a bad release expected to
// leave 4.7 failing sampled requests since its onset) stored one, and its
// world expects a deny once its telemetry is drawn; the CI seed's bad
// releases and configuration regressions that stored 3 keep their allow.
// Red without settle in WriteOne's path (settle returning w as it is).
func TestSettleNeedsStoredFailures(t *testing.T) {
	t.Parallel()
	w := Draw(5150, 48)
	require.Equal(t, "s5150-w048-bad-release-pricing", w.ID)
	require.Equal(t, "allow", w.Expect.Verdict)
	tel := Emit(w)
	require.Less(t, storedFailing(w, tel), minOnsetFailing)
	got := settle(w, tel)
	require.Equal(t, "deny", got.Expect.Verdict)
	require.Equal(t, []string{"deployment_related"}, got.Expect.FailedChecks)
	kept := 0
	for _, w := range Generate(18, 24) {
		if w.Expect.Verdict != "allow" || (w.Class != "bad_release" && w.Class != "config_regression") {
			continue
		}
		tel := Emit(w)
		require.GreaterOrEqual(t, storedFailing(w, tel), minOnsetFailing, w.ID)
		require.Equal(t, w.Expect, settle(w, tel).Expect, w.ID)
		kept++
	}
	require.Positive(t, kept)
}

// TestSettleAllowsStoredFailures: s6271-w032 (a bad release on ledger,
// 6.47 sampled requests a minute, 13% of them expected to fail over the 2.95
// minutes since the onset: 2.54 expected) was denied for want of failing
// requests, yet stored 3 errors of the new version since the onset and none
// before; the gate sees those, not the share they were drawn with, and its
// world expects an allow once its telemetry is drawn. Red without settle's
// second case.
func TestSettleAllowsStoredFailures(t *testing.T) {
	t.Parallel()
	w := Draw(6271, 32)
	require.Equal(t, "s6271-w032-bad-release-ledger", w.ID)
	require.Equal(t, "deny", w.Expect.Verdict)
	require.Less(t, w.expectedFailing(), float64(minOnsetFailing))
	tel := Emit(w)
	require.Equal(t, minOnsetFailing, storedFailing(w, tel))
	got := settle(w, tel)
	require.Equal(t, "allow", got.Expect.Verdict)
	require.Empty(t, got.Expect.FailedChecks)
	// s9393-w008 stored one: still a deny.
	thin := Draw(9393, 8)
	require.Equal(t, "deny", settle(thin, Emit(thin)).Expect.Verdict)
}

// TestFalseMarkers: the false-marker variants (issue 31) come only to
// runtime-class worlds whose affected service did not deploy, always deny,
// always with a marker of the running version that the ledger (releases.yaml)
// contradicts. (They draw from their own stream: the CI worlds without one
// were compared byte for byte with those drawn before false markers existed,
// and were equal; 19 of the 200 carry one.)
func TestFalseMarkers(t *testing.T) {
	t.Parallel()
	seen := map[Variant]int{}
	for _, w := range Generate(18, 120) {
		if len(w.FalseMarkers) == 0 {
			continue
		}
		// A queue consumer's and a tail sampler's variants are drawn after
		// (drawQueue, drawTail).
		vs := slices.DeleteFunc(slices.Clone(w.Variants), func(v Variant) bool { return v == QueueConsumer || v == TailSampled })
		v := vs[len(vs)-1]
		if v == ClientRetries {
			require.Equal(t, "dependency_outage", w.Class, w.ID)
			require.Positive(t, w.ClientRetries, w.ID)
			v = vs[len(vs)-2]
		}
		seen[v]++
		require.Contains(t, falseVariants, v, w.ID)
		require.False(t, deploymentClass(w.Class), w.ID)
		require.Equal(t, contracts.VerdictDeny, w.Expect.Verdict, w.ID)
		_, deployed := w.AffectedDeploy()
		require.False(t, deployed, w.ID)
		running := 0
		for _, m := range w.FalseMarkers {
			require.True(t, m.At.Before(w.Now) && !m.At.Before(w.Start), "%s: %s", w.ID, m.At)
			if m.Version == w.NewVersion() {
				running++
			}
		}
		if v != OtherEnvMarker {
			require.Positive(t, running, "%s: a false marker of the running version", w.ID)
		}
		// The ledger says the running version started days before.
		rel := string(releasesYAML(w))
		require.NotContains(t, rel, rfc(w.FalseMarkers[0].At), w.ID)
	}
	require.Len(t, seen, len(falseVariants), "every false-marker variant among the CI seed's worlds: %v", seen)
}

// TestWithoutFalseMarkers: a world stripped of its false marker is written
// byte for byte as a world that never drew one would be (the false markers'
// draws are their own), so tests that pick worlds by their variants see the
// worlds they saw before false markers existed.
func TestWithoutFalseMarkers(t *testing.T) {
	t.Parallel()
	var w World
	for _, x := range Generate(18, 120) {
		if x.ClientRetries > 0 {
			w = x
			break
		}
	}
	require.NotEmpty(t, w.FalseMarkers)
	plain := w.WithoutFalseMarkers()
	require.Empty(t, plain.FalseMarkers)
	require.Zero(t, plain.ClientRetries)
	require.NotContains(t, plain.Variants, ClientRetries)
	for _, v := range falseVariants {
		require.NotContains(t, plain.Variants, v)
	}
	require.Equal(t, w.Expect, plain.Expect)
	markers, resends := 0, 0
	for _, sp := range Emit(plain).Spans {
		if sp.Name == "deployment.marker" {
			markers++
		}
		if _, ok := sp.Attributes["http.request.resend_count"]; ok {
			resends++
		}
	}
	require.Equal(t, len(plain.Deploys), markers, "no false marker")
	require.Zero(t, resends, "no retry of the failing dependency")
}

// TestRulesAreDrawnWide: about RuleShare of worlds carry the alert's rule,
// and every metric is drawn (an error ratio, a latency, a quality count,
// error logs, and rules the sandbox cannot run), whatever the class.
func TestRulesAreDrawnWide(t *testing.T) {
	t.Parallel()
	ws := Generate(11, 200)
	metrics := map[string]int{}
	with := 0
	for _, w := range ws {
		if m := RuleMetric(w); m != "" {
			metrics[m]++
			with++
		}
	}
	require.InDelta(t, RuleShare, float64(with)/float64(len(ws)), 0.1)
	for _, m := range []string{RuleErrorRatio, RuleLatency, RuleQuality, RuleErrorLogs, RuleUnreadable} {
		require.Positive(t, metrics[m], m)
	}
}

// TestSparseWorldsAreDrawnWide: about SparseShare of the worlds are sparse
// (3 hours of recording, 1 in 16 to 64 sampled, 6 to 14 stored traces a
// minute), with every sampler of the draw, and the baseline before the onset
// is at least the 15 minutes every world has. (That the draw moves no other
// world was checked by writing a seed with main's generator and this one:
// every world without it is byte-identical.)
func TestSparseWorldsAreDrawnWide(t *testing.T) {
	t.Parallel()
	samplers := map[int]int{}
	n := 0
	for i := range 300 {
		w := Draw(13, i)
		if !w.Has(SparseHistory) {
			continue
		}
		n++
		samplers[w.Sampling]++
		require.Equal(t, 3*time.Hour, w.Duration(), w.ID)
		require.True(t, w.Sampling >= 16 && w.Sampling <= 64, w.ID)
		require.InDelta(t, 10, w.StoredPerMinute(), 4.1, w.ID)
		require.GreaterOrEqual(t, w.Onset.Sub(w.Start), 15*time.Minute, w.ID)
	}
	require.InDelta(t, SparseShare, float64(n)/300, 0.05)
	require.Len(t, samplers, 5, "every sampler of the draw")
}

// TestTailWorldsAreDrawnWide: some of the worlds are tail-sampled, with the
// sampler's parameters drawn wide (a threshold 2 to 15 times the slowest
// endpoint's median, 1 in 2 to 30 of the rest, errors kept or not), only
// where the head-sampled world held the minimum of evidence; and a
// tail-sampled world's telemetry keeps what its sampler says: every trace
// with an error when it keeps errors, every trace over the threshold, and
// about 1 in Keep of the rest before the onset. (That the draw moves no
// other world was checked by writing the CI seeds with main's generator and
// this one: every world without it is byte-identical.)
func TestTailWorldsAreDrawnWide(t *testing.T) {
	t.Parallel()
	var tails []World
	keeps, errs := map[bool]int{}, map[bool]int{}
	minThr, maxThr := math.Inf(1), 0.0
	for i := range 300 {
		w := Draw(13, i)
		if !w.Has(TailSampled) {
			require.Nil(t, w.Tail, w.ID)
			continue
		}
		tails = append(tails, w)
		require.True(t, w.Tail.Keep >= 2 && w.Tail.Keep <= 30, w.ID)
		keeps[w.Tail.Keep > 8]++
		errs[w.Tail.KeepErrors]++
		slowest := 0.0
		for _, ep := range w.Topo.Endpoints {
			slowest = math.Max(slowest, ep.BaseMs)
		}
		minThr, maxThr = math.Min(minThr, w.Tail.ThresholdMs/slowest), math.Max(maxThr, w.Tail.ThresholdMs/slowest)
		require.True(t, w.enoughTraffic(), w.ID)
		require.False(t, w.Has(SparseHistory), w.ID)
	}
	require.InDelta(t, 0.12, float64(len(tails))/300, 0.06)
	require.Len(t, keeps, 2, "keep rates both sides of 1/8")
	require.Len(t, errs, 2, "errors kept, and sampled like the rest")
	require.Less(t, minThr, 3.0)
	require.Greater(t, maxThr, 10.0)
	for _, w := range tails[:4] {
		tel := Emit(w)
		traces := map[string][]SpanRec{}
		for _, s := range tel.Spans {
			if s.TraceID != "" && s.Name != "deployment.marker" {
				traces[s.TraceID] = append(traces[s.TraceID], s)
			}
		}
		ordinary := 0
		for _, spans := range traces {
			first, last, failed := spans[0].at, spans[0].at, false
			for _, s := range spans {
				if s.at.Before(first) {
					first = s.at
				}
				if end := s.at.Add(time.Duration(s.DurationNano)); end.After(last) {
					last = end
				}
				failed = failed || s.HasError
			}
			if !failed && float64(last.Sub(first))/1e6 <= w.Tail.ThresholdMs && first.Before(w.Onset) && spans[0].Resource["service.name"] != w.Topo.Neighbour {
				ordinary++
			}
		}
		want := w.StoredPerMinute() * w.Onset.Sub(w.Start).Minutes()
		require.InDelta(t, want, float64(ordinary), 0.35*want+10, "%s: ordinary traces kept before the onset, about 1 in %d", w.ID, w.Tail.Keep)
	}
}

// TestTailReadings: a tail-sampled world's sampler reads its 1 in Keep of
// the other traces at random or consistently by a function of the trace
// id, every reading drawn; a consistent sampler keeps no ordinary trace
// whose reading is not under 1/Keep; and the random sampler's coin is
// drawn whatever the reading, so a world read otherwise keeps the same
// failing traces (only the kept set of the others changes).
func TestTailReadings(t *testing.T) {
	t.Parallel()
	seen := map[string]int{}
	var tails []World
	for i := range 400 {
		if w := Draw(13, i); w.Tail != nil {
			seen[w.Tail.Reading]++
			tails = append(tails, w)
		}
	}
	for _, r := range TailReadings {
		require.Positive(t, seen[r.Name], "reading %s drawn (%v)", r.Name, seen)
	}
	w := tails[0]
	failing := func(w World) (map[string]bool, map[string]bool) {
		fails, clean := map[string]bool{}, map[string]bool{}
		for _, s := range Emit(w).Spans {
			if s.TraceID == "" || s.Name == "deployment.marker" {
				continue
			}
			if s.HasError {
				fails[s.TraceID] = true
			}
			clean[s.TraceID] = true
		}
		for id := range fails {
			delete(clean, id)
		}
		return fails, clean
	}
	w.Tail.Reading = ReadAtRandom
	randomFails, _ := failing(w)
	for _, name := range []string{ReadLow64, ReadDefaultSalt, ReadOwnSalt} {
		tl := *w.Tail
		tl.Reading = name
		w.Tail = &tl
		fails, clean := failing(w)
		if w.Tail.KeepErrors {
			require.Equal(t, randomFails, fails, name)
		}
		under := 0
		for id := range clean {
			if r, ok := readTrace(name, id, tl.salt); ok && r < 1/float64(tl.Keep) {
				under++
			}
		}
		// Clean traces kept over the reading are the slow ones only.
		require.Greater(t, float64(under), 0.8*float64(len(clean)), "%s: %d of %d kept clean traces under 1/%d", name, under, len(clean), tl.Keep)
	}
}
