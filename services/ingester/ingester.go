// Package ingester is the front door of agentk: it serves the SigNoz /
// Alertmanager webhook, turns alerts into incidents (one per service and rule
// while it fires) and publishes each incident's alert, sealed with the
// ingester's key, on agentk.alert.v1. A 2xx means the alert is durable in
// JetStream.
package ingester

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"agentk/contracts"
	"agentk/platform/service"
	"agentk/platform/topology"
	"agentk/services/ingester/internal/config"
	"agentk/services/ingester/internal/httpport"
	"agentk/services/ingester/internal/incidents"
	"agentk/services/ingester/internal/natsport"

	"go.opentelemetry.io/otel"
)

// ErrStart is returned by Run when the ingester cannot start.
var ErrStart = errors.New("ingester: start")

// ErrServe is returned when the HTTP endpoint cannot listen or fails.
var ErrServe = errors.New("ingester: serve")

// Run serves the webhook on AGENTK_INGEST_ADDR until ctx is done.
func Run(ctx context.Context, d service.Deps) error {
	cfg, err := config.FromEnv(d.Getenv)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("%w: listen %s: %w", ErrServe, cfg.Addr, err)
	}
	return Serve(ctx, d, ln)
}

// Serve is Run on an existing listener (tests pass 127.0.0.1:0). It closes ln.
func Serve(ctx context.Context, d service.Deps, ln net.Listener) error {
	return serve(ctx, d, ln, nil)
}

// serve lets a test wrap the publisher (to kill the bus mid-delivery).
func serve(ctx context.Context, d service.Deps, ln net.Listener, wrap func(incidents.Publisher) incidents.Publisher) error {
	defer func() { _ = ln.Close() }() // the HTTP server may have closed it already
	cfg, err := config.FromEnv(d.Getenv)
	if err != nil {
		return err
	}
	idx, mux, err := build(ctx, d, cfg, wrap)
	if err != nil {
		return err
	}
	rctx, rcancel := context.WithCancel(ctx)
	defer rcancel()
	routerErr, err := startDecisions(rctx, d, idx)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if !cfg.AuthConfigured() {
		d.Logger.Warn("webhook accepts unauthenticated requests: local-only mode", "addr", ln.Addr().String())
	}
	d.Logger.Info("ingester serving", "addr", ln.Addr().String(), "path", httpport.Path, "max_investigations", cfg.MaxInvestigations)
	d.MarkReady()
	return loop(ctx, d, cfg, idx, srv, errc, routerErr)
}

// build is the ingester's index over the incidents bucket and its HTTP mux.
func build(ctx context.Context, d service.Deps, cfg config.Config, wrap func(incidents.Publisher) incidents.Publisher) (*incidents.Index, *http.ServeMux, error) {
	bucket, err := d.Bus.KeyValue(ctx, topology.BucketIncidents)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	metrics, err := httpport.NewOTelMetrics(otel.GetMeterProvider())
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	var pub incidents.Publisher = natsport.NewPublisher(d.Bus, d.Signer, d.Now)
	if wrap != nil {
		pub = wrap(pub)
	}
	kv, err := natsport.NewKV(ctx, d.Bus.JetStream(), bucket)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	idx := incidents.New(kv, pub, cfg.MaxInvestigations, cfg.Lease)
	mux := http.NewServeMux()
	mux.Handle(httpport.Path, httpport.Traced(httpport.New(idx, httpport.Options{
		Auth:    httpport.Auth{Token: cfg.Token, BasicUser: cfg.BasicUser, BasicPassword: cfg.BasicPassword},
		MaxBody: cfg.MaxBody, Timeout: cfg.Timeout, Now: d.Now, Logger: d.Logger, Metrics: metrics,
	})))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		if !d.Bus.Connected() {
			http.Error(w, "bus disconnected", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	return idx, mux, nil
}

// startDecisions runs the decision consumer until ctx is done and returns
// once it is running; the channel gets its end.
func startDecisions(ctx context.Context, d service.Deps, idx *incidents.Index) (<-chan error, error) {
	router, err := d.Bus.NewRouter(d.Logger)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	dec := &natsport.Decisions{Index: idx, Keyring: d.Keyring, Now: d.Now, Logger: d.Logger}
	router.Handle(natsport.DecisionHandlerName, contracts.SubjectDecision, dec.Handle)
	routerErr, err := service.StartRouter(ctx, router)
	if routerErr == nil {
		return nil, fmt.Errorf("%w: decisions: %w", ErrStart, err)
	}
	return routerErr, nil
}

// loop dispatches queued incidents on a ticker until ctx is done or the
// HTTP server or the decision consumer stops.
func loop(ctx context.Context, d service.Deps, cfg config.Config, idx *incidents.Index, srv *http.Server, errc, routerErr <-chan error) error {
	tick := time.NewTicker(cfg.DispatchEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return shutdown(ctx, srv, routerErr)
		case err := <-errc:
			return fmt.Errorf("%w: %w", ErrServe, err)
		case err := <-routerErr:
			// The decision consumer stopped: say so (the supervisor
			// restarts the whole service) rather than leak slots.
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			_ = srv.Shutdown(sctx)
			if err == nil {
				err = errors.New("router stopped")
			}
			return fmt.Errorf("ingester: decisions: %w", err)
		case <-tick.C:
			released, err := idx.Dispatch(ctx, d.Now())
			if err != nil {
				d.Logger.WarnContext(ctx, "dispatch of queued incidents failed", "err", err)
			}
			for _, id := range released {
				d.Logger.InfoContext(ctx, "queued incident released to investigation", "incident_id", id)
			}
		}
	}
}

// shutdown stops the HTTP server, then waits for the decision handler to
// finish its in-flight message.
func shutdown(ctx context.Context, srv *http.Server, routerErr <-chan error) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	serr := srv.Shutdown(sctx)
	if err := <-routerErr; err != nil {
		return fmt.Errorf("ingester: decisions: %w", err)
	}
	if serr != nil {
		return fmt.Errorf("%w: shutdown: %w", ErrServe, serr)
	}
	return nil
}
