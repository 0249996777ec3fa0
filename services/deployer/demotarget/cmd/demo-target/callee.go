package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Two services (issue 33, DESIGN.md rule 17: the alerted service is not
// always the one that changed). The same binary plays the callee: every
// instance serves POST /charge, which fails half of its calls when the
// release has bad_release baked in (agentk-demo/payment:v2). With
// CALLEE_URL set (http://payment:8080), /ask calls the callee's /charge
// first, propagating the trace (W3C traceparent), and answers 502 when the
// callee fails: the caller's SLO burns for the callee's release.

// callee is the caller side: where /ask sends its charge.
type callee struct {
	url    string // the callee's base URL, CALLEE_URL
	name   string // its service name, for peer.service (CALLEE_NAME, default the URL's host)
	client *http.Client
}

func newCallee(base, name string) (*callee, error) {
	if base == "" {
		return nil, nil
	}
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("CALLEE_URL %q is not an http(s) URL", base)
	}
	if name == "" {
		name = u.Hostname()
	}
	return &callee{url: base, name: name, client: &http.Client{Timeout: 2 * time.Second}}, nil
}

var propagator = propagation.TraceContext{}

// charge calls the callee's /charge in a client span and reports whether it
// answered 2xx, and why not.
func (a *app) charge(ctx context.Context) (bool, string) {
	c := a.callee
	u, _ := url.Parse(c.url)
	ctx, s := a.tracer.Start(ctx, "POST", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("http.request.method", "POST"), attribute.String("url.full", c.url+"/charge"),
		attribute.String("server.address", u.Hostname()), attribute.String("peer.service", c.name)))
	defer s.End()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+"/charge", nil)
	if err != nil {
		s.SetStatus(codes.Error, err.Error())
		return false, err.Error()
	}
	propagator.Inject(ctx, propagation.HeaderCarrier(req.Header))
	resp, err := c.client.Do(req)
	if err != nil {
		s.SetStatus(codes.Error, err.Error())
		return false, fmt.Sprintf("%s: %v", c.name, err)
	}
	_ = resp.Body.Close()
	s.SetAttributes(attribute.Int("http.response.status_code", resp.StatusCode))
	if resp.StatusCode >= 300 {
		msg := fmt.Sprintf("upstream %s answered %d", c.name, resp.StatusCode)
		s.SetStatus(codes.Error, msg)
		return false, msg
	}
	return true, ""
}

// chargeHandler is the callee side: POST /charge in a server span that
// continues the caller's trace.
func (a *app) chargeHandler(w http.ResponseWriter, r *http.Request) {
	ctx := propagator.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	_, span := a.tracer.Start(ctx, "POST /charge", trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("http.request.method", r.Method), attribute.String("http.route", "/charge")))
	defer span.End()
	status, body := http.StatusOK, map[string]string{"charge": "accepted", "version": a.version}
	if a.releaseFault == "bad_release" && a.charges.Add(1)%2 == 0 {
		status, body = http.StatusInternalServerError, map[string]string{"error": "charge rejected: card network code 05 on every card (release " + a.version + ")", "version": a.version}
		span.SetStatus(codes.Error, body["error"])
		a.log.Error("charge failed", "error", body["error"], "trace_id", span.SpanContext().TraceID().String())
	}
	span.SetAttributes(attribute.Int("http.response.status_code", status))
	writeJSON(w, status, body)
}
