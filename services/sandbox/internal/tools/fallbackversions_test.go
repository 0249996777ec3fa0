package tools_test

import (
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

func asRecorded(s []incident.Span) []incident.Span { return s }

// TestOverviewReadsImageTagVersions: heldout10's Go services name no
// service.version, only container.image.tag; the overview reads their
// versions from the tags (the release comparison says so), and a service
// whose spans name service.version keeps it.
func TestOverviewReadsImageTagVersions(t *testing.T) {
	t.Parallel()
	out := editedOverview(t, "incidents-heldout10/kw10-nil-map-crashloop-telemetry-router", asRecorded)
	r := out.Facts.Release
	require.NotNil(t, r, out.Compact)
	require.Equal(t, "container.image.tag", r.VersionKey)
	require.Equal(t, "2.14.0", r.Version)
	require.Contains(t, out.Compact, "errors by container.image.tag (no entry span names service.version)")

	named := editedOverview(t, "incidents-heldout10/kw10-prisma-connection-limit-fleet-api", asRecorded)
	require.NotNil(t, named.Facts.Release, named.Compact)
	require.Empty(t, named.Facts.Release.VersionKey)
}

// TestOverviewReadsFaaSVersions: heldout11's Python and Java Lambda
// functions name no service.version, only faas.version (the Lambda
// version number); the overview reads their versions from it (the release
// comparison says so, and counts the new version's new errors), and a Node
// function whose spans name service.version keeps it.
func TestOverviewReadsFaaSVersions(t *testing.T) {
	t.Parallel()
	out := editedOverview(t, "incidents-heldout11/lb11-env-holds-table-booking-fn", asRecorded)
	r := out.Facts.Release
	require.NotNil(t, r, out.Compact)
	require.Equal(t, "faas.version", r.VersionKey)
	require.Equal(t, "42", r.Version)
	require.Positive(t, r.NewErrors, out.Compact)
	require.Contains(t, out.Compact, "errors by faas.version (no entry span names service.version)")

	named := editedOverview(t, "incidents-heldout11/lb11-canary-slotcode-locker-api", asRecorded)
	require.NotNil(t, named.Facts.Release, named.Compact)
	require.Empty(t, named.Facts.Release.VersionKey)
	require.Equal(t, "4.13.0", named.Facts.Release.Version)
}

// TestGatewaySelfCallIsNoDependency: grpc-gateway's loopback call into the
// service's own gRPC server (127.0.0.1:9090, the same service's server span
// beneath) is no failing or slow dependency (kw10-grpc-retry-policy-ingest-gw);
// the same loopback address carrying a mesh sidecar's calls to another
// service that fails by itself (the twin) stays one.
func TestGatewaySelfCallIsNoDependency(t *testing.T) {
	t.Parallel()
	gw := editedOverview(t, "incidents-heldout10/kw10-grpc-retry-policy-ingest-gw", asRecorded)
	require.NotContains(t, gw.Facts.FailingDependencies, "127.0.0.1", gw.Compact)
	require.NotContains(t, gw.Facts.SlowDependencies, "127.0.0.1", gw.Compact)

	twin := editedOverview(t, "incidents-heldout10-twins/kw10-twin-sidecar-registry-ingest-gw", asRecorded)
	require.Contains(t, twin.Facts.FailingDependencies, "127.0.0.1", twin.Compact)
}
