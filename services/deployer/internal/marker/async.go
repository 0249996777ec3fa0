package marker

import (
	"context"
	"log/slog"
	"sync"

	"agentk/services/deployer/internal/rollback"
)

// Async hands marks to another Marker on one goroutine of its own, in
// order, so that a slow or unreachable collector (the OTLP exporter retries
// for up to a minute) never holds up the caller: the ledger watcher must
// keep the ledger current whatever the collector does. A mark that finds
// the queue full is dropped and logged at Error.
type Async struct {
	next rollback.Marker
	log  *slog.Logger

	mu     sync.Mutex
	closed bool
	queue  chan queued
	done   chan struct{}
}

type queued struct {
	ctx context.Context
	m   rollback.Mark
}

// NewAsync starts the goroutine that hands marks to next; size bounds the
// marks waiting (at least 1). Close stops it.
func NewAsync(next rollback.Marker, size int, log *slog.Logger) *Async {
	a := &Async{next: next, log: log, queue: make(chan queued, max(size, 1)), done: make(chan struct{})}
	go func() {
		defer close(a.done)
		for q := range a.queue {
			a.next.Mark(q.ctx, q.m)
		}
	}()
	return a
}

// Mark implements rollback.Marker: it queues m and returns at once.
func (a *Async) Mark(ctx context.Context, m rollback.Mark) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.closed {
		select {
		case a.queue <- queued{ctx: context.WithoutCancel(ctx), m: m}:
			return
		default:
		}
	}
	if a.log != nil {
		a.log.ErrorContext(ctx, "deployment marker dropped: the marker queue is full or closed", "incident_service", m.Service,
			"version", m.Version, "deployment_id", m.DeploymentID)
	}
}

// Close stops taking marks and waits until the queued ones are handed on,
// or until ctx is done. It returns ctx's error in that case.
func (a *Async) Close(ctx context.Context) error {
	a.mu.Lock()
	if !a.closed {
		a.closed = true
		close(a.queue)
	}
	a.mu.Unlock()
	select {
	case <-a.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
