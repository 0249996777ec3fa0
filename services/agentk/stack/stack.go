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
	"sync/atomic"
	"time"

	"agentk/platform/health"
	"agentk/platform/service"

	// Every service registers itself (its register.go): the stack runs
	// what the registry holds.
	_ "agentk/services/bridge"
	_ "agentk/services/deployer"
	_ "agentk/services/gate"
	_ "agentk/services/ingester"
	_ "agentk/services/investigator"
	_ "agentk/services/reviewer"
	_ "agentk/services/sandbox"
)

// Services returns every service in start order (consumers before
// producers), as the services registered themselves with platform/service:
// the imports above are what puts them in this binary.
func Services() []service.Registration { return service.InStartOrder() }

// DepsFunc builds one service's deps.
type DepsFunc func(ctx context.Context, role string) (service.Deps, error)

// Running is a started set of services.
type Running struct {
	// Health serves /<service>/healthz and /<service>/readyz for every service.
	Health   *health.Mux
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	mu       sync.Mutex
	errs     []error
	done     chan struct{}
	failed   chan error
	restarts atomic.Int64
}

// ErrNotReady is returned by Start when a service did not become ready in time.
var ErrNotReady = errors.New("stack: service not ready")

// Supervision says how a service that stops on its own is restarted.
type Supervision struct {
	// MinBackoff is the first delay before a restart; it doubles per
	// restart in a row up to MaxBackoff (defaults 1 s and 30 s).
	MinBackoff, MaxBackoff time.Duration
	// Healthy is how long a service must run for its next stop to count as
	// the first in a row again (default 1 min).
	Healthy time.Duration
}

func (s Supervision) withDefaults() Supervision {
	if s.MinBackoff <= 0 {
		s.MinBackoff = time.Second
	}
	if s.MaxBackoff < s.MinBackoff {
		s.MaxBackoff = max(30*time.Second, s.MinBackoff)
	}
	if s.Healthy <= 0 {
		s.Healthy = time.Minute
	}
	return s
}

// ErrStoppedItself wraps a service's return while it was not told to stop.
var ErrStoppedItself = errors.New("stack: service stopped on its own")

// Start runs the services of roles (all when empty), waiting until each has
// called Ready or failed. A service that fails before it is ready makes
// Start fail. Once ready, a service that stops on its own (its router
// stopped, its server failed: see bus.ErrStopped) is supervised: it is
// marked not ready at /<service>/readyz with the error and a restart count,
// logged, and restarted with new deps after a backoff (StartSupervised).
func Start(ctx context.Context, roles []string, deps DepsFunc, log *slog.Logger, readyTimeout time.Duration) (*Running, error) {
	return StartSupervised(ctx, roles, deps, log, readyTimeout, Supervision{})
}

// StartSupervised is Start with the restart policy sup.
func StartSupervised(ctx context.Context, roles []string, deps DepsFunc, log *slog.Logger, readyTimeout time.Duration, sup Supervision) (*Running, error) {
	sup = sup.withDefaults()
	ctx, cancel := context.WithCancel(ctx)
	r := &Running{Health: health.NewMux(), cancel: cancel, done: make(chan struct{})}
	entries := Services()
	if len(roles) > 0 {
		entries = nil
		for _, role := range roles {
			e, ok := service.Lookup(role)
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
		// Readiness follows the connection of the current run: a restart
		// swaps it.
		conn := &atomic.Pointer[service.Deps]{}
		conn.Store(&d)
		check := r.Health.Add(health.New(e.Role, func() bool { return conn.Load().Bus.Connected() }))
		d.Ready = func() { once.Do(func() { check.Ready(); close(ready) }) }
		d.Dependency = check.Dependency
		d.Mode = check.Mode
		if d.Logger == nil {
			// fabric.Deps tags its logger with the service already: one
			// "service" key per line.
			d.Logger = log.With("service", e.Role)
		}
		r.wg.Add(1)
		go func(e service.Registration, d service.Deps) {
			defer r.wg.Done()
			r.supervise(ctx, e, d, deps, log, check, conn, ready, failed, sup)
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

// supervise runs e until ctx ends. Before e was first ready a stop is a
// start-up failure, sent on failed; after, it is restarted with backoff.
func (r *Running) supervise(ctx context.Context, e service.Registration, d service.Deps, deps DepsFunc, log *slog.Logger,
	check *health.Checker, conn *atomic.Pointer[service.Deps], firstReady <-chan struct{}, failed chan<- error, sup Supervision) {
	inARow := 0
	for {
		began := time.Now()
		err := e.Run(ctx, d)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			err = ErrStoppedItself
		} else {
			err = fmt.Errorf("%w: %w", ErrStoppedItself, err)
		}
		err = fmt.Errorf("%s: %w", e.Role, err)
		select {
		case <-firstReady:
		default:
			r.mu.Lock()
			r.errs = append(r.errs, err)
			r.mu.Unlock()
			log.Error("service stopped", "service", e.Role, "err", err)
			failed <- err
			return
		}
		check.Stopped(err)
		r.restarts.Add(1)
		if time.Since(began) >= sup.Healthy {
			inARow = 0
		}
		inARow++
		delay := sup.MinBackoff << min(inARow-1, 16)
		delay = min(delay, sup.MaxBackoff)
		log.Error("service stopped on its own; restarting", "service", e.Role, "err", err, "restart", check.Status().Restarts, "backoff", delay.String())
		// The old connection may still be up (a router can stop with its
		// connection alive): drain it so the new one is the only one.
		if d.Bus != nil {
			go func(c interface{ Close() error }) { _ = c.Close() }(d.Bus)
		}
		for {
			t := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			nd, derr := deps(ctx, e.Role)
			if derr == nil {
				var once sync.Once
				nd.Ready = func() {
					once.Do(func() {
						check.Ready()
						log.Info("service restarted and ready", "service", e.Role, "restarts", check.Status().Restarts)
					})
				}
				nd.Dependency, nd.Mode = check.Dependency, check.Mode
				if nd.Logger == nil {
					// fabric.Deps tags its logger with the service
					// already: one "service" key per line.
					nd.Logger = log.With("service", e.Role)
				}
				d = nd
				conn.Store(&nd)
				break
			}
			if ctx.Err() != nil {
				return
			}
			log.Error("service not restarted yet: no deps", "service", e.Role, "err", derr)
			delay = min(delay*2, sup.MaxBackoff)
		}
	}
}

// Restarts counts the restarts of every service since Start.
func (r *Running) Restarts() int64 { return r.restarts.Load() }

// Failed delivers the error of each service that fails before it is first
// ready (a later stop is restarted, not reported here).
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
