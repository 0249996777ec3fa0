package bridge

import (
	"context"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// resolveSweepInterval is how often the bridge checks every open Slack
// message against its incident's record, for a resolve whose rewrite failed
// or happened while a watch was down.
const resolveSweepInterval = 30 * time.Second

// resolves is what the bridge does when an incident's alert resolves.
type resolves interface {
	// ShowResolved rewrites the open messages of one incident.
	ShowResolved(ctx context.Context, incidentID string, at time.Time) error
	// ShowResolves rewrites every open message whose incident resolved.
	ShowResolves(ctx context.Context) error
}

// followResolves keeps the posted Slack messages in step with the ingester's
// incident records (agentk_incidents): it sweeps once at start (a restarted
// bridge still rewrites what resolved while it was down), then rewrites on
// each record update, and sweeps again every interval for anything a failed
// rewrite left behind. The record in agentk_decisions says what each message
// shows, so nothing is rewritten twice. It returns when ctx is done.
func followResolves(ctx context.Context, kv jetstream.KeyValue, desk resolves, interval time.Duration, log *slog.Logger) {
	sweep := func() {
		if err := desk.ShowResolves(ctx); err != nil && ctx.Err() == nil {
			log.WarnContext(ctx, "could not show every resolved alert in slack; will retry", "err", err)
		}
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for ctx.Err() == nil {
		w, err := kv.WatchAll(ctx, jetstream.UpdatesOnly())
		if err != nil {
			log.WarnContext(ctx, "cannot watch incident records; sweeping only", "err", err)
		}
		sweep()
		watchResolves(ctx, w, desk, t.C, sweep, log)
	}
}

// watchResolves serves one watch (nil: none) until it ends or ctx is done.
func watchResolves(ctx context.Context, w jetstream.KeyWatcher, desk resolves, tick <-chan time.Time, sweep func(), log *slog.Logger) {
	var updates <-chan jetstream.KeyValueEntry
	if w != nil {
		defer func() { _ = w.Stop() }()
		updates = w.Updates()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			sweep()
			if w == nil {
				return
			}
		case e, ok := <-updates:
			if !ok {
				return
			}
			showResolve(ctx, e, desk, log)
		}
	}
}

// showResolve rewrites the messages of the incident of one record update
// once it says resolved.
func showResolve(ctx context.Context, e jetstream.KeyValueEntry, desk resolves, log *slog.Logger) {
	if e == nil || e.Operation() != jetstream.KeyValuePut {
		return
	}
	id, at, err := incidentResolve(e.Value())
	if err != nil || at.IsZero() || id != e.Key() {
		return
	}
	if err := desk.ShowResolved(ctx, id, at); err != nil {
		log.WarnContext(ctx, "resolved alert not shown in slack; the sweep retries", "incident_id", id, "err", err)
	}
}
