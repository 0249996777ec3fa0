// Package config reads the deployer's configuration once, from a getenv
// function, reporting every problem at once.
package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Environment variables.
const (
	EnvRuntime        = "AGENTK_DEPLOYER_RUNTIME"
	EnvServices       = "AGENTK_DEPLOYER_SERVICES"
	EnvProject        = "AGENTK_COMPOSE_PROJECT"
	EnvComposeFile    = "AGENTK_COMPOSE_FILE"
	EnvStateDir       = "AGENTK_DEPLOYER_STATE_DIR"
	EnvComposeTimeout = "AGENTK_DEPLOYER_COMPOSE_TIMEOUT"
	EnvStabilise      = "AGENTK_DEPLOYER_STABILISE"
	EnvCooldown       = "AGENTK_DEPLOYER_COOLDOWN"
	EnvProbeURL       = "AGENTK_DEPLOYER_PROBE_URL"
	EnvProbeMaxErrors = "AGENTK_DEPLOYER_PROBE_MAX_ERROR_RATE"
	EnvIncidentDir    = "AGENTK_INCIDENT_DIR"
	EnvDockerHost     = "DOCKER_HOST"
	EnvOTLPEndpoint   = "OTEL_EXPORTER_OTLP_ENDPOINT"
	// EnvShadow is `all` or a comma list of services the deployer never
	// acts on, only records (the gate reads the same variable).
	EnvShadow = "AGENTK_SHADOW"
)

// Recovery checks.
const (
	// RecoverySandbox asks the sandbox for service_overview after the
	// stabilisation window: telemetry, the real check.
	RecoverySandbox = "sandbox"
	// RecoveryProbe is the fallback for setups without SigNoz: a direct HTTP
	// probe of the service, not telemetry.
	RecoveryProbe = "probe"
	// RecoveryNone leaves recovery to a human (recovered stays null).
	RecoveryNone = "none"
)

// Runtimes.
const (
	RuntimeDocker = "docker"
	RuntimeDryRun = "dryrun"
)

// ErrConfig wraps every configuration problem.
var ErrConfig = errors.New("deployer: config")

// Config is the deployer's configuration.
type Config struct {
	// Runtime is docker (acts) or dryrun (everything but the compose command).
	Runtime string
	// Services is the deployer's own allowlist: it acts on nothing else,
	// whatever a decision says.
	Services []string
	Project  string
	// ComposeFile is the project's compose file; the deployer adds its own
	// override file from StateDir after it.
	ComposeFile    string
	StateDir       string
	ComposeTimeout time.Duration
	Stabilise      time.Duration
	Cooldown       time.Duration
	// Recovery is RecoverySandbox, RecoveryProbe or RecoveryNone.
	Recovery string
	// RecoveryMaxErrorRate and RecoveryMinRequests are the recovery SLO: the
	// error rate after the rollback at most this, over at least that many
	// requests (fewer is "not enough traffic to judge", not recovery).
	RecoveryMaxErrorRate float64
	RecoveryMinRequests  int64
	RecoveryTimeout      time.Duration
	// ProbeURL is the endpoint the probe fallback GETs (RecoveryProbe only).
	ProbeURL string
	// IncidentDir seeds a dry run's ledger and cooldown from a recorded incident.
	IncidentDir  string
	DockerHost   string
	OTLPEndpoint string
	// ShadowAll and ShadowServices: shadow mode, whatever the decision says.
	ShadowAll      bool
	ShadowServices []string
}

// LedgerFromDocker reports whether the release ledger follows the Docker
// engine: always with the docker runtime; in a dry run, when a compose
// project is named and no recorded incident seeds the ledger instead (the
// dry run on a real stack, which can allow what the docker runtime would do).
func (c Config) LedgerFromDocker() bool {
	return c.Runtime == RuntimeDocker || (c.Runtime == RuntimeDryRun && c.Project != "" && c.IncidentDir == "")
}

// Shadowed reports whether service is in shadow mode.
func (c Config) Shadowed(service string) bool {
	return c.ShadowAll || slices.Contains(c.ShadowServices, service)
}

// FromEnv reads Config. Unset durations take defaults; every malformed or
// missing value is reported in one error.
func FromEnv(getenv func(string) string) (Config, error) {
	var errs []error
	bad := func(k, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{k}, a...)...))
	}
	dur := func(k string, def time.Duration) time.Duration {
		v := strings.TrimSpace(getenv(k))
		if v == "" {
			return def
		}
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			bad(k, "want a positive duration like 90s, got %q", v)
			return def
		}
		return d
	}
	c := Config{
		Runtime:        strings.TrimSpace(getenv(EnvRuntime)),
		Services:       list(getenv(EnvServices)),
		Project:        strings.TrimSpace(getenv(EnvProject)),
		ComposeFile:    strings.TrimSpace(getenv(EnvComposeFile)),
		StateDir:       strings.TrimSpace(getenv(EnvStateDir)),
		ComposeTimeout: dur(EnvComposeTimeout, 2*time.Minute),
		Stabilise:      dur(EnvStabilise, time.Minute),
		Cooldown:       dur(EnvCooldown, 10*time.Minute),
		ProbeURL:       strings.TrimSpace(getenv(EnvProbeURL)),
		IncidentDir:    strings.TrimSpace(getenv(EnvIncidentDir)),
		DockerHost:     strings.TrimSpace(getenv(EnvDockerHost)),
		OTLPEndpoint:   strings.TrimSpace(getenv(EnvOTLPEndpoint)),
	}
	c.recovery(getenv, bad, dur)
	if c.Runtime == "" {
		// Nothing mutates unless an operator asks for it.
		c.Runtime = RuntimeDryRun
	}
	switch c.Runtime {
	case RuntimeDocker:
		if len(c.Services) == 0 {
			bad(EnvServices, "required with the docker runtime (the deployer's own allowlist)")
		}
		if c.Project == "" {
			bad(EnvProject, "required with the docker runtime")
		}
		if c.ComposeFile == "" {
			bad(EnvComposeFile, "required with the docker runtime")
		}
		if c.StateDir == "" {
			bad(EnvStateDir, "required with the docker runtime (where the pin file lives)")
		}
		if c.IncidentDir != "" {
			bad(EnvIncidentDir, "only for the dryrun runtime: a recorded incident never drives a real rollback")
		}
	case RuntimeDryRun:
		if len(c.Services) == 0 && c.IncidentDir == "" {
			bad(EnvServices, "required unless %s names a recorded incident", EnvIncidentDir)
		}
	default:
		bad(EnvRuntime, "want %s or %s, got %q", RuntimeDocker, RuntimeDryRun, c.Runtime)
	}
	for _, s := range c.Services {
		if !validName(s) {
			bad(EnvServices, "service %q is not a compose service name", s)
		}
	}
	for _, s := range list(getenv(EnvShadow)) {
		switch {
		case s == "all":
			c.ShadowAll = true
		case validName(s):
			c.ShadowServices = append(c.ShadowServices, s)
		default:
			bad(EnvShadow, "%q is neither all nor a service name", s)
		}
	}
	if c.Project != "" && !validName(c.Project) {
		bad(EnvProject, "%q is not a compose project name", c.Project)
	}
	if len(errs) > 0 {
		return Config{}, fmt.Errorf("%w: %w", ErrConfig, errors.Join(errs...))
	}
	return c, nil
}

func list(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// validName accepts compose service and project names (and KV keys): letters,
// digits, '-', '_' and '.', starting with a letter or digit.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case i > 0 && (r == '-' || r == '_' || r == '.'):
		default:
			return false
		}
	}
	return true
}
