// Package config reads the reviewer's configuration from the environment
// once, at start, and reports every problem at once.
package config

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"agentk/contracts"
	"agentk/services/reviewer/internal/review"
)

// ErrInvalid wraps every configuration problem.
var ErrInvalid = errors.New("reviewer config: invalid")

// Environment variables.
const (
	EnvBaseURL       = "AGENTK_SIGNOZ_BASE_URL"
	EnvTolerance     = "AGENTK_REVIEW_NUMBER_TOLERANCE"
	EnvCatalogueFile = "AGENTK_CATALOGUE_FILE"
)

// Defaults.
const (
	DefaultBaseURL = "http://localhost:8080"
	// DefaultTolerance is 1 % relative, on top of the rounding of the digits a
	// claim wrote ("2.3s" covers 2250–2349 ms).
	DefaultTolerance = 0.01
)

// FromEnv builds the review configuration from getenv.
func FromEnv(getenv func(string) string) (review.Config, error) {
	var errs []error
	bad := func(name, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%w: %s: %s", ErrInvalid, name, fmt.Sprintf(format, a...)))
	}
	c := review.Config{Tolerance: DefaultTolerance, Catalogue: contracts.DefaultCatalogue()}
	raw := strings.TrimSpace(getenv(EnvBaseURL))
	if raw == "" {
		raw = DefaultBaseURL
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		bad(EnvBaseURL, "%q does not parse", raw)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "", u.User != nil, u.RawQuery != "", u.Fragment != "":
		bad(EnvBaseURL, "%q must be http(s)://host[:port][/path] with no user, query or fragment", raw)
	default:
		c.BaseURL = u
	}
	if v := strings.TrimSpace(getenv(EnvTolerance)); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || f < 0 || f > 0.1 {
			bad(EnvTolerance, "%q is not a relative tolerance in [0, 0.1]", v)
		} else {
			c.Tolerance = f
		}
	}
	if path := strings.TrimSpace(getenv(EnvCatalogueFile)); path != "" {
		cat, err := contracts.LoadCatalogue(path)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: %s: %w", ErrInvalid, EnvCatalogueFile, err))
		} else {
			c.Catalogue = cat
		}
	}
	if err := errors.Join(errs...); err != nil {
		return review.Config{}, err
	}
	return c, nil
}
