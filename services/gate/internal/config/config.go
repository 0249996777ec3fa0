// Package config reads the gate's configuration from the environment once, at
// start, and reports every problem at once.
package config

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/platform/config"
	"agentk/services/gate/internal/policy"
)

// ErrInvalid wraps every configuration problem.
var ErrInvalid = errors.New("gate: invalid configuration")

// Environment variables.
const (
	EnvBurnRateThreshold   = "AGENTK_GATE_BURN_RATE_THRESHOLD"
	EnvConfidenceThreshold = "AGENTK_GATE_CONFIDENCE_THRESHOLD"
	EnvCooldown            = "AGENTK_GATE_COOLDOWN"
	EnvMarkerWindow        = "AGENTK_GATE_MARKER_WINDOW"
	EnvMarkerTolerance     = "AGENTK_GATE_MARKER_TOLERANCE"
	EnvActions             = "AGENTK_GATE_ACTIONS"
	EnvSandboxServices     = "AGENTK_SANDBOX_SERVICES"
	EnvCatalogueFile       = "AGENTK_CATALOGUE_FILE"
	EnvDecisionTTL         = "AGENTK_GATE_DECISION_TTL"
	EnvTrafficSurgeRatio   = "AGENTK_GATE_TRAFFIC_SURGE_RATIO"
	// EnvOriginShare is the share of the alerted service's new failures that
	// must begin in another service for a derived decision about it to pass.
	EnvOriginShare = "AGENTK_GATE_ORIGIN_SHARE"
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

// Spec declares every variable the gate reads.
var Spec = config.Spec{Component: "gate", Err: ErrInvalid, Vars: []config.Decl{
	// A burn rate threshold below 1 would act on a service within its budget.
	{Name: EnvBurnRateThreshold, Kind: config.KindFloat, Default: "1.0", Min: 1, Max: 1000, Doc: "in [1, 1000]"},
	{Name: EnvConfidenceThreshold, Kind: config.KindFloat, Default: "0.70", Min: 0.5, Max: 1, Doc: "in [0.5, 1]"},
	{Name: EnvCooldown, Kind: config.KindDuration, Default: "600s", MinDur: time.Minute, MaxDur: 24 * time.Hour, Seconds: true, Doc: "Go duration or seconds, 1m–24h"},
	{Name: EnvMarkerWindow, Kind: config.KindDuration, Default: "30m", MinDur: time.Minute, MaxDur: 24 * time.Hour, Seconds: true, Doc: "1m–24h"},
	// policy.DefaultMarkerTolerance says why 5m: Docker's start of a
	// container and the marker of it differ by an image pull, the health
	// checks and clock skew; a forged, leaked or re-emitted marker of a
	// running release differs from its start by hours or days. Above 30m a
	// marker's window would no longer bound when the release started.
	{Name: EnvMarkerTolerance, Kind: config.KindDuration, Default: "5m", MinDur: 0, MaxDur: 30 * time.Minute, Seconds: true, Doc: "0–30m: how far a deployment marker may lie from the time the release ledger (Docker) saw its version start and still count for `deployment_related`"},
	// Below 1.5 ordinary daily swings would read as surges and block every
	// rollback. 2.5: the surges that follow a deploy reach 2.67-2.86x when the
	// onset's first minute is still half baseline (s5151-w045, s18-w069,
	// s18-w009), the right rollbacks of every corpus stay at or under 1.82x.
	{Name: EnvTrafficSurgeRatio, Kind: config.KindFloat, Default: "2.5", Min: 1.5, Max: 100, Doc: "1.5–100: inbound traffic since the onset over its baseline at or above which `deployment_related` fails (load, not a release)"},
	// Below half, the service where the failures begin would not be where
	// most of them begin (issue 33): another service holds at least as many.
	{Name: EnvOriginShare, Kind: config.KindFloat, Default: "0.5", Min: 0.5, Max: 1, Doc: "in [0.5, 1]: the share of the alerted service's new failures that must begin in another service for a derived decision to roll that service back"},
	{Name: EnvActions, Kind: config.KindList, Default: policy.ActionRollback, Doc: "comma list; only `rollback` is accepted"},
	{Name: EnvSandboxServices, Kind: config.KindList, DocDefault: "empty", Doc: "comma list; empty = act on nothing (fail closed)"},
	{Name: EnvCatalogueFile, DocDefault: "built-in", Doc: "YAML list of `{name, description, deployment_class}` (or under `classes:`)"},
	{Name: EnvDecisionTTL, Kind: config.KindDuration, Default: "15m", MinDur: time.Minute, MaxDur: MaxDecisionTTL, Seconds: true, Doc: "1m–2h"},
	{Name: EnvShadow, Kind: config.KindList, DocDefault: "empty", Doc: "`all`, or a comma list of services whose decisions are shadow decisions (never acted on); the deployer reads it too"},
}}

// FromEnv builds the configuration from getenv, validating every value; the
// error joins every problem found.
func FromEnv(getenv func(string) string) (Config, error) {
	v := Spec.Read(getenv)
	c := Config{Policy: policy.DefaultConfig()}
	p := &c.Policy
	p.BurnRateThreshold = v.Float(EnvBurnRateThreshold)
	p.ConfidenceThreshold = v.Float(EnvConfidenceThreshold)
	p.TrafficSurgeRatio = v.Float(EnvTrafficSurgeRatio)
	p.OriginShareThreshold = v.Float(EnvOriginShare)
	p.Cooldown = v.Duration(EnvCooldown)
	p.MarkerWindow = v.Duration(EnvMarkerWindow)
	p.MarkerTolerance = v.Duration(EnvMarkerTolerance)
	p.DecisionTTL = v.Duration(EnvDecisionTTL)
	p.Actions = v.List(EnvActions)
	if len(p.Actions) == 0 {
		v.Failf(EnvActions, "empty")
	}
	for _, a := range p.Actions {
		if !slices.Contains(policy.KnownActions, a) {
			v.Failf(EnvActions, "%q is not an action the gate can judge (known: %s; restart is not a rollback)", a, strings.Join(policy.KnownActions, ", "))
		}
	}
	p.SandboxServices = v.List(EnvSandboxServices)
	for _, s := range p.SandboxServices {
		if !serviceName.MatchString(s) {
			v.Failf(EnvSandboxServices, "%q is not a service name", s)
		}
	}
	p.ShadowAll, p.ShadowServices = v.AllOrList(EnvShadow, serviceName.MatchString)
	if path := v.String(EnvCatalogueFile); path != "" {
		c.CatalogueFile = path
		cat, err := contracts.LoadCatalogue(path)
		if err != nil {
			v.Failf(EnvCatalogueFile, "%v", err)
		} else {
			p.Catalogue = cat
		}
	}
	if err := v.Err(); err != nil {
		return Config{}, err
	}
	return c, nil
}
