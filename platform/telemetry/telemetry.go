// Package telemetry builds the OpenTelemetry tracer and meter providers of an
// agentk process from the standard OTEL_* variables, and a slog handler that
// stamps trace_id and span_id on every record logged inside a span.
//
// AGENTK_OTEL_DISABLED=1 builds the same providers (spans are still recorded,
// so trace ids exist for logs and for the bus's traceparent) but with no
// exporter: nothing ever leaves the process. Tests always set it.
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
	Tracer    *sdktrace.TracerProvider
	Meter     *sdkmetric.MeterProvider
	exporting bool
}

// Exporting reports whether anything is exported.
func (p *Providers) Exporting() bool { return p.exporting }

// Setup builds the providers for service and installs them, with the W3C
// trace-context and baggage propagator, as the otel globals. It reads
// AGENTK_OTEL_DISABLED, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES and
// OTEL_EXPORTER_OTLP_{,TRACES_,METRICS_}ENDPOINT, _PROTOCOL (http/protobuf,
// the default, or grpc) and _HEADERS through getenv. It returns ErrConfig
// naming every bad variable, or the exporter's error.
func Setup(ctx context.Context, service string, getenv func(string) string) (*Providers, error) {
	disabled := isTrue(getenv(EnvDisabled))
	name := getenv(EnvServiceName)
	if name == "" {
		name = "agentk-" + service
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", name), attribute.String("agentk.service", service)}
	var errs []error
	ra, err := parsePairs(getenv(EnvResourceAttrs))
	if err != nil {
		errs = append(errs, fmt.Errorf("%w: %s: %w", ErrConfig, EnvResourceAttrs, err))
	}
	for k, v := range ra {
		if k != "service.name" {
			attrs = append(attrs, attribute.String(k, v))
		}
	}
	res := resource.NewWithAttributes("", attrs...)
	topts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res), sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample()))}
	mopts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	if !disabled {
		protocol := getenv(EnvProtocol)
		if protocol == "" {
			protocol = "http/protobuf"
		}
		if protocol != "http/protobuf" && protocol != "grpc" {
			errs = append(errs, fmt.Errorf("%w: %s: expected http/protobuf or grpc, got %q", ErrConfig, EnvProtocol, protocol))
		}
		headers, err := parsePairs(getenv(EnvHeaders))
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: %s: %w", ErrConfig, EnvHeaders, err))
		}
		base := getenv(EnvEndpoint)
		tEP, mEP := signalEndpoint(getenv(EnvTracesEndpoint), base, protocol, "/v1/traces"), signalEndpoint(getenv(EnvMetricsEnpoint), base, protocol, "/v1/metrics")
		for n, ep := range map[string]string{EnvTracesEndpoint: tEP, EnvMetricsEnpoint: mEP} {
			if ep == "" {
				continue
			}
			if u, err := url.Parse(ep); err != nil || u.Host == "" {
				errs = append(errs, fmt.Errorf("%w: %s (or %s): expected an absolute URL, got %q", ErrConfig, n, EnvEndpoint, ep))
			}
		}
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
		te, me, err := exporters(ctx, protocol, tEP, mEP, headers)
		if err != nil {
			return nil, err
		}
		topts = append(topts, sdktrace.WithBatcher(te))
		mopts = append(mopts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(me, sdkmetric.WithInterval(30*time.Second))))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	p := &Providers{Tracer: sdktrace.NewTracerProvider(topts...), Meter: sdkmetric.NewMeterProvider(mopts...), exporting: !disabled}
	otel.SetTracerProvider(p.Tracer)
	otel.SetMeterProvider(p.Meter)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return p, nil
}

func exporters(ctx context.Context, protocol, tEP, mEP string, headers map[string]string) (sdktrace.SpanExporter, sdkmetric.Exporter, error) {
	if protocol == "grpc" {
		to := []otlptracegrpc.Option{otlptracegrpc.WithHeaders(headers)}
		mo := []otlpmetricgrpc.Option{otlpmetricgrpc.WithHeaders(headers)}
		if tEP != "" {
			to = append(to, otlptracegrpc.WithEndpointURL(tEP))
		}
		if mEP != "" {
			mo = append(mo, otlpmetricgrpc.WithEndpointURL(mEP))
		}
		te, err := otlptracegrpc.New(ctx, to...)
		if err != nil {
			return nil, nil, fmt.Errorf("telemetry: trace exporter: %w", err)
		}
		me, err := otlpmetricgrpc.New(ctx, mo...)
		if err != nil {
			return nil, nil, fmt.Errorf("telemetry: metric exporter: %w", err)
		}
		return te, me, nil
	}
	to := []otlptracehttp.Option{otlptracehttp.WithHeaders(headers)}
	mo := []otlpmetrichttp.Option{otlpmetrichttp.WithHeaders(headers)}
	if tEP != "" {
		to = append(to, otlptracehttp.WithEndpointURL(tEP))
	}
	if mEP != "" {
		mo = append(mo, otlpmetrichttp.WithEndpointURL(mEP))
	}
	te, err := otlptracehttp.New(ctx, to...)
	if err != nil {
		return nil, nil, fmt.Errorf("telemetry: trace exporter: %w", err)
	}
	me, err := otlpmetrichttp.New(ctx, mo...)
	if err != nil {
		return nil, nil, fmt.Errorf("telemetry: metric exporter: %w", err)
	}
	return te, me, nil
}

// signalEndpoint applies the OTLP rule: a per-signal endpoint is used as is;
// the base endpoint gets /v1/<signal> appended for http/protobuf.
func signalEndpoint(specific, base, protocol, path string) string {
	if specific != "" {
		return specific
	}
	if base == "" || protocol == "grpc" {
		return base
	}
	return strings.TrimRight(base, "/") + path
}

// Shutdown flushes and stops both providers. It returns their errors.
func (p *Providers) Shutdown(ctx context.Context) error {
	return errors.Join(p.Tracer.Shutdown(ctx), p.Meter.Shutdown(ctx))
}

// Tracer returns a tracer of the installed provider.
func Tracer(name string) trace.Tracer { return otel.Tracer(name) }

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
