package httpport_test

import (
	"context"
	"testing"

	"agentk/services/ingester/internal/httpport"
	"agentk/services/ingester/internal/incidents"

	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// TestFiledCountsByOutcome: the attribute sets built once count each outcome
// under its own name, and an outcome outside the list still counts.
func TestFiledCountsByOutcome(t *testing.T) {
	t.Parallel()
	reader := sdkmetric.NewManualReader()
	m, err := httpport.NewOTelMetrics(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	require.NoError(t, err)
	ctx := context.Background()
	tests := []struct {
		name    string
		outcome incidents.Outcome
		times   int
	}{
		{name: "opened", outcome: incidents.Opened, times: 3},
		{name: "attached", outcome: incidents.Attached, times: 2},
		{name: "no data", outcome: incidents.NoData, times: 1},
		{name: "an outcome no list names", outcome: "novel", times: 1},
	}
	for _, tc := range tests {
		for range tc.times {
			m.Filed(ctx, tc.outcome)
		}
	}
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(ctx, &rm))
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, mt := range sm.Metrics {
			if mt.Name != "agentk.ingester.alerts_filed" {
				continue
			}
			for _, dp := range mt.Data.(metricdata.Sum[int64]).DataPoints {
				v, _ := dp.Attributes.Value("outcome")
				got[v.AsString()] = dp.Value
			}
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, int64(tc.times), got[string(tc.outcome)])
		})
	}
}
