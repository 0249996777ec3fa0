// Package config reads the ingester's configuration from the environment,
// once, reporting every problem at once.
package config

import (
	"errors"
	"net"
	"time"

	"agentk/platform/config"
)

// ErrConfig is wrapped by every error FromEnv returns.
var ErrConfig = errors.New("ingester: invalid configuration")

// Defaults.
const (
	DefaultAddr              = "127.0.0.1:8081"
	DefaultMaxBody           = 1 << 20
	DefaultMaxInvestigations = 4
	DefaultLease             = 15 * time.Minute
	DefaultDispatchEvery     = 5 * time.Second
	DefaultTimeout           = 10 * time.Second
)

// Environment variables.
const (
	EnvAddr              = "AGENTK_INGEST_ADDR"
	EnvToken             = "AGENTK_INGEST_TOKEN"
	EnvBasicUser         = "AGENTK_INGEST_BASIC_USER"
	EnvBasicPassword     = "AGENTK_INGEST_BASIC_PASSWORD"
	EnvLocalOnly         = "AGENTK_INGEST_LOCAL_ONLY"
	EnvMaxBody           = "AGENTK_INGEST_MAX_BODY"
	EnvMaxInvestigations = "AGENTK_INGEST_MAX_INVESTIGATIONS"
	EnvLease             = "AGENTK_INGEST_INVESTIGATION_LEASE"
	EnvDispatchEvery     = "AGENTK_INGEST_DISPATCH_INTERVAL"
	EnvTimeout           = "AGENTK_INGEST_TIMEOUT"
)

// Config is the ingester's configuration.
type Config struct {
	// Addr is where POST /v1/alerts listens (AGENTK_INGEST_ADDR).
	Addr string
	// Token is the Bearer token SigNoz's channel sends (AGENTK_INGEST_TOKEN[_FILE]).
	Token string
	// BasicUser and BasicPassword are the channel's Basic auth
	// (AGENTK_INGEST_BASIC_USER[_FILE], AGENTK_INGEST_BASIC_PASSWORD[_FILE]).
	BasicUser     string
	BasicPassword string
	// LocalOnly allows running without any credential, on a loopback address
	// only (AGENTK_INGEST_LOCAL_ONLY=true).
	LocalOnly bool
	// MaxBody is the largest body accepted, in bytes (AGENTK_INGEST_MAX_BODY).
	MaxBody int64
	// MaxInvestigations is how many incidents may be under investigation at
	// once; the rest queue in the incident index (AGENTK_INGEST_MAX_INVESTIGATIONS).
	MaxInvestigations int
	// Lease is how long a released incident holds its investigation slot
	// unless it resolves first (AGENTK_INGEST_INVESTIGATION_LEASE).
	Lease time.Duration
	// DispatchEvery is how often queued incidents are reconsidered
	// (AGENTK_INGEST_DISPATCH_INTERVAL).
	DispatchEvery time.Duration
	// Timeout bounds filing one webhook body in KV and JetStream; past it the
	// sender gets a 503 and retries (AGENTK_INGEST_TIMEOUT).
	Timeout time.Duration
}

// AuthConfigured reports whether any credential is set.
func (c Config) AuthConfigured() bool {
	return c.Token != "" || (c.BasicUser != "" && c.BasicPassword != "")
}

// Spec declares every variable the ingester reads.
var Spec = config.Spec{Component: "ingester", Err: ErrConfig, Vars: []config.Decl{
	{Name: EnvAddr, Default: DefaultAddr, Doc: "listen address"},
	{Name: EnvToken, Secret: true, Doc: "Bearer token the channel sends (constant-time compare)"},
	{Name: EnvBasicUser, Secret: true, Doc: "Basic auth user (with the password)"},
	{Name: EnvBasicPassword, Secret: true, Doc: "Basic auth password"},
	{Name: EnvLocalOnly, Kind: config.KindBool, Default: "false", Doc: "allow no credential; then the address must be loopback. Without a credential and without this, the ingester refuses to start"},
	{Name: EnvMaxBody, Kind: config.KindInt, Default: "1048576", Min: 1024, Max: 64 << 20, Doc: "body limit in bytes (413 above it)"},
	{Name: EnvMaxInvestigations, Kind: config.KindInt, Default: "4", Min: 1, Doc: "incidents released to investigation at once; the rest queue"},
	{Name: EnvLease, Kind: config.KindDuration, Default: "15m", Doc: "a released incident holds its slot until it resolves or this passes"},
	{Name: EnvDispatchEvery, Kind: config.KindDuration, Default: "5s", Doc: "how often queued incidents are reconsidered"},
	{Name: EnvTimeout, Kind: config.KindDuration, Default: "10s", Doc: "bound on filing one body; past it, 503"},
}}

// FromEnv reads the configuration through getenv. Secrets may come from the
// file named by the variable with _FILE appended.
func FromEnv(getenv func(string) string) (Config, error) {
	v := Spec.Read(getenv)
	c := Config{
		Addr:              v.String(EnvAddr),
		Token:             v.String(EnvToken),
		BasicUser:         v.String(EnvBasicUser),
		BasicPassword:     v.String(EnvBasicPassword),
		LocalOnly:         v.Bool(EnvLocalOnly),
		MaxBody:           int64(v.Int(EnvMaxBody)),
		MaxInvestigations: v.Int(EnvMaxInvestigations),
		Lease:             v.Duration(EnvLease),
		DispatchEvery:     v.Duration(EnvDispatchEvery),
		Timeout:           v.Duration(EnvTimeout),
	}
	host, _, err := net.SplitHostPort(c.Addr)
	if err != nil {
		v.Failf(EnvAddr, "%q: %v", c.Addr, err)
	}
	if (c.BasicUser == "") != (c.BasicPassword == "") {
		v.Problem("%s and %s must be set together", EnvBasicUser, EnvBasicPassword)
	}
	if !c.AuthConfigured() {
		switch {
		case !c.LocalOnly:
			v.Problem("no credential: set %s or %s/PASSWORD, or %s=true for a loopback-only endpoint", EnvToken, EnvBasicUser, EnvLocalOnly)
		case err == nil && !isLoopback(host):
			v.Failf(EnvLocalOnly, "without a credential needs a loopback %s, not %q", EnvAddr, c.Addr)
		}
	}
	if err := v.Err(); err != nil {
		return Config{}, err
	}
	return c, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
