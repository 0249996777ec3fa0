package telemetry_test

import (
	"context"
	"testing"

	"agentk/platform/telemetry"
	"agentk/platform/telemetry/otlptest"

	"github.com/stretchr/testify/require"
)

// Not parallel: SetupServices installs process globals.
func TestSetupServicesRecordsEachServiceUnderItsName(t *testing.T) {
	rcv := otlptest.Start()
	defer rcv.Close()
	env := map[string]string{telemetry.EnvEndpoint: rcv.URL, telemetry.EnvResourceAttrs: "deployment.environment=test"}
	p, err := telemetry.SetupServices(context.Background(), []string{"gate", "bridge"}, func(k string) string { return env[k] })
	require.NoError(t, err)
	tr := telemetry.Tracer("test")
	ctx, root := tr.Start(context.Background(), "outside")
	gctx, gate := tr.Start(telemetry.WithService(ctx, "gate"), "gate.decide")
	_, bridge := tr.Start(telemetry.WithService(gctx, "bridge"), "bridge.approval")
	_, unknown := tr.Start(telemetry.WithService(ctx, "nobody"), "unknown role")
	unknown.End()
	bridge.End()
	gate.End()
	root.End()
	require.NoError(t, p.ForceFlush(context.Background()))
	require.NoError(t, p.Shutdown(context.Background()))
	require.Empty(t, rcv.Errors())

	got := map[string]otlptest.Span{}
	for _, s := range rcv.Spans() {
		got[s.Name] = s
	}
	cases := []struct {
		name, span, service, parent string
	}{
		{name: "outside any service: the combined name", span: "outside", service: "agentk"},
		{name: "gate", span: "gate.decide", service: "agentk-gate", parent: "outside"},
		{name: "bridge, child of the gate's span", span: "bridge.approval", service: "agentk-bridge", parent: "gate.decide"},
		{name: "a role not set up: the combined name", span: "unknown role", service: "agentk", parent: "outside"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, ok := got[tc.span]
			require.True(t, ok, "span %q exported", tc.span)
			require.Equal(t, tc.service, s.Service)
			require.Equal(t, "test", s.Resource["deployment.environment"])
			require.Equal(t, got["outside"].TraceID, s.TraceID, "one trace")
			if tc.parent != "" {
				require.Equal(t, got[tc.parent].SpanID, s.ParentID)
			}
		})
	}
}

func TestServiceNames(t *testing.T) {
	require.Equal(t, []string{"agentk", "agentk-ingester", "agentk-sandbox", "agentk-investigator",
		"agentk-reviewer", "agentk-gate", "agentk-bridge", "agentk-deployer"}, telemetry.ServiceNames())
}
