package facts

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/signoz"
)

// NoMessage is the signature of an error span without a status message.
const NoMessage = "(no status message)"

var (
	hexRun   = regexp.MustCompile(`0[xX][0-9a-fA-F]+|\b[0-9a-fA-F]{8,}\b`)
	digitRun = regexp.MustCompile(`[0-9]+`)
)

// Signature folds a span status message into the failure it names: hex ids
// and digit runs become '#', space is trimmed, and it is cut to 120 bytes, so
// "timeout after 3012 ms (req 9f2c…)" and "timeout after 2998 ms (req 1a7e…)"
// are one failure.
func Signature(msg string) string {
	s := strings.TrimSpace(msg)
	if s == "" {
		return NoMessage
	}
	s = hexRun.ReplaceAllString(s, "#")
	s = digitRun.ReplaceAllString(s, "#")
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}

// VersionCounts reads the entry spans per minute (aggregation 0) by
// service.version: version → Unix milliseconds → count. It returns
// ErrBadResponse when resp is not a time series.
func VersionCounts(resp signoz.Response) (map[string]map[int64]float64, error) {
	out := map[string]map[int64]float64{}
	err := Samples(resp, LabelOf(contracts.VersionKeys...), func(v string, agg int, ts int64, n float64) {
		if agg != 0 {
			return
		}
		if out[v] == nil {
			out[v] = map[int64]float64{}
		}
		out[v][ts] += n
	})
	return out, err
}

// MinuteTotals sums counts (VersionCounts) per minute over every version
// but those of except: Unix milliseconds → count.
func MinuteTotals(counts map[string]map[int64]float64, except ...string) map[int64]float64 {
	out := map[int64]float64{}
	for v, byMinute := range counts {
		if slices.Contains(except, v) {
			continue
		}
		for ts, n := range byMinute {
			out[ts] += n
		}
	}
	return out
}

// VersionErrors is one minute's error spans of one version and signature.
type VersionErrors struct {
	Version, Signature string
	// TS is the minute, in Unix milliseconds; N the error spans in it.
	TS int64
	N  float64
}

// ErrorsBySignature reads the error spans per minute (aggregation 0) by
// service.version and status_message, each message folded by Signature;
// series without a version are dropped. It returns ErrBadResponse when resp
// is not a time series.
func ErrorsBySignature(resp signoz.Response) ([]VersionErrors, error) {
	var out []VersionErrors
	label := func(s signoz.Series) string {
		v := LabelOf(contracts.VersionKeys...)(s)
		if v == "" {
			return ""
		}
		return v + "\x00" + LabelOf("status_message")(s)
	}
	err := Samples(resp, label, func(g string, agg int, ts int64, n float64) {
		if agg == 0 {
			v, msg, _ := strings.Cut(g, "\x00")
			out = append(out, VersionErrors{Version: v, Signature: Signature(msg), TS: ts, N: n})
		}
	})
	return out, err
}

// RunningShare is the least share of the entry spans since the onset a
// version must serve to be the running release.
const RunningShare = 0.2

// Running is the running release: of the versions that served at least
// RunningShare of the entry spans from onset (Unix milliseconds) on, the one
// that first served latest (a canary or a rolling deploy serves beside the
// version it replaces, often less than it: st-canary-nil-map-cart-svc's 50%
// canary lost to its predecessor by a few requests when the version with
// most entry spans was taken); and the first minute it served. ok is false
// when no version served since the onset.
func Running(counts map[string]map[int64]float64, onset int64) (version string, first int64, ok bool) {
	total := 0.0
	since := map[string]float64{}
	firsts := map[string]int64{}
	for _, v := range sortedKeys(counts) {
		first := int64(math.MaxInt64)
		for ts, c := range counts[v] {
			if ts >= onset {
				since[v] += c
			}
			if c > 0 && ts < first {
				first = ts
			}
		}
		total += since[v]
		firsts[v] = first
	}
	best := ""
	for _, v := range sortedKeys(counts) {
		switch n := since[v]; {
		case n <= 0 || n < RunningShare*total:
		case best == "", firsts[v] > firsts[best], firsts[v] == firsts[best] && n > since[best]:
			best = v
		}
	}
	if best == "" {
		return "", 0, false
	}
	return best, firsts[best], true
}

// ReleaseErrors measures contracts.ReleaseErrors from the entry spans per
// minute by version (versions) and the error spans per minute by version
// and status message (errs); nil when no entry span has a service.version
// since onset. It returns ErrBadResponse when a response is not a time
// series.
func ReleaseErrors(versions, errs signoz.Response, onset time.Time) (*contracts.ReleaseErrors, error) {
	return releaseErrors(versions, errs, nil, onset)
}

// releaseErrors is ReleaseErrors with extra error rows (ReleaseErrorsWith).
func releaseErrors(versions, errs signoz.Response, extra []VersionErrors, onset time.Time) (*contracts.ReleaseErrors, error) {
	counts, err := VersionCounts(versions)
	if err != nil {
		return nil, err
	}
	errRows, err := ErrorsBySignature(errs)
	if err != nil {
		return nil, err
	}
	errRows = append(errRows, extra...)
	on := onset.UnixMilli()
	v, first, ok := Running(counts, on)
	if !ok {
		return nil, nil
	}
	r := &contracts.ReleaseErrors{Version: v, FirstSeen: time.UnixMilli(first).UTC()}
	history := map[int64]bool{}
	for _, byTs := range counts {
		for ts, c := range byTs {
			if ts < first && c > 0 {
				history[ts] = true
			}
		}
	}
	r.HistoryMinutes = len(history)
	for ver, byTs := range counts {
		for ts, c := range byTs {
			switch {
			case ts < on:
			case ver == v:
				r.Requests += int64(math.Round(c))
			default:
				r.OtherRequests += int64(math.Round(c))
			}
		}
	}
	tallyReleaseErrors(r, errRows, first, on)
	return r, nil
}

// tallyReleaseErrors counts the errors before the release, and the running
// version's since the onset by signature; the most frequent signature the
// history never showed is the release's new failure.
func tallyReleaseErrors(r *contracts.ReleaseErrors, rows []VersionErrors, first, on int64) {
	seen := map[string]bool{}
	for _, e := range rows {
		if e.TS < first {
			seen[e.Signature] = true
			r.HistoryErrors += int64(math.Round(e.N))
		}
	}
	fresh := map[string]float64{}
	other := map[string]float64{}
	for _, e := range rows {
		switch {
		case e.TS < on:
		case e.Version == r.Version:
			r.Errors += int64(math.Round(e.N))
			if !seen[e.Signature] {
				fresh[e.Signature] += e.N
			}
		default:
			other[e.Signature] += e.N
		}
	}
	for _, sig := range sortedKeys(fresh) {
		if n := int64(math.Round(fresh[sig])); n > r.NewErrors {
			r.NewSignature, r.NewErrors = sig, n
		}
	}
	r.OtherNewErrors = int64(math.Round(other[r.NewSignature]))
}
