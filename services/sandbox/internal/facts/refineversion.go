package facts

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"agentk/platform/mutant"
)

// A failure confined to a version that began serving inside the onset's
// window (issue 35; e2e/incidents-heldout8's qh8-canary-panic-transfers-
// ledger-rs: an Argo canary at weight 25 panics on 60% of its POST
// /v1/transfers while the stable version answers the same route cleanly).
// The bucket's refinement (RefineOnset) weighs every span of the window as
// evidence of the baseline; a canary's few failing spans among the stable
// version's many clean ones put the onset near the bucket's start, seconds
// before the canary served anything, and its right rollback read as a
// release after the onset.
//
// A regression that only one version shows cannot have begun before that
// version served. That is drawn only where the spans show it, on the
// operations that fail: since the window's first span off the baseline,
// every span off is of one version V; the other versions' spans of the same
// operations, in that stretch, are on the baseline, and so many of them
// that a failure shared by every version would have left them all clean
// with chance at most ConfinedAlpha; and V served no entry span before the
// onset's minute (versions), so that its first span in the window is where
// it began to serve. The onset is then refined over V's spans of those
// operations, from V's first span on: never earlier than the refinement
// over every span, never past V's first span off the baseline nor out of
// the onset's first bucket. A recreate
// (no other version serving once V does), an old version serving only other
// operations, or an old version failing too leaves the onset as it was.
//
// The gate still measures the ledger's start of the release against the
// onset: a span that claims V before Docker started it moves nothing past
// Docker's time.

// ConfinedAlpha is the largest chance, were the failure every version's
// alike, that every span off of the failing operations falls among V's:
// for k requests off among V's n and m clean requests of the other
// versions, C(n, k) / C(n+m, k) (Fisher's exact test, one-sided; no share
// of V's is estimated, so three failures of three canary requests weigh as
// three). Requests, not spans: the attempts of one retried request are one
// observation.
const ConfinedAlpha = 0.01

// Confinement is the tally behind RefineByVersion.
type Confinement struct {
	// Version is the version every span off belongs to; Ops the operations
	// of its spans off.
	Version string
	Ops     []string
	// Requests and Off are V's requests of Ops since the first span off
	// (versionRequests), and how many are off; Others the other versions'
	// requests of Ops there (none off); Chance is ConfinedAlpha's test's.
	Requests, Off, Others int
	Chance                float64
	// Since is V's first span in the window.
	Since time.Time
}

// Confined tallies the failure of marks (sorted, from on.At) by version;
// ok is false unless it is confined to one version as the comment above
// says. served reports whether a version served an entry span before the
// onset's minute.
func Confined(marks []SpanMark, served func(version string) bool) (Confinement, bool) {
	first := slices.IndexFunc(marks, func(m SpanMark) bool { return m.Off })
	if first < 0 || marks[first].Version == "" {
		return Confinement{}, false
	}
	c := Confinement{Version: marks[first].Version}
	for _, m := range marks[first:] {
		if m.Off && m.Version != c.Version {
			return Confinement{}, false
		}
		if m.Off {
			c.Ops = AppendNew(c.Ops, m.Ops...)
		}
	}
	for _, m := range versionRequests(marks[first:], c.Ops) {
		switch m.Version {
		case c.Version:
			c.Requests++
			if m.Off {
				c.Off++
			}
		case "":
		default:
			c.Others++
		}
	}
	c.Since = marks[slices.IndexFunc(marks, func(m SpanMark) bool { return m.Version == c.Version })].At
	c.Chance = 1
	for i := 0; i < c.Off; i++ {
		c.Chance *= float64(c.Requests-i) / float64(c.Requests+c.Others-i)
	}
	newVersion := !served(c.Version) || mutant.Off(mutant.SandboxVersionOnsetNew)
	clean := c.Chance <= ConfinedAlpha || mutant.Off(mutant.SandboxVersionOnsetOthers)
	return c, newVersion && clean && c.Others > 0
}

// RefineByVersion is on (bucket, the onset before refinement, refined
// already) or, where the failure since the
// window's first span off is confined to a version that began serving in
// the window (Confined), the refinement over that version's spans of the
// failing operations from its first span, when that is later and still
// inside bucket's first bucket; over spans and over requests, the
// earlier of the two kept (RefineOnset). A pooled onset (Onset.Pooled,
// which RefineOnset leaves) is moved too: the bucket bound keeps it from
// passing a departure found in a later bucket.
func RefineByVersion(bucket, on Onset, marks []SpanMark, served func(version string) bool) Onset {
	if on.At == nil || bucket.At == nil || mutant.Off(mutant.SandboxVersionOnset) {
		return on
	}
	c, ok := Confined(marks, served)
	if !ok {
		return on
	}
	var sel []SpanMark
	for _, m := range marks {
		if m.Version == c.Version && sharesOp(m, c.Ops) {
			sel = append(sel, m)
		}
	}
	from := on
	start := maxTime(*on.At, c.Since)
	from.At = &start
	by := earlierOnset(refineOver(from, sel, "span"), refineOver(from, PerTrace(sel), "request"))
	end := bucket.At.Add(time.Duration(max(1, bucket.BucketMinutes)) * time.Minute)
	if by.At == nil || !by.At.After(*on.At) || !by.At.Before(end) && !mutant.Off(mutant.SandboxVersionOnsetBucket) {
		return on
	}
	by.Refined = strings.TrimPrefix(fmt.Sprintf("%s; placed over version %q's spans of %s from its first at %s: every span off since the first is of that version, which served no entry span before the onset's minute, and the other versions' %d requests of those operations there were on the baseline while %d of its %d were off (chance %s were the failure every version's)",
		strings.TrimSuffix(by.Refined, "."), c.Version, strings.Join(c.Ops, ", "), c.Since.UTC().Format(time.RFC3339Nano), c.Others, c.Off, c.Requests, fmtF(c.Chance)), "; ")
	return by
}

// ServedBefore reports, for RefineByVersion, whether a version served an
// entry span in a minute before at (counts: VersionCounts). Counts that
// could not be read (nil) say every version served: nothing is confined.
func ServedBefore(counts map[string]map[int64]float64, at time.Time) func(version string) bool {
	return func(v string) bool {
		if counts == nil {
			return true
		}
		for ts, n := range counts[v] {
			if n > 0 && ts < at.UnixMilli() {
				return true
			}
		}
		return false
	}
}

// versionRequests are the requests of marks on ops, one mark each (PerTrace)
// for every trace and version: the attempts of one request (a client span
// each) are no independent observations, and a request that reached two
// versions counts once for each.
func versionRequests(marks []SpanMark, ops []string) []SpanMark {
	var sel []SpanMark
	for _, m := range marks {
		if !sharesOp(m, ops) {
			continue
		}
		if m.Trace != "" && !mutant.Off(mutant.SandboxVersionOnsetRequests) {
			m.Trace += "\x00" + m.Version
		} else {
			m.Trace = ""
		}
		sel = append(sel, m)
	}
	return PerTrace(sel)
}

// sharesOp reports whether m belongs to one of ops.
func sharesOp(m SpanMark, ops []string) bool {
	return slices.ContainsFunc(m.Ops, func(o string) bool { return slices.Contains(ops, o) })
}

// AppendNew appends the elements of add that to does not hold yet.
func AppendNew(to []string, add ...string) []string {
	for _, a := range add {
		if !slices.Contains(to, a) {
			to = append(to, a)
		}
	}
	return to
}
