package dockerrt

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"agentk/services/deployer/internal/ledger"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
)

// Watch feeds observe with every container of the project that is running
// now and every one that starts from now on (Docker's start events), until
// ctx is done. The event stream is subscribed before the listing, so no start
// falls between them; it reconnects after an error. synced, when non-nil, is
// called once the initial listing has been observed.
func (d *Docker) Watch(ctx context.Context, observe func(context.Context, ledger.Observation) error, synced func()) error {
	msgs, errs := d.subscribe(ctx)
	if err := d.observeRunning(ctx, observe); err != nil {
		return err
	}
	if synced != nil {
		synced()
	}
	backoff := time.Second
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-errs:
			if ctx.Err() != nil {
				return nil
			}
			t := time.NewTimer(backoff)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-t.C:
			}
			backoff = min(2*backoff, 30*time.Second)
			d.log().Warn("docker events stream lost; resubscribing", "project", d.project, "err", err)
			msgs, errs = d.subscribe(ctx)
			if err := d.observeRunning(ctx, observe); err != nil {
				d.log().Error("ledger resync failed", "project", d.project, "err", err)
			}
		case m := <-msgs:
			backoff = time.Second
			in, err := d.cli.ContainerInspect(ctx, m.Actor.ID)
			if cerrdefs.IsNotFound(err) {
				continue
			}
			if err != nil {
				d.log().Error("inspect started container", "project", d.project, "container", m.Actor.ID, "err", err)
				continue
			}
			if o, ok := d.Observation(in); ok {
				o.FromEvent = true
				if err := observe(ctx, o); err != nil {
					d.log().Error("ledger update failed", "project", d.project, "compose_service", o.Service, "err", err)
				}
			}
		}
	}
}

func (d *Docker) subscribe(ctx context.Context) (<-chan events.Message, <-chan error) {
	f := filters.NewArgs(
		filters.Arg("type", string(events.ContainerEventType)),
		filters.Arg("event", string(events.ActionStart)),
		filters.Arg("label", LabelProject+"="+d.project),
	)
	return d.cli.Events(ctx, events.ListOptions{Filters: f})
}

func (d *Docker) observeRunning(ctx context.Context, observe func(context.Context, ledger.Observation) error) error {
	cs, err := d.Containers(ctx, "")
	if err != nil {
		return err
	}
	for _, c := range cs {
		if c.State == nil || !c.State.Running {
			continue
		}
		if o, ok := d.Observation(c); ok {
			if err := observe(ctx, o); err != nil {
				return fmt.Errorf("%w: observe %s: %w", ErrDocker, o.Service, err)
			}
		}
	}
	return nil
}

func (d *Docker) log() *slog.Logger {
	if d.Log == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return d.Log
}
