package marker_test

import (
	"context"
	"testing"
	"time"

	"agentk/services/deployer/internal/marker"
	"agentk/services/deployer/internal/rollback"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func TestMarkIsTheServicesDeploymentMarkerSpan(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	at := time.Date(2026, 11, 30, 10, 25, 0, 0, time.UTC)
	marker.OTel{Exporter: exp}.Mark(context.Background(), rollback.Mark{
		Project: "shop", Service: "shop-api", Version: "v1", PreviousVersion: "v2",
		Image: "agentk-demo/shop-api:v1", ImageID: "sha256:abc", DeploymentID: "action.appr-1", At: at,
	})
	spans := exp.GetSpans()
	require.Len(t, spans, 1)
	s := spans[0]
	require.Equal(t, "deployment.marker", s.Name)
	require.Equal(t, at, s.StartTime)
	res := map[string]string{}
	for _, kv := range s.Resource.Attributes() {
		res[string(kv.Key)] = kv.Value.AsString()
	}
	require.Equal(t, "shop-api", res["service.name"], "the marker belongs to the deployed service")
	attrs := map[string]string{}
	for _, kv := range s.Attributes {
		attrs[string(kv.Key)] = kv.Value.AsString()
	}
	require.Equal(t, "v1", attrs["deployment.version"])
	require.Equal(t, "v2", attrs["deployment.previous_version"])
	require.Equal(t, "action.appr-1", attrs["deployment.id"])
	require.Equal(t, "rollback", attrs["deployment.kind"])
}
