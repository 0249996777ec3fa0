package tools_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// TestOverviewMeasuresConsumerLag runs service_overview of the two queue
// consumers of e2e/incidents-mesh through the fake SigNoz: the mailer's lag
// rose with four times the arrivals at about the same time a message (a
// campaign's flood), the ledger's with the time a message and no more
// arrivals (a JVM short of heap). A service that consumes nothing reads no
// lag. Mutant sandbox.consumer_lag (the query and the fact off).
func TestOverviewMeasuresConsumerLag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, dir, service string
		arrivals           func(t *testing.T, a, p float64)
	}{
		{"a flood of arrivals", "mesh-mailer-lag-campaign-flood", "mailer", func(t *testing.T, a, p float64) {
			require.Greater(t, a, 2.0)
			require.Less(t, p, 1.5)
		}},
		{"a slower consumer", "mesh-ledger-consumer-lag-heap-restarts", "ledger", func(t *testing.T, a, p float64) {
			require.Less(t, a, 1.5)
			require.Greater(t, p, 1.5)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			inc, err := incident.Load(filepath.Join("../../../../e2e/incidents-mesh", tc.dir))
			require.NoError(t, err)
			startsAt := alertStartsAt(t, inc)
			r, err := newHarness(t, inc, startsAt).run(t, contracts.ToolServiceOverview, `{"service":"`+tc.service+`"}`)
			require.NoError(t, err)
			l := r.out.Facts.ConsumerLag
			require.NotNil(t, l, r.out.Compact)
			require.NotNil(t, l.Onset, l.OnsetUnknown)
			require.True(t, l.Onset.Before(startsAt), "lag onset %s after the alert", l.Onset)
			require.NotNil(t, l.ArrivalRatio, r.out.Compact)
			require.NotNil(t, l.ProcessRatio, r.out.Compact)
			require.Greater(t, *l.SinceMs, 10**l.BaselineMs)
			tc.arrivals(t, *l.ArrivalRatio, *l.ProcessRatio)
			require.Contains(t, r.out.Compact, "consumer lag (producer span start to consumer span start")
			t.Log(r.out.Compact)
		})
	}
	t.Run("no consumer", func(t *testing.T) {
		t.Parallel()
		inc, startsAt := loadIncident(t, "retry-storm-01")
		r, err := newHarness(t, inc, startsAt).run(t, contracts.ToolServiceOverview, `{"service":"`+inc.Meta.Service+`"}`)
		require.NoError(t, err)
		require.Nil(t, r.out.Facts.ConsumerLag)
		require.NotContains(t, r.out.Compact, "consumer lag")
	})
}

// alertStartsAt is the startsAt of the incident's alert.json.
func alertStartsAt(t *testing.T, inc *incident.Incident) time.Time {
	t.Helper()
	var a struct {
		Alerts []struct {
			StartsAt time.Time `json:"startsAt"`
		} `json:"alerts"`
	}
	require.NoError(t, json.Unmarshal(inc.AlertJSON, &a))
	require.NotEmpty(t, a.Alerts)
	return a.Alerts[0].StartsAt
}
