// Package config reads the gate's configuration from the environment once, at
// start, and reports every problem at once.
package config

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"
)

// ErrInvalid wraps every configuration problem.
var ErrInvalid = errors.New("gate config: invalid")

// Environment variables.
const (
	EnvBurnRateThreshold   = "AGENTK_GATE_BURN_RATE_THRESHOLD"
	EnvConfidenceThreshold = "AGENTK_GATE_CONFIDENCE_THRESHOLD"
	EnvCooldown            = "AGENTK_GATE_COOLDOWN"
	EnvMarkerWindow        = "AGENTK_GATE_MARKER_WINDOW"
	EnvActions             = "AGENTK_GATE_ACTIONS"
	EnvSandboxServices     = "AGENTK_SANDBOX_SERVICES"
	EnvCatalogueFile       = "AGENTK_CATALOGUE_FILE"
	EnvDecisionTTL         = "AGENTK_GATE_DECISION_TTL"
	EnvTrafficSurgeRatio   = "AGENTK_GATE_TRAFFIC_SURGE_RATIO"
	// EnvShadow is `all` or a comma list of services whose decisions are
	// shadow decisions (the deployer reads the same variable).
	EnvShadow = "AGENTK_SHADOW"
)

// MaxDecisionTTL bounds how long an approval may act on a decision: telemetry
// older than this no longer describes the service.
const MaxDecisionTTL = 2 * time.Hour

// Config is the gate's configuration.
type Config struct {
	Policy policy.Config
	// CatalogueFile is where the catalogue came from ("" for the default).
	CatalogueFile string
}

var (
	serviceName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$`)
)

// FromEnv builds the configuration from getenv, validating every value; the
// error joins every problem found.
func FromEnv(getenv func(string) string) (Config, error) {
	c := Config{Policy: policy.DefaultConfig()}
	var errs []error
	bad := func(name, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%w: %s: %s", ErrInvalid, name, fmt.Sprintf(format, a...)))
	}
	float := func(name string, dst *float64, lo, hi float64) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < lo || f > hi {
			bad(name, "%q is not a number in [%g, %g]", v, lo, hi)
			return
		}
		*dst = f
	}
	duration := func(name string, dst *time.Duration, lo, hi time.Duration) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			if n, nerr := strconv.ParseInt(v, 10, 64); nerr == nil {
				d, err = time.Duration(n)*time.Second, nil
			}
		}
		if err != nil || d < lo || d > hi {
			bad(name, "%q is not a duration in [%s, %s]", v, lo, hi)
			return
		}
		*dst = d
	}
	p := &c.Policy
	// A burn rate threshold below 1 would act on a service within its budget.
	float(EnvBurnRateThreshold, &p.BurnRateThreshold, 1, 1000)
	float(EnvConfidenceThreshold, &p.ConfidenceThreshold, 0.5, 1)
	// Below 1.5 ordinary daily swings would read as surges and block every rollback.
	float(EnvTrafficSurgeRatio, &p.TrafficSurgeRatio, 1.5, 100)
	duration(EnvCooldown, &p.Cooldown, time.Minute, 24*time.Hour)
	duration(EnvMarkerWindow, &p.MarkerWindow, time.Minute, 24*time.Hour)
	duration(EnvDecisionTTL, &p.DecisionTTL, time.Minute, MaxDecisionTTL)

	if v := strings.TrimSpace(getenv(EnvActions)); v != "" {
		p.Actions = list(v)
		if len(p.Actions) == 0 {
			bad(EnvActions, "empty")
		}
		for _, a := range p.Actions {
			if !slices.Contains(policy.KnownActions, a) {
				bad(EnvActions, "%q is not an action the gate can judge (known: %s; restart is not a rollback)", a, strings.Join(policy.KnownActions, ", "))
			}
		}
	}
	p.SandboxServices = list(getenv(EnvSandboxServices))
	for _, s := range p.SandboxServices {
		if !serviceName.MatchString(s) {
			bad(EnvSandboxServices, "%q is not a service name", s)
		}
	}
	for _, s := range list(getenv(EnvShadow)) {
		switch {
		case s == "all":
			p.ShadowAll = true
		case serviceName.MatchString(s):
			p.ShadowServices = append(p.ShadowServices, s)
		default:
			bad(EnvShadow, "%q is neither all nor a service name", s)
		}
	}
	if path := strings.TrimSpace(getenv(EnvCatalogueFile)); path != "" {
		c.CatalogueFile = path
		cat, err := contracts.LoadCatalogue(path)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: %s: %w", ErrInvalid, EnvCatalogueFile, err))
		} else {
			p.Catalogue = cat
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	return c, nil
}

// list splits a comma list, trimming blanks and dropping empty and repeated entries.
func list(v string) []string {
	var out []string
	for s := range strings.SplitSeq(v, ",") {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
