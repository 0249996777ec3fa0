// Package config reads the deployer's configuration once, from a getenv
// function, reporting every problem at once.
package config

import (
	"errors"
	"slices"
	"strings"
	"time"

	"agentk/platform/config"
	"agentk/platform/telemetry"
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
	EnvLease          = "AGENTK_DEPLOYER_LEASE"
	EnvProbeURL       = "AGENTK_DEPLOYER_PROBE_URL"
	EnvProbeMaxErrors = "AGENTK_DEPLOYER_PROBE_MAX_ERROR_RATE"
	EnvIncidentDir    = "AGENTK_INCIDENT_DIR"
	EnvDockerHost     = "DOCKER_HOST"
	EnvOTLPEndpoint   = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvOTLPProtocol   = "OTEL_EXPORTER_OTLP_PROTOCOL"
	// EnvMarkerEndpoint is where the deployment markers go when it is not
	// the platform's collector (MarkerEndpoint).
	EnvMarkerEndpoint = "AGENTK_DEPLOYER_MARKER_ENDPOINT"
	// EnvWatchMarkers switches off the ledger watcher's markers.
	EnvWatchMarkers = "AGENTK_DEPLOYER_WATCH_MARKERS"
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
var ErrConfig = errors.New("deployer: invalid configuration")

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
	// Lease is how long the replica that acts holds the lease without
	// renewing it (package lease): a standby takes over within about that
	// once it stops.
	Lease time.Duration
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
	IncidentDir string
	DockerHost  string
	// MarkerEndpoint is the OTLP/HTTP base URL the deployment.marker spans
	// are exported to: AGENTK_DEPLOYER_MARKER_ENDPOINT when set, else
	// OTEL_EXPORTER_OTLP_ENDPOINT unless AGENTK_OTEL_DISABLED (or
	// OTEL_SDK_DISABLED) is set; empty: no marker leaves the process.
	MarkerEndpoint string
	// MarkerGRPC is true when the markers go to OTEL_EXPORTER_OTLP_ENDPOINT
	// and OTEL_EXPORTER_OTLP_PROTOCOL is grpc; else they go over OTLP/HTTP.
	MarkerGRPC bool
	// WatchMarkers is true when the ledger watcher announces every
	// deployment it sees with a marker (needs a MarkerEndpoint).
	WatchMarkers bool
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

// Spec declares every variable the deployer reads.
var Spec = config.Spec{Component: "deployer", Err: ErrConfig, Vars: []config.Decl{
	{Name: EnvRuntime, Kind: config.KindEnum, Default: RuntimeDryRun, Allowed: []string{RuntimeDocker, RuntimeDryRun},
		Doc: "`docker` acts; `dryrun` does everything but the compose command and reports it (outcome `dry_run`, `recovered` null); with `AGENTK_COMPOSE_PROJECT` and no `AGENTK_INCIDENT_DIR` its release ledger follows Docker as the docker runtime's does (\"watch first\", docs/deploy.md)"},
	{Name: EnvServices, Kind: config.KindList, DocDefault: "— (required for `docker`)", Doc: "the deployer's own allowlist, comma-separated"},
	{Name: EnvProject, DocDefault: "— (required for `docker`; dry run: releases.yaml `project`)", Doc: "compose project (`-p`); in a dry run without `AGENTK_INCIDENT_DIR`, the Docker project whose containers build the ledger"},
	{Name: EnvComposeFile, DocDefault: "— (required for `docker`)", Doc: "the project's compose file"},
	{Name: EnvStateDir, DocDefault: "— (required for `docker`)", Doc: "where the pin override file lives"},
	{Name: EnvComposeTimeout, Kind: config.KindDuration, Default: "2m", Doc: "bounds compose + Docker verification"},
	{Name: EnvStabilise, Kind: config.KindDuration, Default: "1m", Doc: "wait before the recovery check"},
	{Name: EnvCooldown, Kind: config.KindDuration, Default: "10m", Doc: "no second action on a service within this"},
	{Name: EnvLease, Kind: config.KindDuration, Default: "10s", MinDur: time.Second,
		Doc: "leader lease of the replicas (at least `1s`): one deployer consumes approvals and renews the lease every third of this; a standby takes over once it went unrenewed this long (at once after a clean stop), and a leader whose renewal fails or is late stops consuming first (docs/deploy.md)"},
	{Name: EnvRecovery, Kind: config.KindEnum, Default: RecoverySandbox, Allowed: []string{RecoverySandbox, RecoveryProbe, RecoveryNone},
		Doc: "recovery check after the stabilisation window: `sandbox` (telemetry via the sandbox's `service_overview`), `probe` (HTTP probe fallback for setups without SigNoz), `none`"},
	{Name: EnvRecoveryMaxErrorRate, Kind: config.KindFloat, Default: "0.01", Min: 0, Max: 1, Doc: "recovery SLO: highest error rate over [container verified, now] that counts as recovered"},
	{Name: EnvRecoveryMinRequests, Kind: config.KindInt, Default: "20", Min: 1, Doc: "fewer requests than this in that range is \"not enough traffic to judge\": `recovered: false`"},
	{Name: EnvRecoveryTimeout, Kind: config.KindDuration, Default: "1m", Doc: "bounds the sandbox call (nine SigNoz queries)"},
	{Name: EnvProbeURL, Doc: "required with, and only with, `AGENTK_DEPLOYER_RECOVERY=probe`: the URL the **direct HTTP probe (not telemetry)** GETs 50 times"},
	{Name: EnvProbeMaxErrors, Doc: "removed: refused at start, use `AGENTK_DEPLOYER_RECOVERY_MAX_ERROR_RATE`"},
	{Name: EnvShadow, Kind: config.KindList, Doc: "`all` or a comma list of services: record what would run (outcome `shadow`), never act, even on a decision the gate did not mark shadow"},
	{Name: EnvIncidentDir, Doc: "dry run only: a recorded incident folder, read and validated with `contracts/incident.Load`; seeds the ledger from `releases.yaml` and the cooldown from `incident.yaml` `prior_actions`; allowlist defaults to `sandbox_services`, else every service in releases.yaml"},
	{Name: EnvDockerHost, DocDefault: "the default socket", Doc: "engine to talk to (API version negotiated)"},
	{Name: EnvOTLPEndpoint, Doc: "OTLP base URL for the `deployment.marker` spans (the watcher's and the rollbacks'), unless `AGENTK_DEPLOYER_MARKER_ENDPOINT` names another; ignored for them when `AGENTK_OTEL_DISABLED=1`; unset → nothing exported"},
	{Name: EnvOTLPProtocol, Kind: config.KindEnum, Default: "http/protobuf", Allowed: []string{"http/protobuf", "grpc"}, Doc: "how the markers go to `OTEL_EXPORTER_OTLP_ENDPOINT` (`AGENTK_DEPLOYER_MARKER_ENDPOINT` is always OTLP/HTTP)"},
	{Name: EnvMarkerEndpoint, Kind: config.KindURL, DocDefault: "`OTEL_EXPORTER_OTLP_ENDPOINT` (none when `AGENTK_OTEL_DISABLED=1`)",
		Doc: "OTLP/HTTP base URL (`/v1/traces` is appended) the deployer sends its `deployment.marker` spans to; set, it is used even with `AGENTK_OTEL_DISABLED=1` (the markers are the deployments' signal, not agentk's own telemetry: the live demo and the watcher's test point it at their own receiver)"},
	{Name: EnvWatchMarkers, Kind: config.KindBool, Default: "true",
		Doc: "with a marker endpoint, the release-ledger watcher emits one `deployment.marker` each time a compose service of `AGENTK_DEPLOYER_SERVICES` starts on a new image (at Docker's start time; a restart on the same image emits none; docs/signoz.md §6); `false`: only the deployer's own rollbacks emit one"},
}}

// FromEnv reads Config. Unset durations take defaults; every malformed or
// missing value is reported in one error.
func FromEnv(getenv func(string) string) (Config, error) {
	v := Spec.Read(getenv)
	c := Config{
		Runtime:        v.String(EnvRuntime),
		Services:       v.List(EnvServices),
		Project:        v.String(EnvProject),
		ComposeFile:    v.String(EnvComposeFile),
		StateDir:       v.String(EnvStateDir),
		ComposeTimeout: v.Duration(EnvComposeTimeout),
		Stabilise:      v.Duration(EnvStabilise),
		Cooldown:       v.Duration(EnvCooldown),
		Lease:          v.Duration(EnvLease),
		ProbeURL:       v.String(EnvProbeURL),
		IncidentDir:    v.String(EnvIncidentDir),
		DockerHost:     v.String(EnvDockerHost),
		MarkerEndpoint: v.String(EnvMarkerEndpoint),
		WatchMarkers:   v.Bool(EnvWatchMarkers),
	}
	if c.MarkerEndpoint == "" && !telemetry.Disabled(getenv) {
		c.MarkerEndpoint = v.String(EnvOTLPEndpoint)
		c.MarkerGRPC = c.MarkerEndpoint != "" && v.String(EnvOTLPProtocol) == "grpc"
	}
	c.recovery(v)
	c.runtime(v)
	for _, s := range c.Services {
		if !validName(s) {
			v.Failf(EnvServices, "service %q is not a compose service name", s)
		}
	}
	c.ShadowAll, c.ShadowServices = v.AllOrList(EnvShadow, validName)
	if c.Project != "" && !validName(c.Project) {
		v.Failf(EnvProject, "%q is not a compose project name", c.Project)
	}
	if err := v.Err(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// runtime checks what each runtime needs.
func (c *Config) runtime(v *config.Values) {
	switch c.Runtime {
	case RuntimeDocker:
		for _, r := range []struct{ name, value, why string }{
			{EnvServices, strings.Join(c.Services, ","), "required with the docker runtime (the deployer's own allowlist)"},
			{EnvProject, c.Project, "required with the docker runtime"},
			{EnvComposeFile, c.ComposeFile, "required with the docker runtime"},
			{EnvStateDir, c.StateDir, "required with the docker runtime (where the pin file lives)"},
		} {
			if r.value == "" {
				v.Failf(r.name, "%s", r.why)
			}
		}
		if c.IncidentDir != "" {
			v.Failf(EnvIncidentDir, "only for the dryrun runtime: a recorded incident never drives a real rollback")
		}
	case RuntimeDryRun:
		if len(c.Services) == 0 && c.IncidentDir == "" {
			v.Failf(EnvServices, "required unless %s names a recorded incident", EnvIncidentDir)
		}
	}
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
