package natsport

import (
	"container/list"
	"context"
	"fmt"
	"log/slog"
	"sync"

	"agentk/contracts"
	"agentk/platform/bus"
)

// alertHandler handles one verified alert that is to be investigated; raw
// is its signed envelope.
type alertHandler func(ctx context.Context, alert contracts.AlertV1, raw []byte) (bus.Out, error)

// DoneCacheSize is how many finished incidents' reports are remembered, so a
// redelivered alert returns the same report instead of a second investigation.
const DoneCacheSize = 4096

// onePerIncident wraps next so that each incident is investigated once at a
// time and once in all: a redelivery of a finished incident returns its
// report (the last size are remembered), and an alert of an incident still
// being investigated is ErrInProgress (transient: redelivered later).
func onePerIncident(size int, log *slog.Logger, next alertHandler) alertHandler {
	var (
		mu       sync.Mutex
		inflight = map[string]bool{}
		done     = map[string]bus.Out{}
		order    = list.New()
	)
	return func(ctx context.Context, alert contracts.AlertV1, raw []byte) (bus.Out, error) {
		id := alert.IncidentID
		mu.Lock()
		if out, ok := done[id]; ok {
			mu.Unlock()
			log.InfoContext(ctx, "incident already investigated, republishing its report", "incident_id", id,
				"incident_service", alert.Service, "investigation_id", InvestigationID(id))
			return out, nil
		}
		if inflight[id] {
			mu.Unlock()
			return bus.Out{}, fmt.Errorf("%w: %s", ErrInProgress, id)
		}
		inflight[id] = true
		mu.Unlock()
		out, err := next(ctx, alert, raw)
		mu.Lock()
		defer mu.Unlock()
		delete(inflight, id)
		if err == nil {
			done[id] = out
			order.PushBack(id)
			for order.Len() > size {
				delete(done, order.Remove(order.Front()).(string))
			}
		}
		return out, err
	}
}

// limit wraps next so that at most n run at once; a caller waiting for a
// slot gives up when its context ends.
func limit(n int, next alertHandler) alertHandler {
	sem := make(chan struct{}, n)
	return func(ctx context.Context, alert contracts.AlertV1, raw []byte) (bus.Out, error) {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return bus.Out{}, ctx.Err()
		}
		defer func() { <-sem }()
		return next(ctx, alert, raw)
	}
}
