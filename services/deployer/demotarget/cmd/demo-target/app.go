package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Runtime fault switches: the non-deployment failure classes.
const (
	FaultDBPool       = "db_pool_exhaustion"
	FaultRetrieval    = "retrieval_latency"
	FaultDependency   = "dependency_outage"
	FaultSaturation   = "resource_saturation"
	FaultTrafficSurge = "traffic_surge"
)

var knownFaults = []string{FaultDBPool, FaultRetrieval, FaultDependency, FaultSaturation, FaultTrafficSurge}

type faultSet map[string]bool

func parseFaults(s string) (faultSet, error) {
	f := faultSet{}
	var bad []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		ok := false
		for _, k := range knownFaults {
			ok = ok || k == name
		}
		if !ok {
			bad = append(bad, name)
			continue
		}
		f[name] = true
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("unknown faults %v (known: %v)", bad, knownFaults)
	}
	return f, nil
}

type app struct {
	service, version, releaseFault string
	tracer                         trace.Tracer
	log                            *slog.Logger

	// callee is where /ask charges first (CALLEE_URL); nil: /ask calls nothing.
	callee *callee
	// charges counts /charge calls: a bad release fails every second one.
	charges atomic.Uint64

	mu      sync.RWMutex
	faults  faultSet
	asks    atomic.Uint64
	ballast [][]byte
}

func newApp(service, version, releaseFault string, faults faultSet, tr trace.Tracer, log *slog.Logger) *app {
	return &app{service: service, version: version, releaseFault: releaseFault, faults: faults, tracer: tr, log: log}
}

func (a *app) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "version": a.version})
	})
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"service": a.service, "version": a.version, "release_fault": a.releaseFault})
	})
	mux.HandleFunc("/ask", a.ask)
	mux.HandleFunc("POST /charge", a.chargeHandler)
	mux.HandleFunc("GET /admin/faults", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, a.active())
	})
	// POST /admin/faults?set=db_pool_exhaustion,retrieval_latency (empty set clears).
	mux.HandleFunc("POST /admin/faults", func(w http.ResponseWriter, r *http.Request) {
		f, err := parseFaults(r.URL.Query().Get("set"))
		if err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
			return
		}
		a.mu.Lock()
		a.faults = f
		a.mu.Unlock()
		a.log.Warn("faults switched", "faults", f)
		writeJSON(w, http.StatusOK, a.active())
	})
	return mux
}

func (a *app) active() []string {
	a.mu.RLock()
	defer a.mu.RUnlock()
	out := []string{}
	for _, k := range knownFaults {
		if a.faults[k] {
			out = append(out, k)
		}
	}
	return out
}

func (a *app) on(f string) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.faults[f]
}

// ask is the one business endpoint. Each fault leaves the telemetry its class
// is known by (INCIDENT-FORMAT.md's catalogue).
func (a *app) ask(w http.ResponseWriter, r *http.Request) {
	ctx, span := a.tracer.Start(r.Context(), r.Method+" /ask", trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("http.request.method", r.Method), attribute.String("http.route", "/ask")))
	defer span.End()
	n := a.asks.Add(1)
	status, body := a.answer(ctx, n)
	span.SetAttributes(attribute.Int("http.response.status_code", status))
	if status >= 500 {
		span.SetStatus(codes.Error, body["error"])
		a.log.Error("ask failed", "status", status, "error", body["error"], "trace_id", span.SpanContext().TraceID().String())
	}
	body["version"] = a.version
	writeJSON(w, status, body)
}

func (a *app) answer(ctx context.Context, n uint64) (int, map[string]string) {
	if a.callee != nil {
		if ok, why := a.charge(ctx); !ok {
			return http.StatusBadGateway, map[string]string{"error": why}
		}
	}
	if a.releaseFault == "bad_release" && n%2 == 0 {
		_, s := a.tracer.Start(ctx, "render.answer")
		s.SetStatus(codes.Error, "nil template: release "+a.version)
		s.End()
		return http.StatusInternalServerError, map[string]string{"error": "template render failed: nil template"}
	}
	if a.on(FaultSaturation) {
		_, s := a.tracer.Start(ctx, "compute.rank")
		a.burn(50 * time.Millisecond)
		s.End()
	}
	if a.on(FaultRetrieval) {
		_, s := a.tracer.Start(ctx, "rag.retrieval", trace.WithAttributes(attribute.String("db.system", "pgvector")))
		sleep(ctx, 1500*time.Millisecond)
		s.End()
	}
	if a.on(FaultDBPool) && n%3 != 0 {
		_, s := a.tracer.Start(ctx, "db.pool.checkout", trace.WithAttributes(attribute.String("db.system", "postgresql")))
		sleep(ctx, 100*time.Millisecond)
		s.SetStatus(codes.Error, "pool checkout timed out after 100ms")
		s.End()
		return http.StatusServiceUnavailable, map[string]string{"error": "pool checkout timed out after 100ms (pool exhausted: 10/10 in use)"}
	}
	if a.on(FaultDependency) {
		_, s := a.tracer.Start(ctx, "upstream.llm", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attribute.String("server.address", "llm-gateway")))
		s.SetStatus(codes.Error, "dial tcp llm-gateway:443: connect: connection refused")
		s.End()
		return http.StatusBadGateway, map[string]string{"error": "upstream llm-gateway: connection refused"}
	}
	return http.StatusOK, map[string]string{"answer": "Orders ship within 2 business days."}
}

// burn spins the CPU and grows the heap: resource_saturation.
func (a *app) burn(d time.Duration) {
	a.mu.Lock()
	if len(a.ballast) < 64 {
		a.ballast = append(a.ballast, make([]byte, 4<<20))
	}
	a.mu.Unlock()
	end := time.Now().Add(d)
	x := 0
	for time.Now().Before(end) {
		x++
	}
	_ = x
}

// surge drives the service's own /ask far above its normal rate while
// traffic_surge is on: latency rises evenly across endpoints. Its ticker
// loop is written out rather than taken from platform/wait on purpose: the
// demo target stands for a user's service and imports nothing of agentk.
func (a *app) surge(ctx context.Context, url string) {
	c := &http.Client{Timeout: 2 * time.Second}
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if !a.on(FaultTrafficSurge) {
				continue
			}
			go func() {
				if resp, err := c.Get(url); err == nil {
					resp.Body.Close()
				}
			}()
		}
	}
}

// marker emits the deployment.marker span: the moment this version started serving.
func (a *app) marker(ctx context.Context, previous, id string) {
	attrs := []attribute.KeyValue{attribute.String("deployment.version", a.version)}
	if previous != "" {
		attrs = append(attrs, attribute.String("deployment.previous_version", previous))
	}
	if id != "" {
		attrs = append(attrs, attribute.String("deployment.id", id))
	}
	_, s := a.tracer.Start(ctx, "deployment.marker", trace.WithAttributes(attrs...))
	s.End()
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
