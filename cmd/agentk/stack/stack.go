// Package stack runs agentk's services together: every service in one process
// over one fabric (embedded NATS or a remote server), each with its own
// credentials, signer and configuration source. `agentk up`, replays and the
// end-to-end tests all start services through it.
package stack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"agentk/contracts/envelope"
	"agentk/platform/health"
	"agentk/platform/service"
	"agentk/services/bridge"
	"agentk/services/deployer"
	"agentk/services/gate"
	"agentk/services/ingester"
	"agentk/services/investigator"
	"agentk/services/reviewer"
	"agentk/services/sandbox"
)

// Entry is one service the stack can run.
type Entry struct {
	Role string
	Run  service.Func
}

// Services lists every service, in start order: consumers before producers,
// so nothing published at start waits for its consumer.
var Services = []Entry{
	{envelope.RoleDeployer, deployer.Run},
	{envelope.RoleBridge, bridge.Run},
	{envelope.RoleGate, gate.Run},
	{envelope.RoleReviewer, reviewer.Run},
	{envelope.RoleSandbox, sandbox.Run},
	{envelope.RoleInvestigator, investigator.Run},
	{envelope.RoleIngester, ingester.Run},
}

// Lookup returns the entry of role.
func Lookup(role string) (Entry, bool) {
	for _, e := range Services {
		if e.Role == role {
			return e, true
		}
	}
	return Entry{}, false
}

// DepsFunc builds one service's deps.
type DepsFunc func(ctx context.Context, role string) (service.Deps, error)

// Running is a started set of services.
type Running struct {
	// Health serves /<service>/healthz and /<service>/readyz for every service.
	Health *health.Mux
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	errs   []error
	done   chan struct{}
	failed chan error
}

// ErrNotReady is returned by Start when a service did not become ready in time.
var ErrNotReady = errors.New("stack: service not ready")

// Start runs the services of roles (all when empty), waiting until each has
// called Ready or failed. A service that returns an error before ctx ends is
// reported by Wait.
func Start(ctx context.Context, roles []string, deps DepsFunc, log *slog.Logger, readyTimeout time.Duration) (*Running, error) {
	ctx, cancel := context.WithCancel(ctx)
	r := &Running{Health: health.NewMux(), cancel: cancel, done: make(chan struct{})}
	entries := Services
	if len(roles) > 0 {
		entries = nil
		for _, role := range roles {
			e, ok := Lookup(role)
			if !ok {
				cancel()
				return nil, fmt.Errorf("stack: unknown service %q", role)
			}
			entries = append(entries, e)
		}
	}
	failed := make(chan error, len(entries))
	r.failed = failed
	for _, e := range entries {
		d, err := deps(ctx, e.Role)
		if err != nil {
			cancel()
			r.wg.Wait()
			return nil, fmt.Errorf("stack: %s: %w", e.Role, err)
		}
		ready := make(chan struct{})
		var once sync.Once
		check := r.Health.Add(health.New(e.Role, d.Bus.Connected))
		d.Ready = func() { once.Do(func() { check.Ready(); close(ready) }) }
		d.Dependency = check.Dependency
		if d.Logger == nil {
			// fabric.Deps tags its logger with the service already: one
			// "service" key per line.
			d.Logger = log.With("service", e.Role)
		}
		r.wg.Add(1)
		go func(e Entry, d service.Deps) {
			defer r.wg.Done()
			if err := e.Run(ctx, d); err != nil && ctx.Err() == nil {
				err = fmt.Errorf("%s: %w", e.Role, err)
				r.mu.Lock()
				r.errs = append(r.errs, err)
				r.mu.Unlock()
				log.Error("service stopped", "service", e.Role, "err", err)
				failed <- err
			}
		}(e, d)
		select {
		case <-ready:
			log.Debug("service ready", "service", e.Role)
		case err := <-failed:
			_ = r.Stop()
			return nil, err
		case <-time.After(readyTimeout):
			_ = r.Stop()
			return nil, fmt.Errorf("%w: %s after %s", ErrNotReady, e.Role, readyTimeout)
		case <-ctx.Done():
			_ = r.Stop()
			return nil, ctx.Err()
		}
	}
	go func() { r.wg.Wait(); close(r.done) }()
	return r, nil
}

// Failed delivers the error of each service that stops before it is told to.
func (r *Running) Failed() <-chan error { return r.failed }

// Done is closed once every service has returned.
func (r *Running) Done() <-chan struct{} { return r.done }

// Stop cancels every service and waits for them to return (each drains its
// in-flight messages before it does).
func (r *Running) Stop() error {
	r.cancel()
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	return errors.Join(r.errs...)
}
