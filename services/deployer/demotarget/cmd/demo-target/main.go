// Command demo-target is a small HTTP service to roll back: shop-api in the
// agentk demo. Its version is baked in at build time (-ldflags -X
// main.version=v2), and so is a release's fault (-X main.releaseFault=
// bad_release): v2 fails half of its /ask requests with a 500, a
// deployment-class fault a rollback fixes. Runtime faults a rollback does not
// fix are switched on with FAULTS (comma list) or POST /admin/faults.
//
// It emits a span per request, exported over OTLP/HTTP only when
// OTEL_EXPORTER_OTLP_ENDPOINT is set. Like a user's service it emits no
// deployment.marker of its own: the agentk deployer's ledger watcher
// announces each start on a new image. EMIT_DEPLOYMENT_MARKER=1 makes it emit
// one when it starts serving, to show how a service could do it itself.
//
// Two services (callee.go): every instance serves POST /charge, which a
// bad_release build fails half of the time (agentk-demo/payment:v2); with
// CALLEE_URL set, /ask charges there first and answers 502 when it fails.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Set with -ldflags -X.
var (
	version      = "dev"
	releaseFault = ""
)

func main() {
	healthcheck := flag.Bool("healthcheck", false, "probe /healthz on the local port and exit 0 when healthy (the image's HEALTHCHECK)")
	flag.Parse()
	port := getenv("PORT", "8080")
	if *healthcheck {
		os.Exit(probe("http://127.0.0.1:" + port + "/healthz"))
	}
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, log, port); err != nil {
		log.Error("demo-target stopped", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, log *slog.Logger, port string) error {
	service := getenv("SERVICE_NAME", "shop-api")
	tp, err := newTracerProvider(ctx, service, version)
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = tp.Shutdown(sctx)
	}()
	faults, err := parseFaults(os.Getenv("FAULTS"))
	if err != nil {
		return err
	}
	app := newApp(service, version, releaseFault, faults, tp.Tracer("demo-target"), log)
	if app.callee, err = newCallee(os.Getenv("CALLEE_URL"), os.Getenv("CALLEE_NAME")); err != nil {
		return err
	}
	srv := &http.Server{Addr: ":" + port, Handler: app.routes(), ReadHeaderTimeout: 5 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	if os.Getenv("EMIT_DEPLOYMENT_MARKER") == "1" {
		app.marker(ctx, os.Getenv("PREVIOUS_VERSION"), os.Getenv("DEPLOYMENT_ID"))
	}
	log.Info("serving", "service", service, "version", version, "release_fault", releaseFault, "port", port)
	go app.surge(ctx, "http://127.0.0.1:"+port+"/ask")
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func probe(url string) int {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 1
	}
	return 0
}

func getenv(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
