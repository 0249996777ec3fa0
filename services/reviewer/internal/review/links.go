package review

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// ErrLink is wrapped by every reason a link is not a SigNoz route.
var ErrLink = errors.New("review: not a SigNoz route")

// Routes are SigNoz's front-end routes an evidence link may point at. SigNoz
// is a single-page app: it answers 200 for every path, so only this table
// tells a real route from a typo.
var Routes = []string{
	"/traces-explorer",
	"/trace/:id",
	"/logs/logs-explorer",
	"/services/:name",
	"/alerts/overview?ruleId=",
	"/dashboard/:id",
	"/metrics-explorer/explorer",
}

var param = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._~-]{0,252}$`)

// MatchRoute reports which route of Routes link is, under base (scheme,
// host, port and path prefix must be base's). Extra path segments, a
// trailing slash, user info, encoded slashes, dot segments and unknown
// paths are all rejected.
func MatchRoute(base *url.URL, link string) (string, error) {
	u, err := url.Parse(link)
	if err != nil {
		return "", fmt.Errorf("%w: %q does not parse", ErrLink, link)
	}
	segs, err := pathUnder(base, u, link)
	if err != nil {
		return "", err
	}
	q := u.Query()
	for _, r := range Routes {
		path, query, _ := strings.Cut(r, "?")
		if !segmentsMatch(strings.Split(strings.TrimPrefix(path, "/"), "/"), segs) {
			continue
		}
		if name, _, found := strings.Cut(query, "="); found && !param.MatchString(q.Get(name)) {
			return "", fmt.Errorf("%w: %q needs a %s parameter", ErrLink, link, name)
		}
		return r, nil
	}
	return "", fmt.Errorf("%w: %q matches none of SigNoz's routes", ErrLink, link)
}

// pathUnder returns u's path segments below base's path, refusing a link to
// another origin, with user info, an opaque part, an encoded path, or an
// empty or dot segment.
func pathUnder(base, u *url.URL, link string) ([]string, error) {
	if u.Scheme != base.Scheme || !strings.EqualFold(u.Hostname(), base.Hostname()) || port(u) != port(base) {
		return nil, fmt.Errorf("%w: %q is not under the configured SigNoz %s", ErrLink, link, origin(base))
	}
	if u.User != nil || u.Opaque != "" {
		return nil, fmt.Errorf("%w: %q has user info or an opaque part", ErrLink, link)
	}
	if u.RawPath != "" && u.RawPath != u.Path {
		return nil, fmt.Errorf("%w: %q has an encoded path", ErrLink, link)
	}
	prefix := strings.TrimSuffix(base.Path, "/")
	if !strings.HasPrefix(u.Path, prefix+"/") {
		return nil, fmt.Errorf("%w: %q is not under base path %q", ErrLink, link, prefix+"/")
	}
	segs := strings.Split(strings.TrimPrefix(u.Path, prefix+"/"), "/")
	for _, s := range segs {
		if s == "" || s == "." || s == ".." {
			return nil, fmt.Errorf("%w: %q has an empty or dot path segment", ErrLink, link)
		}
	}
	return segs, nil
}

// segmentsMatch reports whether path segments segs fit a route's segments
// want, where :name takes one parameter-shaped segment.
func segmentsMatch(want, segs []string) bool {
	if len(want) != len(segs) {
		return false
	}
	for i, w := range want {
		if strings.HasPrefix(w, ":") {
			if !param.MatchString(segs[i]) {
				return false
			}
		} else if w != segs[i] {
			return false
		}
	}
	return true
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch u.Scheme {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }
