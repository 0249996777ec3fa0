package facts_test

import (
	"fmt"
	"testing"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// TestKnownService: a Kubernetes service DNS name or a sidecar's
// `<app>.<namespace>` names the service `<name>` only on its exact first
// label, when that label is exactly a known service and no other known
// service is the name or a shorter form of it.
func TestKnownService(t *testing.T) {
	t.Parallel()
	known := []string{"rewards-svc", "checkout-bff", "rewards", "ledger.core"}
	for _, tt := range []struct {
		name, in, want string
	}{
		{"the service itself", "rewards-svc", "rewards-svc"},
		{"the cluster FQDN", "rewards-svc.commerce.svc.cluster.local", "rewards-svc"},
		{"the FQDN with a port", "rewards-svc.commerce.svc.cluster.local:8080", "rewards-svc"},
		{"the FQDN, rooted", "rewards-svc.commerce.svc.cluster.local.", "rewards-svc"},
		{"name.namespace.svc", "rewards-svc.commerce.svc", "rewards-svc"},
		{"name.namespace (a sidecar)", "checkout-bff.commerce", "checkout-bff"},
		{"a known service with a port", "rewards-svc:9090", "rewards-svc"},
		{"trap: a canary's name is not the service", "rewards-svc-canary.commerce.svc.cluster.local", ""},
		{"trap: a prefix is not the service", "rewards-sv.commerce.svc.cluster.local", ""},
		{"trap: rewards.svc.cluster.local is no service DNS shape", "rewards.svc.cluster.local", ""},
		{"trap: an IP", "10.21.3.17", ""},
		{"trap: an IP with a port", "10.21.3.17:8080", ""},
		{"trap: an IPv6 address", "[fd00::1]:8080", ""},
		{"trap: an unknown first label", "payments.commerce.svc.cluster.local", ""},
		{"trap: another cluster domain", "rewards-svc.commerce.svc.example.org", ""},
		{"trap: an outside host", "rewards-svc.fernhill.example.com", ""},
		{"trap: an empty label", "rewards-svc..svc", ""},
		{"trap: another known service is name.namespace", "ledger.core.svc.cluster.local", ""},
		{"trap: empty", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := facts.KnownService(tt.in, known)
			require.Equal(t, tt.want != "", ok, tt.in)
			require.Equal(t, tt.want, got, tt.in)
		})
	}
}

// TestSidecarApp: an Istio sidecar's service `<app>.<namespace>` is its app
// when the app is a known service; not the app itself, not a longer name, not
// an unknown app.
func TestSidecarApp(t *testing.T) {
	t.Parallel()
	known := []string{"notifications", "notifications.engagement", "rewards-svc.commerce"}
	for _, tt := range []struct{ in, want string }{
		{"notifications.engagement", "notifications"},
		{"rewards-svc.commerce", ""},
		{"notifications", ""},
		{"notifications.engagement.svc", ""},
		{"notification.engagement", ""},
	} {
		app, ok := facts.SidecarApp(tt.in, known)
		require.Equal(t, tt.want != "", ok, tt.in)
		require.Equal(t, tt.want, app, tt.in)
	}
}

// meshTrace is one failing trace of checkout-bff behind Istio sidecars: its
// Redeem call to rewards-svc fails (gRPC INTERNAL); its own sidecar's outbound
// span fails with it (500), rewards-svc's inbound sidecar answers 200 (the
// gRPC status rides in the trailers) and rewards-svc's server span fails.
func meshTrace(tid string) []signoz.RawRow {
	return traceRows(tid,
		sp{"i", "", "checkout-bff.commerce", "checkout-bff.commerce.svc.cluster.local:8080/*", 0, 300, false},
		sp{"a", "i", "checkout-bff", "CheckoutService/Confirm", 1, 290, true},
		sp{"c", "a", "checkout-bff", "RewardsService/Redeem", 10, 200, true},
		sp{"o", "c", "checkout-bff.commerce", "rewards-svc.commerce.svc.cluster.local:8080/*", 11, 198, true},
		sp{"r", "o", "rewards-svc.commerce", "rewards-svc.commerce.svc.cluster.local:8080/*", 12, 195, false},
		sp{"s", "r", "rewards-svc", "RewardsService/Redeem", 13, 190, true},
		sp{"d", "s", "rewards-svc", "INSERT points_ledger", 14, 5, false})
}

// TestOriginThroughMeshSidecars: behind sidecars the failures begin in
// rewards-svc, the callee app, not in the caller's own sidecar and not at a
// proxy that answered 200. Kills mutant sandbox.sidecar_app (the origin is
// then none: the failures stop at checkout-bff.commerce, the caller's own
// sidecar).
func TestOriginThroughMeshSidecars(t *testing.T) {
	t.Parallel()
	onset := at(40)
	rewardsAt := at(39)
	var rows []signoz.RawRow
	var since []string
	for i := range 8 {
		id := fmt.Sprintf("mesh-%d", i)
		since, rows = append(since, id), append(rows, meshTrace(id)...)
	}
	o, counts := facts.JudgeOrigin(facts.OriginInput{Service: "checkout-bff", Signal: "errors", Since: since, Rows: rows, Onset: onset,
		Onsets: map[string]facts.Onset{"rewards-svc": {At: &rewardsAt}, "checkout-bff.commerce": {At: &rewardsAt}}, Share: facts.DefaultOriginShare})
	require.NotNil(t, o, "counts: %+v", counts)
	require.Equal(t, "rewards-svc", o.Service)
	require.Equal(t, []string{"checkout-bff", "rewards-svc"}, o.Path)
	require.Equal(t, int64(8), o.Failures)
	for _, c := range counts {
		require.NotContains(t, []string{"checkout-bff.commerce", "rewards-svc.commerce"}, c.Service, "a sidecar is never a service of its own")
	}
}
