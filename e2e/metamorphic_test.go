package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"agentk/cmd/agentk/replay"
	"agentk/contracts/incident"
	"agentk/e2e/metamorph"
	"agentk/e2e/worldgen"

	"github.com/stretchr/testify/require"
)

// metamorphicGap names why the invariants do not hold 100% yet; while it is
// set and they do not, the target is reported and skipped. It covers only the
// rules investigator's diagnosis: 0 bad rollbacks, every verdict, and the
// oracle's diagnosis (the evidence layer) are asserted invariant regardless.
// Empty it when the invariants hold.
const metamorphicGap = ""

// subject is an incident the metamorphic test transforms, with the moment
// its recording may be cut at: 20 minutes before the onset, or just before
// its earliest deployment marker if that is earlier (cutting a marker away
// would change the right answer, not test an invariant).
type subject struct {
	dir   string
	cutAt time.Time
	// perMinute is the affected service's stored traces per minute before
	// the cut: dividing traffic is applied only where enough remains (≥ 4
	// traces a minute, the worlds' floor) for a baseline to exist at all;
	// the two hand-written incidents of 30 and 33 traces a minute are
	// subjects so that it applies at all (no world of the CI seeds stores 20).
	perMinute float64
	spans     int
	// first is the recording's first span: a cut at or before it is no cut.
	first time.Time
	// sparse marks a world drawn sparse (worldgen.SparseHistory: 3 hours,
	// sampled 1 in 16 to 64, 6 to 14 traces a minute stored): its sampling
	// is already at the generator's floor, and halving it again would leave
	// 3 to 7 traces a minute, outside every range the worlds are drawn from.
	sparse bool
}

// metamorphicSubjects picks incidents from the three corpora: drawn worlds
// (the onset is known), the hand-written ones and our own corpus (the onset
// is taken as at most 20 minutes before the alert, true of both).
func metamorphicSubjects(t *testing.T, scratch string) []subject {
	t.Helper()
	var subs []subject
	// One world of every class, at most three hours long, with at most one
	// variant; a deployment-class one must be an allow (a deny by the burn
	// rate or the scope is invariant for free).
	ws := worldgen.Generate(18, 120)
	picked := map[string]bool{}
	for _, w := range ws {
		// The false markers (issue 31) are a deny trap of their own
		// (falsemarker_test.go), not a subject of these invariances.
		w = w.WithoutFalseMarkers()
		deployment := slices.Contains([]string{"bad_release", "config_regression", "retry_storm", "prompt_regression"}, w.Class)
		if picked[w.Class] || len(w.Variants) > 1 || w.Duration() > 3*time.Hour || deployment && w.Expect.Verdict != "allow" {
			continue
		}
		picked[w.Class] = true
		require.NoError(t, worldgen.WriteOne(scratch, w))
		cut := w.Onset.Add(-20 * time.Minute)
		for _, d := range w.Deploys {
			if d.At.Before(cut) {
				cut = d.At.Add(-time.Minute)
			}
		}
		subs = append(subs, subject{dir: filepath.Join(scratch, w.ID), cutAt: cut, sparse: slices.Contains(w.Variants, worldgen.SparseHistory)})
	}
	for _, dir := range []string{
		filepath.Join(handwritten, "hw-canary-npe-pricing-engine"),
		filepath.Join(handwritten, "hw-retry-timeout-order-router"),
		filepath.Join(handwritten, "hw-newsletter-surge-storefront"),
		filepath.Join(handwritten, "hw-noisy-neighbour-thumbnailer"),
		filepath.Join(handwritten, "hw-vendor-quota-429-geocoder"),
		filepath.Join(corpus, "bad-release-01"),
		filepath.Join(corpus, "retry-storm-01"),
		filepath.Join(corpus, "dependency-outage-03-marker-other-service"),
	} {
		inc, err := incident.Load(dir)
		require.NoError(t, err)
		starts := alertStartsAt(t, inc)
		cut := starts.Add(-40 * time.Minute)
		for _, s := range inc.Spans {
			if s.Name == "deployment.marker" && s.Timestamp.Before(cut) {
				cut = s.Timestamp.Add(-time.Minute)
			}
		}
		subs = append(subs, subject{dir: dir, cutAt: cut})
	}
	for i := range subs {
		inc, err := incident.Load(subs[i].dir)
		require.NoError(t, err)
		subs[i].spans = len(inc.Spans)
		traces := map[string]bool{}
		first := inc.Spans[0].Timestamp
		subs[i].first = first
		for _, s := range inc.Spans {
			if s.Service() == inc.Meta.Service && s.Timestamp.Before(subs[i].cutAt.Add(20*time.Minute)) {
				traces[s.TraceID] = true
			}
		}
		if mins := subs[i].cutAt.Add(20 * time.Minute).Sub(first).Minutes(); mins > 0 {
			subs[i].perMinute = float64(len(traces)) / mins
		}
	}
	return subs
}

func alertStartsAt(t *testing.T, inc *incident.Incident) time.Time {
	t.Helper()
	var body struct {
		Alerts []struct {
			StartsAt time.Time `json:"startsAt"`
		} `json:"alerts"`
	}
	require.NoError(t, json.Unmarshal(inc.AlertJSON, &body))
	require.NotEmpty(t, body.Alerts)
	return body.Alerts[0].StartsAt
}

// transformsFor are the metamorphic transforms that apply to a subject.
func transformsFor(s subject) []metamorph.Transform {
	trs := []metamorph.Transform{
		metamorph.Extend(6*time.Hour, 10*time.Minute),
		metamorph.Semconv("new"),
		metamorph.Semconv("old"),
	}
	if s.cutAt.After(s.first) {
		// A recording that already starts less than 20 minutes before the
		// onset has nothing to cut: counting it would flatter the rate.
		trs = append(trs, metamorph.Cut(s.cutAt))
	}
	if s.spans < 6000 {
		trs = append(trs, metamorph.Multiply(10))
	}
	if s.perMinute >= 20 {
		trs = append(trs, metamorph.Sample(5, "traffic-div5"))
	}
	if s.perMinute >= 8 && !s.sparse {
		trs = append(trs, metamorph.Sample(2, "sampling-1in2"))
	}
	// Issue 35's shapes: they refuse (metamorph.ErrTransform) a recording
	// they cannot apply to (no failure to confine, no retried call).
	return append(trs, metamorph.OneOperation(), metamorph.RetriesInAttribute())
}

// TestMetamorphicInvariants: an incident's verdict and diagnosis do not
// change when its recording is cut to 20 minutes before the onset, extended
// with 6 hours of normal traffic, its traffic multiplied by 10 or divided
// by 5, its sampling halved, its attributes switched to the other
// semantic-convention generation, its failures confined to one operation of
// three, or its retried client calls folded into one span with a retry
// count (issue 35). It reports the invariance rate; a
// transformed incident is never rolled back where the original's answer is
// deny.
func TestMetamorphicInvariants(t *testing.T) {
	if testing.Short() {
		t.Skip("replays every incident under every transform; skipped with -short")
	}
	scratch := t.TempDir()
	subs := metamorphicSubjects(t, scratch)
	// AGENTK_METAMORPHIC_SUBJECTS=n keeps n subjects, evenly spaced across
	// the corpora (a quicker measurement on a loaded machine).
	if n, err := strconv.Atoi(os.Getenv("AGENTK_METAMORPHIC_SUBJECTS")); err == nil && n > 0 && n < len(subs) {
		var kept []subject
		for i := 0; i < n; i++ {
			kept = append(kept, subs[i*len(subs)/n])
		}
		subs = kept
	}
	// The originals are replayed once for the package (evalDirs): the
	// generalisation tests replayed the hand-written ones and the CI worlds
	// without a false marker already.
	var dirs []string
	pairs := map[string]string{} // transformed id → original id
	names := map[string]string{} // transformed id → transform name
	for _, s := range subs {
		orig, err := incident.LoadManifest(s.dir)
		require.NoError(t, err)
		dirs = append(dirs, s.dir)
		f, err := metamorph.Read(s.dir)
		require.NoError(t, err)
		for _, tr := range transformsFor(s) {
			g, err := tr.Apply(f)
			if errors.Is(err, metamorph.ErrTransform) && (tr.Name == "one-operation" || tr.Name == "retries-in-attribute") {
				continue
			}
			require.NoError(t, err, "%s %s", orig.Meta.ID, tr.Name)
			id := orig.Meta.ID + "--" + tr.Name
			dir, err := g.Write(scratch, id)
			require.NoError(t, err, "%s", id)
			dirs = append(dirs, dir) // evalDirs loads it: a transform that wrote an invalid incident fails there
			pairs[id], names[id] = orig.Meta.ID, tr.Name
		}
	}
	outs := evalDirs(t, dirs, evalInvestigators())
	byKey := map[string]replay.Outcome{}
	for _, o := range outs {
		require.Empty(t, o.Error, "%s %s", o.Investigator, o.Incident)
		require.False(t, o.BadRollback(), "%s %s: a bad rollback", o.Investigator, o.Incident)
		byKey[o.Investigator+"/"+o.Incident] = o
	}
	perTransform := map[string]*tally{}
	var broken, mustHold []string
	same, total := 0, 0
	for _, o := range outs {
		origID, ok := pairs[o.Incident]
		if !ok {
			continue
		}
		base := byKey[o.Investigator+"/"+origID]
		tl := perTransform[names[o.Incident]]
		if tl == nil {
			tl = &tally{}
			perTransform[names[o.Incident]] = tl
		}
		tl.total++
		total++
		if o.Verdict == base.Verdict && o.Diagnosis == base.Diagnosis {
			tl.same++
			same++
			continue
		}
		change := fmt.Sprintf("%s %s: %s/%s → %s/%s (failed %v)", o.Investigator, o.Incident,
			base.Diagnosis, base.Verdict, o.Diagnosis, o.Verdict, o.FailedChecks)
		broken = append(broken, change)
		if o.Verdict != base.Verdict || o.Investigator == "persona:oracle" {
			mustHold = append(mustHold, change)
		}
	}
	require.Positive(t, total)
	if os.Getenv("AGENTK_METAMORPHIC_SUBJECTS") == "" {
		// Every transform the issue names runs on some subject: traffic
		// divided by 5 needs 20 stored traces a minute.
		for _, name := range []string{"cut", "extend", "traffic-x10", "traffic-div5", "sampling-1in2", "semconv-new", "semconv-old", "one-operation", "retries-in-attribute"} {
			require.Contains(t, perTransform, name, "no subject was transformed by %s", name)
		}
	}
	var trNames []string
	for n := range perTransform {
		trNames = append(trNames, n)
	}
	slices.Sort(trNames)
	for _, n := range trNames {
		t.Logf("metamorphic %-16s %3d/%d invariant", n, perTransform[n].same, perTransform[n].total)
	}
	for _, b := range broken {
		t.Logf("changed: %s", b)
	}
	rate := float64(same) / float64(total)
	t.Logf("metamorphic invariance: %d/%d (%.1f%%) over %d incidents", same, total, 100*rate, len(subs))
	if path := os.Getenv("AGENTK_METAMORPHIC_REPORT"); path != "" {
		writeMetamorphicReport(t, path, trNames, perTransform, same, total, len(subs), broken)
	}
	// The verdicts and the evidence layer (the oracle's diagnosis) hold
	// always; the gap covers only the rules' diagnosis.
	require.Empty(t, mustHold, "verdicts and the oracle's diagnoses must not change")
	switch {
	case rate == 1 && metamorphicGap != "":
		t.Fatalf("the invariants hold 100%%: empty metamorphicGap")
	case rate < 1 && metamorphicGap != "":
		t.Skipf("metamorphic invariance %.1f%% (target 100%%), known gap: %s", 100*rate, metamorphicGap)
	default:
		require.Empty(t, broken)
	}
}

// tally counts the replays a transform left unchanged.
type tally struct{ same, total int }

func writeMetamorphicReport(t *testing.T, path string, names []string, per map[string]*tally, same, total, n int, broken []string) {
	t.Helper()
	var b []byte
	b = fmt.Appendf(b, "| transform | invariant |\n|---|---|\n")
	for _, name := range names {
		b = fmt.Appendf(b, "| %s | %d/%d |\n", name, per[name].same, per[name].total)
	}
	b = fmt.Appendf(b, "| **all** | **%d/%d (%.1f%%)** over %d incidents |\n\nChanged:\n\n", same, total, 100*float64(same)/float64(total), n)
	for _, x := range broken {
		b = fmt.Appendf(b, "- %s\n", x)
	}
	require.NoError(t, os.WriteFile(path, b, 0o644))
}
