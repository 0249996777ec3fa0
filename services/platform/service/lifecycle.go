package service

import "context"

// Router is what a service consumes with: platform/bus's Router.
type Router interface {
	Run(ctx context.Context) error
	// Running is closed once the router consumes; it never closes when Run
	// fails first.
	Running() chan struct{}
}

// StartRouter runs r until ctx ends and waits until it consumes or stops.
// Once it consumes, stopped receives Run's result when it stops. When Run
// returns first, stopped is nil and err is its result (nil when ctx ended).
// It selects on both, as Running never closes when Run fails.
func StartRouter(ctx context.Context, r Router) (stopped chan error, err error) {
	errc := make(chan error, 1)
	go func() { errc <- r.Run(ctx) }()
	select {
	case <-r.Running():
		return errc, nil
	case err := <-errc:
		return nil, err
	}
}

// Consume is the whole life of a service that only consumes: it starts r,
// and once r consumes calls started (the service's "consuming" log line;
// may be nil) and reports the service ready to health (d.Ready), then
// returns Run's result when r stops (ctx ended, or the router failed).
func Consume(ctx context.Context, d Deps, r Router, started func()) error {
	stopped, err := StartRouter(ctx, r)
	if stopped == nil {
		return err
	}
	if started != nil {
		started()
	}
	d.MarkReady()
	return <-stopped
}

// MarkReady calls d.Ready when it is set.
func (d Deps) MarkReady() {
	if d.Ready != nil {
		d.Ready()
	}
}
