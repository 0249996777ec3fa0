// Command otlpsink is an OTLP/HTTP receiver on a compose network, for the
// compose end-to-end test: every agentk container exports its spans to it
// (SIGNOZ_OTLP_ENDPOINT=http://otlp:4318) instead of a real collector, and the
// test reads back what arrived. Built by the test into a FROM-scratch image;
// it is not shipped.
//
//	otlpsink -otlp :4318 -read :4319
//
// -otlp takes OTLP/HTTP protobuf exports (/v1/traces, /v1/metrics) and is
// only reachable on the compose network; -read answers GET /spans with JSON
// (the spans as platform/telemetry/otlptest flattens them, the request count
// and the decode errors) and is the one port the test publishes, on loopback.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"agentk/platform/telemetry/otlptest"
)

// Dump is what GET /spans answers.
type Dump struct {
	Requests int             `json:"requests"`
	Errors   []string        `json:"errors"`
	Spans    []otlptest.Span `json:"spans"`
	Metrics  []string        `json:"metrics"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "otlpsink:", err)
		os.Exit(1)
	}
}

func run() error {
	otlpAddr := flag.String("otlp", ":4318", "OTLP/HTTP listen address (the compose network)")
	readAddr := flag.String("read", ":4319", "read-out listen address (published on loopback)")
	flag.Parse()

	// otlptest listens on the container's loopback; the OTLP port proxies to it.
	rcv := otlptest.Start()
	defer rcv.Close()
	target, err := url.Parse(rcv.URL)
	if err != nil {
		return err
	}
	otlp := http.NewServeMux()
	otlp.Handle("POST /v1/", httputil.NewSingleHostReverseProxy(target))

	read := http.NewServeMux()
	read.HandleFunc("GET /spans", func(w http.ResponseWriter, _ *http.Request) {
		d := Dump{Requests: rcv.Requests(), Spans: rcv.Spans(), Metrics: rcv.MetricNames(), Errors: []string{}}
		for _, e := range rcv.Errors() {
			d.Errors = append(d.Errors, e.Error())
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(d)
	})

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	servers := []*http.Server{
		{Addr: *otlpAddr, Handler: otlp, ReadHeaderTimeout: 5 * time.Second},
		{Addr: *readAddr, Handler: read, ReadHeaderTimeout: 5 * time.Second},
	}
	errc := make(chan error, len(servers))
	for _, s := range servers {
		go func() { errc <- s.ListenAndServe() }()
	}
	fmt.Fprintf(os.Stderr, "otlpsink: OTLP on %s, read-out on %s\n", *otlpAddr, *readAddr)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errs []error
	for _, s := range servers {
		if err := s.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
