// Command fakesignoz serves one recorded incident through SigNoz's query API
// (agentk/services/sandbox/fakesignoz) on a compose network, for the compose
// end-to-end test: there is no real SigNoz there. Built by the test into a
// FROM-scratch image; it is not shipped.
//
//	fakesignoz -addr :8080 -key-file /run/secrets/signoz_api_key /incidents/retry-storm-01
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"agentk/contracts/incident"
	"agentk/services/sandbox/fakesignoz"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "fakesignoz:", err)
		os.Exit(1)
	}
}

func run() error {
	addr := flag.String("addr", ":8080", "listen address")
	keyFile := flag.String("key-file", "", "file holding the API key every request must carry")
	flag.Parse()
	if flag.NArg() != 1 || *keyFile == "" {
		return errors.New("usage: fakesignoz -key-file FILE [-addr :8080] <incident-dir>")
	}
	key, err := os.ReadFile(*keyFile)
	if err != nil {
		return err
	}
	inc, err := incident.Load(flag.Arg(0))
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := &http.Server{
		Addr:              *addr,
		Handler:           fakesignoz.New(inc, fakesignoz.Options{APIKey: strings.TrimSpace(string(key))}),
		ReadHeaderTimeout: 5 * time.Second,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	fmt.Fprintf(os.Stderr, "fakesignoz: serving %s on %s\n", inc.Meta.ID, *addr)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}
