// Package telemetry builds the OpenTelemetry tracer and meter providers of an
// agentk process from the standard OTEL_* variables, and a slog handler that
// stamps trace_id and span_id on every record logged inside a span.
//
// AGENTK_OTEL_DISABLED=1 builds the same providers (spans are still recorded,
// so trace ids exist for logs and for the bus's traceparent) but with no
// exporter: nothing ever leaves the process. Tests always set it. With no
// OTLP endpoint set (OTEL_EXPORTER_OTLP_ENDPOINT or the per-signal ones)
// nothing is exported either, and nothing is dialled or logged about it.
//
// Services are named agentk-<service> so the sandbox can refuse to
// investigate the pipeline's own telemetry.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Variables read.
const (
	EnvDisabled       = "AGENTK_OTEL_DISABLED"
	EnvSDKDisabled    = "OTEL_SDK_DISABLED"
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvMetricsEnpoint = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"
	EnvProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	EnvHeaders        = "OTEL_EXPORTER_OTLP_HEADERS"
	EnvServiceName    = "OTEL_SERVICE_NAME"
	EnvResourceAttrs  = "OTEL_RESOURCE_ATTRIBUTES"
)

// ErrConfig is returned by Setup for unusable OTEL_* values.
var ErrConfig = errors.New("telemetry: config")

// Providers are the process's tracer and meter providers.
type Providers struct {
	// Tracer is the provider of spans started outside any one service (all
	// spans, in a process that runs one service).
	Tracer *sdktrace.TracerProvider
	Meter  *sdkmetric.MeterProvider
	// roles are the per-service providers of SetupServices.
	roles     map[string]*sdktrace.TracerProvider
	exporter  sdktrace.SpanExporter
	exporting bool
}

// Exporting reports whether anything is exported.
func (p *Providers) Exporting() bool { return p.exporting }

// Setup builds the providers for service and installs them, with the W3C
// trace-context and baggage propagator, as the otel globals. It reads
// AGENTK_OTEL_DISABLED (or OTEL_SDK_DISABLED), OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES and OTEL_EXPORTER_OTLP_{,TRACES_,METRICS_}ENDPOINT,
// _PROTOCOL (http/protobuf, the default, or grpc) and _HEADERS through
// getenv. It returns ErrConfig naming every bad variable, or the exporter's
// error.
func Setup(ctx context.Context, service string, getenv func(string) string) (*Providers, error) {
	name := getenv(EnvServiceName)
	if name == "" {
		name = ServiceName(service)
	}
	return setup(ctx, name, service, nil, getenv)
}

// SetupServices is Setup for a process that runs several services (`agentk
// up`): spans started in a context marked with WithService(role), as the bus
// marks every handler's, are recorded under ServiceName(role) with their own
// resource; other spans and every metric under OTEL_SERVICE_NAME, default
// CombinedServiceName. All share one exporter.
func SetupServices(ctx context.Context, roles []string, getenv func(string) string) (*Providers, error) {
	name := getenv(EnvServiceName)
	if name == "" {
		name = CombinedServiceName
	}
	return setup(ctx, name, "", roles, getenv)
}

func setup(ctx context.Context, name, service string, roles []string, getenv func(string) string) (*Providers, error) {
	var errs []error
	ra, err := parsePairs(getenv(EnvResourceAttrs))
	if err != nil {
		errs = append(errs, fmt.Errorf("%w: %s: %w", ErrConfig, EnvResourceAttrs, err))
	}
	var ex export
	if !Disabled(getenv) {
		ex, err = readExport(getenv)
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	// No endpoint, no exporter: the SDK's localhost default would only
	// print a connection error every few seconds.
	te, me, err := exporters(ctx, ex.protocol, ex.traces, ex.metrics, ex.headers)
	if err != nil {
		return nil, err
	}
	p := newProviders(resourceAttrs(ra), name, service, roles, te, me)
	var global trace.TracerProvider = p.Tracer
	if len(p.roles) > 0 {
		global = &routing{def: p.Tracer, by: p.roles}
	}
	otel.SetTracerProvider(global)
	otel.SetMeterProvider(p.Meter)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return p, nil
}

// export is what the OTEL_EXPORTER_OTLP_* variables ask for.
type export struct {
	protocol, traces, metrics string
	headers                   map[string]string
}

// readExport reads the exporter's variables, returning every problem at once.
func readExport(getenv func(string) string) (export, error) {
	var errs []error
	ex := export{protocol: getenv(EnvProtocol)}
	if ex.protocol == "" {
		ex.protocol = "http/protobuf"
	}
	if ex.protocol != "http/protobuf" && ex.protocol != "grpc" {
		errs = append(errs, fmt.Errorf("%w: %s: expected http/protobuf or grpc, got %q", ErrConfig, EnvProtocol, ex.protocol))
	}
	headers, err := parsePairs(getenv(EnvHeaders))
	if err != nil {
		errs = append(errs, fmt.Errorf("%w: %s: %w", ErrConfig, EnvHeaders, err))
	}
	ex.headers = headers
	base := getenv(EnvEndpoint)
	ex.traces = signalEndpoint(getenv(EnvTracesEndpoint), base, ex.protocol, "/v1/traces")
	ex.metrics = signalEndpoint(getenv(EnvMetricsEnpoint), base, ex.protocol, "/v1/metrics")
	for _, s := range []struct{ name, ep string }{{EnvTracesEndpoint, ex.traces}, {EnvMetricsEnpoint, ex.metrics}} {
		if s.ep == "" {
			continue
		}
		if u, err := url.Parse(s.ep); err != nil || u.Host == "" {
			errs = append(errs, fmt.Errorf("%w: %s (or %s): expected an absolute URL, got %q", ErrConfig, s.name, EnvEndpoint, s.ep))
		}
	}
	return ex, errors.Join(errs...)
}

// resourceAttrs are OTEL_RESOURCE_ATTRIBUTES.
type resourceAttrs map[string]string

// resource describes the service name (and agentk service) with ra's
// attributes, which cannot override those two.
func (ra resourceAttrs) resource(name, service string) *resource.Resource {
	attrs := []attribute.KeyValue{attribute.String("service.name", name)}
	if service != "" {
		attrs = append(attrs, attribute.String("agentk.service", service))
	}
	for k, v := range ra {
		if k != "service.name" && k != "agentk.service" {
			attrs = append(attrs, attribute.String(k, v))
		}
	}
	return resource.NewWithAttributes("", attrs...)
}

// newProviders builds the tracer and meter providers over the exporters te
// and me (either may be nil), with one tracer provider per role when roles
// are given.
func newProviders(ra resourceAttrs, name, service string, roles []string, te sdktrace.SpanExporter, me sdkmetric.Exporter) *Providers {
	res := ra.resource(name, service)
	sampler := sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample()))
	newTracer := func(r *resource.Resource) *sdktrace.TracerProvider {
		opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(r), sampler}
		if te != nil {
			opts = append(opts, sdktrace.WithBatcher(sharedExporter{te}))
		}
		return sdktrace.NewTracerProvider(opts...)
	}
	mopts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	if me != nil {
		mopts = append(mopts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(me, sdkmetric.WithInterval(30*time.Second))))
	}
	p := &Providers{Tracer: newTracer(res), Meter: sdkmetric.NewMeterProvider(mopts...), exporter: te, exporting: te != nil || me != nil}
	if len(roles) > 0 {
		p.roles = map[string]*sdktrace.TracerProvider{}
		for _, r := range roles {
			p.roles[r] = newTracer(ra.resource(ServiceName(r), r))
		}
	}
	return p
}

func exporters(ctx context.Context, protocol, tEP, mEP string, headers map[string]string) (te sdktrace.SpanExporter, me sdkmetric.Exporter, err error) {
	if protocol == "grpc" {
		if tEP != "" {
			if te, err = otlptracegrpc.New(ctx, otlptracegrpc.WithHeaders(headers), otlptracegrpc.WithEndpointURL(tEP)); err != nil {
				return nil, nil, fmt.Errorf("telemetry: trace exporter: %w", err)
			}
		}
		if mEP != "" {
			if me, err = otlpmetricgrpc.New(ctx, otlpmetricgrpc.WithHeaders(headers), otlpmetricgrpc.WithEndpointURL(mEP)); err != nil {
				return nil, nil, fmt.Errorf("telemetry: metric exporter: %w", err)
			}
		}
		return te, me, nil
	}
	if tEP != "" {
		if te, err = otlptracehttp.New(ctx, otlptracehttp.WithHeaders(headers), otlptracehttp.WithEndpointURL(tEP)); err != nil {
			return nil, nil, fmt.Errorf("telemetry: trace exporter: %w", err)
		}
	}
	if mEP != "" {
		if me, err = otlpmetrichttp.New(ctx, otlpmetrichttp.WithHeaders(headers), otlpmetrichttp.WithEndpointURL(mEP)); err != nil {
			return nil, nil, fmt.Errorf("telemetry: metric exporter: %w", err)
		}
	}
	return te, me, nil
}

func signalEndpoint(specific, base, protocol, path string) string {
	if specific != "" {
		return specific
	}
	if base == "" || protocol == "grpc" {
		return base
	}
	return strings.TrimRight(base, "/") + path
}

// ForceFlush exports every span and metric recorded so far. It returns the
// exporters' errors.
func (p *Providers) ForceFlush(ctx context.Context) error {
	errs := []error{p.Tracer.ForceFlush(ctx)}
	for _, tp := range p.roles {
		errs = append(errs, tp.ForceFlush(ctx))
	}
	return errors.Join(append(errs, p.Meter.ForceFlush(ctx))...)
}

// Shutdown flushes and stops every provider, then the exporter. It returns
// their errors.
func (p *Providers) Shutdown(ctx context.Context) error {
	errs := []error{p.Tracer.Shutdown(ctx)}
	for _, tp := range p.roles {
		errs = append(errs, tp.Shutdown(ctx))
	}
	errs = append(errs, p.Meter.Shutdown(ctx))
	if p.exporter != nil {
		errs = append(errs, p.exporter.Shutdown(ctx))
	}
	return errors.Join(errs...)
}

// Tracer returns a tracer of the installed provider.
func Tracer(name string) trace.Tracer { return otel.Tracer(name) }

// Disabled reports whether AGENTK_OTEL_DISABLED (or OTEL_SDK_DISABLED) asks
// that nothing leave the process: tests always set it.
func Disabled(getenv func(string) string) bool {
	return isTrue(getenv(EnvDisabled)) || isTrue(getenv(EnvSDKDisabled))
}

func isTrue(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// parsePairs parses "k=v,k2=v2" with URL-encoded values (the OTEL format).
func parsePairs(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		k, v, ok := strings.Cut(item, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("expected key=value, got %q", item)
		}
		dv, err := url.QueryUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("bad escape in %q", item)
		}
		out[strings.TrimSpace(k)] = dv
	}
	return out, nil
}
