// Package service is what a process hands each agentk service it runs: the bus
// connection, the service's signer, the keyring, the clock, a logger and its
// configuration source. cmd/<name> builds one Deps; `agentk up` builds seven.
package service

import (
	"context"
	"log/slog"
	"time"

	"agentk/contracts/envelope"
	"agentk/platform/bus"
)

// Deps are a running service's dependencies. Every field is required unless
// its comment says otherwise.
type Deps struct {
	// Bus is this service's own connection (its own NATS credentials).
	Bus *bus.Conn
	// Signer seals what this service produces.
	Signer *envelope.Signer
	// Keyring verifies what it consumes.
	Keyring *envelope.Keyring
	// Now is the only clock a service reads.
	Now    func() time.Time
	Logger *slog.Logger
	// Getenv is the configuration source (os.Getenv in production, a map in tests).
	Getenv func(string) string
	// Ready, when non-nil, is called once the service consumes and serves.
	Ready func()
	// Dependency, when non-nil, records whether an outside dependency the
	// service checked answers as it should (err nil) or not; a failing one
	// makes the service not ready (health.Checker.Dependency). Use
	// ReportDependency, which tolerates nil.
	Dependency func(name string, err error)
	// Mode, when non-nil, records the service's part among its replicas
	// (the deployer's "leader" or "standby"; health.Checker.Mode). Use
	// ReportMode, which tolerates nil.
	Mode func(mode string)
}

// ReportMode calls d.Mode when it is set.
func (d Deps) ReportMode(mode string) {
	if d.Mode != nil {
		d.Mode(mode)
	}
}

// ReportDependency calls d.Dependency when it is set.
func (d Deps) ReportDependency(name string, err error) {
	if d.Dependency != nil {
		d.Dependency(name, err)
	}
}

// Func runs one service until ctx is done or it fails.
type Func func(ctx context.Context, d Deps) error

// Since returns a clock that starts at start and advances with real time: the
// replay clock.
func Since(start time.Time) func() time.Time {
	t0 := time.Now()
	return func() time.Time { return start.Add(time.Since(t0)).UTC() }
}
