package tools

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/signoz"
)

// Entry spans are where a request enters the service: OpenTelemetry span
// kinds server (2) and consumer (5). Client spans (3) are its calls out.
const (
	entrySpans  = "kind IN (2, 5)"
	clientSpans = "kind = 3"
)

// PeerKeys are the attributes of a client span that name the host it
// called: the stable semantic conventions' server.address and the older
// net.peer.name. SigNoz groups only spans that carry the key, so each is
// queried on its own. The logical peer.service is not one: a release that
// points the same peer.service at another host changed the dependency.
var PeerKeys = []string{"server.address", "net.peer.name"}

// noMessage is the signature of an error span without a status message.
const noMessage = "(no status message)"

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
		return noMessage
	}
	s = hexRun.ReplaceAllString(s, "#")
	s = digitRun.ReplaceAllString(s, "#")
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}

// versionCounts reads entry spans per minute by service.version.
func versionCounts(resp signoz.Response) (map[string]map[int64]float64, error) {
	out := map[string]map[int64]float64{}
	err := samples(resp, labelOf("service.version"), func(v string, agg int, ts int64, n float64) {
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

// versionErrors is one minute's error spans of one version and signature.
type versionErrors struct {
	version, signature string
	ts                 int64
	n                  float64
}

func errorsBySignature(resp signoz.Response) ([]versionErrors, error) {
	var out []versionErrors
	label := func(s signoz.Series) string {
		v := labelOf("service.version")(s)
		if v == "" {
			return ""
		}
		return v + "\x00" + labelOf("status_message")(s)
	}
	err := samples(resp, label, func(g string, agg int, ts int64, n float64) {
		if agg == 0 {
			v, msg, _ := strings.Cut(g, "\x00")
			out = append(out, versionErrors{version: v, signature: Signature(msg), ts: ts, n: n})
		}
	})
	return out, err
}

// RunningShare is the least share of the entry spans since the onset a
// version must serve to be the running release.
const RunningShare = 0.2

// running is the running release: of the versions that served at least
// RunningShare of the entry spans from the onset on, the one that first
// served latest (a canary or a rolling deploy serves beside the version it
// replaces, often less than it: st-canary-nil-map-cart-svc's 50% canary lost
// to its predecessor by a few requests when the version with most entry
// spans was taken); and the first minute it served.
func running(counts map[string]map[int64]float64, onset int64) (string, int64, bool) {
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

// releaseErrors measures contracts.ReleaseErrors from the entry spans by
// version and the error spans by version and status message; nil when no
// entry span has a service.version since the onset.
func releaseErrors(versions, errs signoz.Response, onset time.Time) (*contracts.ReleaseErrors, error) {
	counts, err := versionCounts(versions)
	if err != nil {
		return nil, err
	}
	errRows, err := errorsBySignature(errs)
	if err != nil {
		return nil, err
	}
	on := onset.UnixMilli()
	v, first, ok := running(counts, on)
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
func tallyReleaseErrors(r *contracts.ReleaseErrors, rows []versionErrors, first, on int64) {
	seen := map[string]bool{}
	for _, e := range rows {
		if e.ts < first {
			seen[e.signature] = true
			r.HistoryErrors += int64(math.Round(e.n))
		}
	}
	fresh := map[string]float64{}
	other := map[string]float64{}
	for _, e := range rows {
		switch {
		case e.ts < on:
		case e.version == r.Version:
			r.Errors += int64(math.Round(e.n))
			if !seen[e.signature] {
				fresh[e.signature] += e.n
			}
		default:
			other[e.signature] += e.n
		}
	}
	for _, sig := range sortedKeys(fresh) {
		if n := int64(math.Round(fresh[sig])); n > r.NewErrors {
			r.NewSignature, r.NewErrors = sig, n
		}
	}
	r.OtherNewErrors = int64(math.Round(other[r.NewSignature]))
}

// failingDependencies lists the peers of the service's client spans that
// were called before the onset, are called since at no more than
// contracts.DependencyCallRatio of their baseline rate, and whose client
// spans' error rate left its baseline within CoRegressionWindow of the
// service's onset (FindOnset on the peer's own series).
func failingDependencies(byPeer map[string][]Minute, alertAt time.Time, on Onset) []string {
	var out []string
	for _, peer := range sortedKeys(byPeer) {
		ms := byPeer[peer]
		o := FindOnset(ms, alertAt, DefaultMargins)
		if o.At == nil || o.Signal != "error_rate" {
			continue
		}
		if d := o.At.Sub(*on.At); d < -CoRegressionWindow || d > CoRegressionWindow {
			continue
		}
		if r := trafficRatio(ms, o.BaselineFrom, *o.At); r != nil && *r <= contracts.DependencyCallRatio {
			out = append(out, peer)
		}
	}
	return out
}

// peerSeries reads the client spans' series by peer: resps are, for each of
// PeerKeys in order, the count/p95 series and the error series grouped by
// that key; a peer named under an earlier key is not read again.
func peerSeries(resps []signoz.Response) (map[string][]Minute, error) {
	byPeer := map[string][]Minute{}
	for i, key := range PeerKeys {
		by, err := perMinuteGrouped(resps[2*i], resps[2*i+1], labelOf(key))
		if err != nil {
			return nil, err
		}
		for peer, ms := range by {
			if _, dup := byPeer[peer]; !dup {
				byPeer[peer] = ms
			}
		}
	}
	return byPeer, nil
}

// peakCalls is the peer whose call rate rose most from the service's
// baseline to the onset on, and that ratio; nil for no peer called in the
// baseline.
func peakCalls(byPeer map[string][]Minute, on Onset) (*float64, string) {
	var best *float64
	var peer string
	for _, p := range sortedKeys(byPeer) {
		if r := trafficRatio(byPeer[p], on.BaselineFrom, *on.At); r != nil && (best == nil || *r > *best) {
			best, peer = r, p
		}
	}
	return best, peer
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// releaseLine says what the release comparison measured, for the model and
// the human.
func releaseLine(r *contracts.ReleaseErrors) string {
	if r == nil {
		return "errors by service.version: no entry span since the onset carries service.version"
	}
	s := fmt.Sprintf("errors by service.version: %s first served at %s after %d min of earlier history (%d error spans); since the onset %d requests, %d errors",
		compact.Quote(r.Version), r.FirstSeen.Format(time.RFC3339), r.HistoryMinutes, r.HistoryErrors, r.Requests, r.Errors)
	if r.NewSignature != "" {
		s += fmt.Sprintf(", %d with a status the history never showed (%s)", r.NewErrors, compact.Quote(r.NewSignature))
	} else {
		s += ", none with a status the history never showed"
	}
	if r.OtherRequests > 0 {
		s += fmt.Sprintf("; other versions since the onset: %d requests, %d of those errors", r.OtherRequests, r.OtherNewErrors)
	}
	return s
}
