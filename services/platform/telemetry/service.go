package telemetry

import (
	"context"

	"agentk/contracts/envelope"
	"agentk/platform/telemetry/role"
)

// CombinedServiceName is the service.name of what a process running several
// services (`agentk up`, a replay) records outside any one of them, and of its
// metrics.
const CombinedServiceName = "agentk"

// ServiceName is the service.name agentk exports role's telemetry under.
func ServiceName(role string) string { return CombinedServiceName + "-" + role }

// ServiceNames returns every service.name agentk exports under: the combined
// name and one per role. The sandbox excludes exactly these by default (lesson
// 4: never investigate the pipeline's own telemetry); a test pins the two lists
// together.
func ServiceNames() []string {
	out := []string{CombinedServiceName}
	for _, r := range envelope.Roles {
		out = append(out, ServiceName(r))
	}
	return out
}

// WithService returns ctx marked as running inside role (role.With). In a
// process that runs several services, spans started with such a context are
// recorded under that role's service.name; the bus marks every handler's
// context with its connection's role, so a service's own spans follow without
// code of its own.
func WithService(ctx context.Context, r string) context.Context { return role.With(ctx, r) }

// ServiceFrom returns the role ctx was marked with, or "".
func ServiceFrom(ctx context.Context) string { return role.From(ctx) }
