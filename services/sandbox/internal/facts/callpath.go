package facts

import (
	"net/url"
	"regexp"
	"strings"

	"agentk/platform/mutant"
)

// A release that calls a route its callee never served before (a void of
// holds it never placed, a new endpoint of the next API version) fails on
// that route alone, and an HTTP client span often names its call only by
// its URL: "POST" as its name, url.full "http://ledger-svc:8080/holds/void"
// (e2e/incidents-sparse's sp-gateway-voids-failed-holds). The URL is a
// call key only once its request-specific parts are gone: CallPath keeps
// its path, with every segment that names one request, not a kind of call
// (a number, a UUID, a hash), written {id}, and no query string.
//
// A path that still names requests (a slug, a search term) would make an
// outage of an old route read as the release's new calls (every slug
// since the onset unseen before). ManyPaths refuses such a key: a call key
// names kinds of calls, so a peer's paths, over both sides of the onset,
// must be few against its calls.

// MaxCallPaths is the most distinct paths (CallPath) a peer's calls may
// have for the path to be read as their call key; MaxCallPathShare the
// most, as a share of the calls (a handful of calls of as many paths say
// nothing about kinds).
const (
	MaxCallPaths     = 24
	MaxCallPathShare = 0.2
)

var (
	idSegment  = regexp.MustCompile(`^(?:\d+|[0-9a-fA-F]{8}(?:-?[0-9a-fA-F]{4}){3}-?[0-9a-fA-F]{12}|[0-9a-fA-F]{12,}|[A-Za-z0-9_-]*\d[A-Za-z0-9_-]*)$`)
	apiVersion = regexp.MustCompile(`^v\d+(?:\.\d+)*$`)
)

// CallPath is the call key of a URL (url.full, http.url) or a path: its
// path with one request's parts written {id}; "" when raw is no URL.
func CallPath(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || raw == "" {
		return ""
	}
	p := u.Path
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if s != "" && !apiVersion.MatchString(s) && idSegment.MatchString(s) {
			segs[i] = "{id}"
		}
	}
	return strings.Join(segs, "/")
}

// ManyPaths reports whether a peer's calls keyed by path (byPath: path →
// calls) have too many paths to be kinds of calls: more than MaxCallPaths,
// or more than MaxCallPathShare of the calls on both sides.
func ManyPaths(byPath map[string]*PeerCall) bool {
	if mutant.Off(mutant.SandboxCallPathKinds) {
		return false
	}
	calls := 0.0
	for _, pc := range byPath {
		calls += pc.BaseCalls + pc.Calls
	}
	n := float64(len(byPath))
	return n > MaxCallPaths || n > MaxCallPathShare*calls
}
