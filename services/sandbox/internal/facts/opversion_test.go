package facts

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// versionWorld is a thin operation (one span a minute, 3 h of clean
// history on v1) whose spans stop gapFrom before the release, R (v2's first
// span anywhere in the service), and fail on v2 from a minute after it to
// the alert (synthEnd), with a status the history never showed; errs adds
// errors of v1 at the minutes given, each in the gap, with its signature.
type versionWorld struct {
	gap            time.Duration
	v2FirstSeen    time.Duration // before R: a version that served long before
	oldErrors      map[time.Duration]string
	knownElsewhere string // a signature another operation showed in the baseline
}

const versionOp = "SELECT accounts.orders Client"

func (w versionWorld) draw() (map[string][]Minute, *OpVersions, time.Time) {
	release := synthEnd.Add(-10 * time.Minute)
	var ms []Minute
	vs := &OpVersions{firstServed: map[string]int64{"v1": synthEnd.Add(-5 * time.Hour).UnixMilli(), "v2": release.Add(-w.v2FirstSeen).UnixMilli()},
		errs: map[string][]VersionErrors{}}
	if w.knownElsewhere != "" {
		vs.errs["GET /api/quote Server"] = []VersionErrors{{Version: "v1", Signature: Signature(w.knownElsewhere), TS: release.Add(-2 * time.Hour).UnixMilli(), N: 1}}
	}
	for t := synthEnd.Add(-3 * time.Hour); t.Before(synthEnd.Add(2 * time.Minute)); t = t.Add(time.Minute) {
		switch {
		case t.Before(release.Add(-w.gap)):
			ms = append(ms, Minute{At: t, Requests: 1, P95Ms: 20})
		case t.After(release):
			ms = append(ms, Minute{At: t, Requests: 1, Errors: 1, P95Ms: 20})
			vs.errs[versionOp] = append(vs.errs[versionOp], VersionErrors{Version: "v2", Signature: Signature(`FATAL: password authentication failed for user "accounts_app"`), TS: t.UnixMilli(), N: 1})
		}
	}
	for d, sig := range w.oldErrors {
		at := release.Add(-d)
		ms = append(ms, Minute{At: at, Requests: 1, Errors: 1, P95Ms: 20})
		vs.errs[versionOp] = append(vs.errs[versionOp], VersionErrors{Version: "v1", Signature: Signature(sig), TS: at.UnixMilli(), N: 1})
	}
	return map[string][]Minute{versionOp: ms}, vs, release
}

// TestVersionPlacedMovesPastAGapToTheNewVersion is corner s1818-c04: a thin
// operation's last good span 4 min before the release, its first failure
// (a status the history never showed, on the new version) a minute after.
// From its own series the onset may lie anywhere in the gap, and FindOnset
// places it at the gap's start, before the release; every error since is of
// a version that first served at the release, so the onset moves there.
func TestVersionPlacedMovesPastAGapToTheNewVersion(t *testing.T) {
	ops, vs, release := versionWorld{gap: 4 * time.Minute}.draw()
	plain := OperationDepartures(ops, nil, synthEnd, DefaultMargins)
	require.Len(t, plain, 1)
	require.True(t, plain[0].on.At.Before(release), "without the versions the onset lies in the gap, before the release: %v", plain[0].on.At)
	deps := OperationDeparturesBy(ops, nil, vs, synthEnd, DefaultMargins)
	require.Len(t, deps, 1)
	require.Equal(t, release, *deps[0].on.At, deps[0].on.Signatures)
	require.NotEmpty(t, deps[0].on.Signatures)
}

// TestVersionPlacedGuards: the onset stays where the operation's own series
// put it whenever something in the gap, or a version that served before,
// could be the regression's start. "a new signature on the old version" is
// a real early failure of a status never seen, before the release: it keeps
// the onset before the release (red with mutant
// sandbox.operation_version_bound, which bounds the onset by the version
// with most new errors and lets new errors before it pass).
func TestVersionPlacedGuards(t *testing.T) {
	cases := []struct {
		name string
		w    versionWorld
	}{
		{"a new signature on the old version before the release", versionWorld{gap: 8 * time.Minute, oldErrors: map[time.Duration]string{6 * time.Minute: "timeout talking to accounts-db", 4 * time.Minute: "timeout talking to accounts-db"}}},
		{"a known signature rising on the old version before the release", versionWorld{gap: 8 * time.Minute, knownElsewhere: "internal error",
			oldErrors: map[time.Duration]string{6 * time.Minute: "internal error", 5 * time.Minute: "internal error", 4 * time.Minute: "internal error"}}},
		{"the new version served long before (a stale marker)", versionWorld{gap: 4 * time.Minute, v2FirstSeen: 50 * time.Minute}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ops, vs, release := c.w.draw()
			plain := OperationDepartures(ops, nil, synthEnd, DefaultMargins)
			require.Len(t, plain, 1)
			deps := OperationDeparturesBy(ops, nil, vs, synthEnd, DefaultMargins)
			require.Len(t, deps, 1)
			require.Equal(t, plain[0].on.At, deps[0].on.At, deps[0].on.Signatures)
			require.True(t, deps[0].on.At.Before(release), "onset %v", deps[0].on.At)
			require.Empty(t, deps[0].on.Signatures)
		})
	}
}

// TestVersionPlacedLeavesOtherOnsets: latency onsets, operations the
// versions' answers do not name, and a refused query move nothing.
func TestVersionPlacedLeavesOtherOnsets(t *testing.T) {
	ops, vs, _ := versionWorld{gap: 4 * time.Minute}.draw()
	on := FindOnset(ops[versionOp], synthEnd, DefaultMargins)
	require.NotNil(t, on.At)
	p95 := on
	p95.Signal = "p95"
	require.Equal(t, p95, VersionPlaced(versionOp, ops[versionOp], p95, vs, synthEnd, DefaultMargins))
	require.Equal(t, on, VersionPlaced("route /api/quote", ops[versionOp], on, vs, synthEnd, DefaultMargins))
	require.Equal(t, on, VersionPlaced(versionOp, ops[versionOp], on, nil, synthEnd, DefaultMargins))
}
