// Package config reads the reviewer's configuration from the environment
// once, at start, and reports every problem at once.
package config

import (
	"errors"
	"net/url"
	"strings"

	"agentk/contracts"
	"agentk/platform/config"
	"agentk/services/reviewer/internal/review"
)

// ErrInvalid wraps every configuration problem.
var ErrInvalid = errors.New("reviewer: invalid configuration")

// Environment variables.
const (
	// EnvBaseURL is read through platform/config.SigNozLinkBase, with
	// AGENTK_SIGNOZ_URL as its fallback.
	EnvBaseURL       = config.EnvSigNozBaseURL
	EnvTolerance     = "AGENTK_REVIEW_NUMBER_TOLERANCE"
	EnvCatalogueFile = "AGENTK_CATALOGUE_FILE"
)

// Defaults.
const (
	DefaultBaseURL = config.DefaultSigNozURL
	// DefaultTolerance is 1 % relative, on top of the rounding of the digits a
	// claim wrote ("2.3s" covers 2250–2349 ms).
	DefaultTolerance = 0.01
)

// Spec declares every variable the reviewer reads. The link base is read
// through platform/config.SigNozLinkBase, the same as the sandbox's.
var Spec = config.Spec{Component: "reviewer", Err: ErrInvalid, Vars: []config.Decl{
	{Name: EnvBaseURL, DocDefault: "`AGENTK_SIGNOZ_URL`, else `http://localhost:8080`", Doc: "http(s)://host[:port][/path]; the same link base as the sandbox (`agentk config` fails if they differ)"},
	{Name: EnvTolerance, Kind: config.KindFloat, Default: "0.01", Min: 0, Max: 0.1, Doc: "relative, in [0, 0.1], on top of rounding"},
	{Name: EnvCatalogueFile, DocDefault: "built-in", Doc: "same YAML as the gate's"},
}}

// FromEnv builds the review configuration from getenv.
func FromEnv(getenv func(string) string) (review.Config, error) {
	v := Spec.Read(getenv)
	c := review.Config{Tolerance: v.Float(EnvTolerance), Catalogue: contracts.DefaultCatalogue()}
	// The one link base every service derives from AGENTK_SIGNOZ_BASE_URL,
	// else AGENTK_SIGNOZ_URL: the sandbox builds its links under the same.
	raw, name, err := config.SigNozLinkBase(getenv)
	if err != nil {
		v.Failf(name, "%s", strings.TrimPrefix(err.Error(), config.ErrInvalid.Error()+": "))
	} else if u, err := url.Parse(raw); err != nil {
		v.Failf(name, "%q does not parse", raw)
	} else {
		c.BaseURL = u
	}
	if path := v.String(EnvCatalogueFile); path != "" {
		cat, err := contracts.LoadCatalogue(path)
		if err != nil {
			v.Failf(EnvCatalogueFile, "%v", err)
		} else {
			c.Catalogue = cat
		}
	}
	if err := v.Err(); err != nil {
		return review.Config{}, err
	}
	return c, nil
}
