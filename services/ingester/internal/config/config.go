// Package config reads the ingester's configuration from the environment,
// once, reporting every problem at once.
package config

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// ErrConfig is wrapped by every error FromEnv returns.
var ErrConfig = errors.New("ingester: config")

// Defaults.
const (
	DefaultAddr              = "127.0.0.1:8081"
	DefaultMaxBody           = 1 << 20
	DefaultMaxInvestigations = 4
	DefaultLease             = 15 * time.Minute
	DefaultDispatchEvery     = 5 * time.Second
	DefaultTimeout           = 10 * time.Second
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

// FromEnv reads the configuration through getenv. Secrets may come from the
// file named by the variable with _FILE appended (trailing newline trimmed).
func FromEnv(getenv func(string) string) (Config, error) {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	secret := func(name string) string {
		v, file := getenv(name), getenv(name+"_FILE")
		if v != "" && file != "" {
			bad("%s and %s_FILE are both set", name, name)
			return ""
		}
		if file == "" {
			return v
		}
		b, err := os.ReadFile(file)
		if err != nil {
			bad("%s_FILE: %v", name, err)
			return ""
		}
		return strings.TrimRight(string(b), "\r\n")
	}
	c := Config{
		Addr:              DefaultAddr,
		Token:             secret("AGENTK_INGEST_TOKEN"),
		BasicUser:         secret("AGENTK_INGEST_BASIC_USER"),
		BasicPassword:     secret("AGENTK_INGEST_BASIC_PASSWORD"),
		MaxBody:           DefaultMaxBody,
		MaxInvestigations: DefaultMaxInvestigations,
		Lease:             DefaultLease,
		DispatchEvery:     DefaultDispatchEvery,
		Timeout:           DefaultTimeout,
	}
	if v := getenv("AGENTK_INGEST_ADDR"); v != "" {
		c.Addr = v
	}
	host, _, err := net.SplitHostPort(c.Addr)
	if err != nil {
		bad("AGENTK_INGEST_ADDR %q: %v", c.Addr, err)
	}
	if v := getenv("AGENTK_INGEST_LOCAL_ONLY"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			bad("AGENTK_INGEST_LOCAL_ONLY %q: not a boolean", v)
		}
		c.LocalOnly = b
	}
	if v := getenv("AGENTK_INGEST_MAX_BODY"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1024 || n > 64<<20 {
			bad("AGENTK_INGEST_MAX_BODY %q: want bytes between 1024 and 67108864", v)
		}
		c.MaxBody = n
	}
	if v := getenv("AGENTK_INGEST_MAX_INVESTIGATIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			bad("AGENTK_INGEST_MAX_INVESTIGATIONS %q: want a positive integer", v)
		}
		c.MaxInvestigations = n
	}
	for _, d := range []struct {
		name string
		dst  *time.Duration
	}{{"AGENTK_INGEST_INVESTIGATION_LEASE", &c.Lease}, {"AGENTK_INGEST_DISPATCH_INTERVAL", &c.DispatchEvery}, {"AGENTK_INGEST_TIMEOUT", &c.Timeout}} {
		if v := getenv(d.name); v != "" {
			x, err := time.ParseDuration(v)
			if err != nil || x <= 0 {
				bad("%s %q: want a positive duration", d.name, v)
			}
			*d.dst = x
		}
	}
	if (c.BasicUser == "") != (c.BasicPassword == "") {
		bad("AGENTK_INGEST_BASIC_USER and AGENTK_INGEST_BASIC_PASSWORD must be set together")
	}
	if !c.AuthConfigured() {
		switch {
		case !c.LocalOnly:
			bad("no credential: set AGENTK_INGEST_TOKEN or AGENTK_INGEST_BASIC_USER/PASSWORD, or AGENTK_INGEST_LOCAL_ONLY=true for a loopback-only endpoint")
		case err == nil && !isLoopback(host):
			bad("AGENTK_INGEST_LOCAL_ONLY without a credential needs a loopback AGENTK_INGEST_ADDR, not %q", c.Addr)
		}
	}
	if len(problems) > 0 {
		return Config{}, fmt.Errorf("%w: %s", ErrConfig, strings.Join(problems, "; "))
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
