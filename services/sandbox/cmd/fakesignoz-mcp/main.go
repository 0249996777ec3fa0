// Command fakesignoz-mcp is a small SigNoz MCP server for tests and replays
// (package agentk/services/sandbox/fakesignoz/mcpserver): the official
// server's read tools, with its exact names and input schemas, backed by the
// SigNoz API at SIGNOZ_URL. It is configured like the official server:
//
//	SIGNOZ_URL       the SigNoz API (required)
//	SIGNOZ_API_KEY   the key; in http mode it may come from each request instead
//	TRANSPORT_MODE   stdio (default) or http
//	MCP_SERVER_HOST  http mode: the interface (default 127.0.0.1: unlike the
//	                 official server, never every interface unless asked)
//	MCP_SERVER_PORT  http mode: the port (default 8000); path /mcp
package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"agentk/services/sandbox/fakesignoz/mcpserver"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "fakesignoz-mcp:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := mcpserver.New(mcpserver.Options{SigNozURL: os.Getenv("SIGNOZ_URL"), APIKey: os.Getenv("SIGNOZ_API_KEY")})
	if err != nil {
		return err
	}
	switch mode := os.Getenv("TRANSPORT_MODE"); mode {
	case "", "stdio":
		return srv.Run(ctx, &mcp.StdioTransport{})
	case "http":
		port := os.Getenv("MCP_SERVER_PORT")
		if port == "" {
			port = "8000"
		}
		mux := http.NewServeMux()
		var posts atomic.Int64
		h := mcpserver.HTTPHandler(srv)
		mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				posts.Add(1)
			}
			h.ServeHTTP(w, r)
		}))
		// Said on exit, so that a test can tell the server was used.
		defer func() { fmt.Fprintf(os.Stderr, "fakesignoz-mcp: served %d MCP requests\n", posts.Load()) }()
		host := os.Getenv("MCP_SERVER_HOST")
		if host == "" {
			host = "127.0.0.1"
		}
		hs := &http.Server{Addr: net.JoinHostPort(host, port), Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() {
			<-ctx.Done()
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = hs.Shutdown(sctx)
		}()
		if err := hs.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	default:
		return fmt.Errorf("TRANSPORT_MODE=%q: want stdio or http", mode)
	}
}
