package config

import (
	"fmt"
	"net/url"
	"strings"
)

// The SigNoz variables every service reads through SigNozLinkBase. They are
// declared once here: the sandbox builds its evidence links under the link
// base, and the reviewer keeps only the claims whose links are under it, so
// the two must read the same value (issue 19: the reviewer defaulted to
// localhost while the sandbox used AGENTK_SIGNOZ_URL, and every claim was
// dropped).
const (
	// EnvSigNozURL is where the SigNoz API is (the sandbox queries it).
	EnvSigNozURL = "AGENTK_SIGNOZ_URL"
	// EnvSigNozBaseURL is the SigNoz that humans click through to, when it
	// is not EnvSigNozURL (a proxy, a public name). Optional.
	EnvSigNozBaseURL = "AGENTK_SIGNOZ_BASE_URL"
	// DefaultSigNozURL is SigNoz's own port (8080; 3301 was the old UI).
	DefaultSigNozURL = "http://localhost:8080"
)

// SigNozLinkBase returns the one base URL under which every link to SigNoz
// is built and checked: AGENTK_SIGNOZ_BASE_URL when set, else
// AGENTK_SIGNOZ_URL, else DefaultSigNozURL, without a trailing slash. name
// is the variable the value came from, for error messages and `agentk
// config`. It returns an error wrapping ErrInvalid, naming the variable,
// for anything but http(s)://host[:port][/path].
func SigNozLinkBase(getenv func(string) string) (base, name string, err error) {
	base, name = strings.TrimSpace(getenv(EnvSigNozBaseURL)), EnvSigNozBaseURL
	if base == "" {
		base, name = strings.TrimSpace(getenv(EnvSigNozURL)), EnvSigNozURL
	}
	if base == "" {
		base, name = DefaultSigNozURL, EnvSigNozURL+" (default)"
	}
	base = strings.TrimRight(base, "/")
	u, perr := url.Parse(base)
	switch {
	case perr != nil:
		return "", name, fmt.Errorf("%w: %s=%q does not parse", ErrInvalid, name, base)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "", u.User != nil, u.RawQuery != "", u.Fragment != "":
		return "", name, fmt.Errorf("%w: %s=%q must be http(s)://host[:port][/path] with no user, query or fragment", ErrInvalid, name, base)
	}
	return base, name, nil
}
