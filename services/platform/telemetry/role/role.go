// Package role marks a context with the agentk service (role) it runs in, so
// that a process running several services records each one's spans under its
// own service.name. It is separate from telemetry so that the bus and the
// services can mark contexts without importing the OTLP exporters (the gate's
// import graph must not contain an HTTP client library).
package role

import "context"

type key struct{}

// With returns ctx marked as running inside role.
func With(ctx context.Context, role string) context.Context {
	return context.WithValue(ctx, key{}, role)
}

// From returns the role ctx was marked with, or "".
func From(ctx context.Context) string {
	s, _ := ctx.Value(key{}).(string)
	return s
}
