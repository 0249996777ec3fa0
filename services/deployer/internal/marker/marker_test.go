package marker_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"agentk/services/deployer/internal/marker"
	"agentk/services/deployer/internal/rollback"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

var at = time.Date(2026, 11, 30, 10, 25, 0, 0, time.UTC)

func attrsOf(s tracetest.SpanStub) (res, attrs map[string]string) {
	res, attrs = map[string]string{}, map[string]string{}
	for _, kv := range s.Resource.Attributes() {
		res[string(kv.Key)] = kv.Value.AsString()
	}
	for _, kv := range s.Attributes {
		attrs[string(kv.Key)] = kv.Value.AsString()
	}
	return res, attrs
}

func TestMarkIsTheServicesDeploymentMarkerSpan(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	marker.OTel{Exporter: exp}.Mark(context.Background(), rollback.Mark{
		Project: "shop", Service: "shop-api", Version: "v1", PreviousVersion: "v2",
		Image: "agentk-demo/shop-api:v1", ImageID: "sha256:abc", DeploymentID: "action.appr-1", At: at,
		Kind: "rollback", Actor: rollback.ActorDeployer,
	})
	spans := exp.GetSpans()
	require.Len(t, spans, 1)
	s := spans[0]
	require.Equal(t, "deployment.marker", s.Name)
	require.Equal(t, at, s.StartTime)
	res, attrs := attrsOf(s)
	require.Equal(t, "shop-api", res["service.name"], "the marker belongs to the deployed service")
	require.Equal(t, map[string]string{
		"deployment.version": "v1", "deployment.previous_version": "v2", "deployment.id": "action.appr-1",
		"deployment.kind": "rollback", "deployment.actor": "agentk-deployer",
		"container.image.name": "agentk-demo/shop-api:v1", "container.image.id": "sha256:abc",
	}, attrs)
}

func TestWatchMarkOmitsWhatTheWatcherDoesNotKnow(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	require.NoError(t, marker.OTel{Exporter: exp}.Export(context.Background(), rollback.Mark{
		Project: "shop", Service: "shop-api", Version: "v1", Image: "shop:v1", ImageID: "sha256:1",
		DeploymentID: "c0ffee", ContainerID: "c0ffee", Kind: "deploy", At: at,
	}))
	_, attrs := attrsOf(exp.GetSpans()[0])
	require.Equal(t, "c0ffee", attrs["container.id"])
	require.NotContains(t, attrs, "deployment.previous_version", "a first release has none")
	require.NotContains(t, attrs, "deployment.actor", "the watcher does not know who ran compose")
}

// failing is an exporter that refuses every export.
type failing struct{ sdktrace.SpanExporter }

func (failing) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error {
	return errors.New("collector down")
}

func TestExportReturnsTheExportersError(t *testing.T) {
	t.Parallel()
	err := marker.OTel{Exporter: failing{}}.Export(context.Background(), rollback.Mark{Service: "shop-api", At: at})
	require.ErrorContains(t, err, "collector down")
}

// gated is a Marker that says when it starts a mark and records it once
// its gate opens.
type gated struct {
	started chan struct{}
	gate    chan struct{}
	got     chan rollback.Mark
}

func (g gated) Mark(_ context.Context, m rollback.Mark) {
	g.started <- struct{}{}
	<-g.gate
	g.got <- m
}

func TestAsyncNeverHoldsTheCallerKeepsTheOrderAndDropsWhenFull(t *testing.T) {
	t.Parallel()
	g := gated{started: make(chan struct{}, 8), gate: make(chan struct{}), got: make(chan rollback.Mark, 8)}
	a := marker.NewAsync(g, 2, nil)
	a.Mark(context.Background(), rollback.Mark{Version: "v1"})
	<-g.started // the worker holds v1, blocked on the collector
	// Two more fill the queue of two; the fourth finds it full. None of
	// the calls waits for the blocked export.
	for _, v := range []string{"v2", "v3", "v4"} {
		a.Mark(context.Background(), rollback.Mark{Version: v})
	}
	close(g.gate)
	require.NoError(t, a.Close(context.Background()), "Close waits for the queued marks")
	close(g.got)
	var order []string
	for m := range g.got {
		order = append(order, m.Version)
	}
	require.Equal(t, []string{"v1", "v2", "v3"}, order, "in order; v4 was dropped")
	a.Mark(context.Background(), rollback.Mark{Version: "after close"}) // dropped, no panic
}

func TestAsyncCloseGivesUpWithItsContext(t *testing.T) {
	t.Parallel()
	g := gated{started: make(chan struct{}, 8), gate: make(chan struct{}), got: make(chan rollback.Mark, 8)}
	defer close(g.gate)
	a := marker.NewAsync(g, 1, nil)
	a.Mark(context.Background(), rollback.Mark{Version: "v1"})
	<-g.started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, a.Close(ctx), context.Canceled)
}
