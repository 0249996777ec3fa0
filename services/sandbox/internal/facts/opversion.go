package facts

import (
	"fmt"
	"math"
	"time"

	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// An operation's onset is placed from its own series, and a thin operation
// (a span a minute or less) is judged over wide buckets: its onset may be a
// whole bucket before its first error (FindOnset errs early), and its
// refinement cannot move it later where the operation had no span at all in
// between. A deploy inside that gap then looks as if it came after the
// regression it caused (corner s1818-c04: the operation's last good span at
// 23:09:47, its first failure at 23:13:37, the marker at 23:11:32, the new
// version's first span at 23:12). The versions tell what the margins cannot:
// an error of a version cannot happen before that version served its first
// span, so where every error of the departure is of a pair of version and
// status signature the service never showed before the onset, the onset
// moves to the first minute the earliest of those versions served, and no
// later (VersionPlaced).

// OpVersions is what opVersionQueries' answers say: the first minute each
// version served a span (unix ms), and the errors of each operation ("name
// KIND", as operationSeries names it) by version and signature.
type OpVersions struct {
	firstServed map[string]int64
	errs        map[string][]VersionErrors
}

// ReadOpVersions reads tools' opVersionQueries' answers; nil when SigNoz refused
// either (then no onset moves).
func ReadOpVersions(all, errs signoz.Response) (*OpVersions, error) {
	if all.Refused != "" || errs.Refused != "" {
		return nil, nil
	}
	v := &OpVersions{firstServed: map[string]int64{}, errs: map[string][]VersionErrors{}}
	label := func(s signoz.Series) string {
		op, ver := LabelJoin("name", "kind_string")(s), LabelOf("service.version")(s)
		if op == "" || ver == "" {
			return ""
		}
		return op + "\x00" + ver + "\x00" + LabelOf("status_message")(s)
	}
	err := Samples(all, label, func(g string, agg int, ts int64, n float64) {
		if agg != 0 || n <= 0 {
			return
		}
		ver := splitLabel(g)[1]
		if first, ok := v.firstServed[ver]; !ok || ts < first {
			v.firstServed[ver] = ts
		}
	})
	if err != nil {
		return nil, err
	}
	err = Samples(errs, label, func(g string, agg int, ts int64, n float64) {
		if agg != 0 || n <= 0 {
			return
		}
		p := splitLabel(g)
		v.errs[p[0]] = append(v.errs[p[0]], VersionErrors{Version: p[1], Signature: Signature(p[2]), TS: ts, N: n})
	})
	return v, err
}

func splitLabel(g string) [3]string {
	var out [3]string
	for i := range out {
		j := 0
		for j < len(g) && g[j] != 0 {
			j++
		}
		out[i] = g[:j]
		if j < len(g) {
			g = g[j+1:]
		} else {
			g = ""
		}
	}
	return out
}

// VersionPlaced returns on, or on moved later to the first minute the
// earliest version among the departure's new errors served. ms is operation
// op's series; vs the versions' answers. It moves on only when all of these
// hold, and otherwise returns on as it is:
//
//   - on is an error-rate onset of an operation vs has the errors of;
//   - the errors of op from on to the alert of pairs of version and status
//     signature that no error span of the service (any operation) showed
//     before on (fresh pairs) are of versions whose first span is known;
//     the onset moves to the first minute the earliest of them served, t,
//     and t is after on;
//   - no error of a fresh pair is counted before t (an error of a new
//     signature on the old version, or on a version that served before the
//     marker, keeps the onset where it began);
//   - from t on, PooledMinErrors errors or more are of status signatures the
//     service never showed before on (SignatureOnset's condition);
//   - the rest of op's errors (every signature seen before on), judged by
//     FindOnset with the same margins, show no departure before t, on a
//     baseline long enough to say so (restDepartsBefore), and between on and t are no more than their rate
//     before on gives (backgroundBetween).
//
// Between on and t, then, op showed only its background, and every error
// since is of a version that had not served before t: nothing in the data
// says the regression began before t. A signal may move an onset later only
// this far (DESIGN rule 16).
func VersionPlaced(op string, ms []Minute, on Onset, vs *OpVersions, alertAt time.Time, m Margins) Onset {
	if on.At == nil || on.Signal != "error_rate" || vs == nil || vs.errs[op] == nil {
		return on
	}
	errs, seen := versionErrorsAround(op, vs, on.At.UnixMilli())
	split := splitSignatures(ms, errs, *on.At)
	t, ok := firstNewVersionServed(op, vs, seen, on.At.UnixMilli(), alertAt)
	if !ok {
		return on
	}
	moved := time.UnixMilli(t).UTC()
	if !mutant.Off(mutant.SandboxOperationVersionBound) && freshErrorBefore(split.fresh, *on.At, moved) {
		return on
	}
	novel, sigs := split.novelSince(moved)
	if novel < PooledMinErrors {
		return on
	}
	if restDepartsBefore(split.rest, moved, alertAt, m) {
		return on
	}
	if k, lambda := backgroundBetween(split.rest, *on.At, moved); k-1 > lambda {
		return on
	}
	on.Signatures = fmt.Sprintf("moved from %s: %s errors of %d status signatures the history never showed since, every new error of a version first served at %s or later; the operation's errors of known signatures show no departure",
		on.At.Format(time.RFC3339), fmtF(novel), sigs, moved.Format(time.RFC3339))
	on.At = &moved
	return on
}

// versionErrorsAround returns the (version, signature) errors seen before
// at anywhere in the service, then op's own errors from at on, and the
// pairs seen before at.
func versionErrorsAround(op string, vs *OpVersions, at int64) ([]VersionErrors, map[string]bool) {
	var errs []VersionErrors
	for _, es := range vs.errs {
		for _, e := range es {
			if e.TS < at {
				errs = append(errs, e)
			}
		}
	}
	for _, e := range vs.errs[op] {
		if e.TS >= at {
			errs = append(errs, e)
		}
	}
	seen := map[string]bool{}
	for _, e := range errs {
		if e.TS < at {
			seen[e.Version+"\x00"+e.Signature] = true
		}
	}
	return errs, seen
}

// firstNewVersionServed is when the earliest version among op's errors of
// a new pair (from at to the alert) first served; false when there is none,
// a version's first minute is unknown, or it is not after at.
func firstNewVersionServed(op string, vs *OpVersions, seen map[string]bool, at int64, alertAt time.Time) (int64, bool) {
	t, most, mostN := int64(math.MaxInt64), int64(0), 0.0
	byVersion := map[string]float64{}
	for _, e := range vs.errs[op] {
		if e.TS < at || e.TS > alertAt.UnixMilli() || seen[e.Version+"\x00"+e.Signature] {
			continue
		}
		first, ok := vs.firstServed[e.Version]
		if !ok {
			return 0, false
		}
		t = min(t, first)
		if byVersion[e.Version] += e.N; byVersion[e.Version] > mostN {
			most, mostN = first, byVersion[e.Version]
		}
	}
	if mutant.Off(mutant.SandboxOperationVersionBound) {
		// The mutant: the version with most new errors, earlier ones ignored.
		t = most
	}
	return t, t != math.MaxInt64 && t > at
}

// freshErrorBefore reports an error of a new pair from onset until moved:
// the onset may not move past it.
func freshErrorBefore(fresh []Minute, onset, moved time.Time) bool {
	for _, x := range fresh {
		if x.Errors > 0 && !x.At.Before(onset) && x.At.Before(moved) {
			return true
		}
	}
	return false
}
