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
	platformconfig "agentk/platform/config"
	"agentk/services/reviewer/internal/review"
)

// ErrInvalid wraps every configuration problem.
var ErrInvalid = errors.New("reviewer config: invalid")

// Environment variables.
const (
	// EnvBaseURL is read through platform/config.SigNozLinkBase, with
	// AGENTK_SIGNOZ_URL as its fallback.
	EnvBaseURL       = platformconfig.EnvSigNozBaseURL
	EnvTolerance     = "AGENTK_REVIEW_NUMBER_TOLERANCE"
	EnvCatalogueFile = "AGENTK_CATALOGUE_FILE"
)

// Defaults.
const (
	DefaultBaseURL = platformconfig.DefaultSigNozURL
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
	// The one link base every service derives from AGENTK_SIGNOZ_BASE_URL,
	// else AGENTK_SIGNOZ_URL: the sandbox builds its links under the same.
	raw, name, err := platformconfig.SigNozLinkBase(getenv)
	if err != nil {
		bad(name, "%s", strings.TrimPrefix(err.Error(), platformconfig.ErrInvalid.Error()+": "))
	} else if u, err := url.Parse(raw); err != nil {
		bad(name, "%q does not parse", raw)
	} else {
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
