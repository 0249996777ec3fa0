package incidents

import (
	"encoding/json"
	"testing"
	"time"

	"agentk/contracts"

	"github.com/stretchr/testify/require"
)

// TestEncodeIsMarshalBytes: the record written with the alert's bytes
// spliced in is byte for byte json.Marshal of the record, so that readers of
// the bucket see what they saw before the alert was encoded once.
func TestEncodeIsMarshalBytes(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	a := contracts.AlertV1{IncidentID: "inc-shop-1", Service: "shop-api", RuleID: "r1", AlertName: "burn <&>",
		Status: contracts.AlertFiring, StartsAt: at, Fingerprint: "fp1", Labels: map[string]string{"b": "2", "a": "1"}}
	withRaw := a
	withRaw.Annotations = map[string]string{"summary": "p99 > 2s & <rising>\n"}
	withRaw.Raw = []byte(`{"labels": {"alertname": "burn <&>"}, "status": "firing"}`)
	for _, tc := range []struct {
		name string
		rec  Record
	}{
		{"queued", Record{IncidentID: a.IncidentID, Service: a.Service, RuleID: a.RuleID, State: StateQueued, OpenedAt: at, Alert: a}},
		{"released", Record{IncidentID: a.IncidentID, State: StateInvestigating, OpenedAt: at, ReleasedAt: at.Add(time.Second), Alert: a}},
		{"reopened", Record{IncidentID: a.IncidentID + "-r2", State: StateQueued, Reopens: a.IncidentID, Alert: a}},
		{"empty alert", Record{IncidentID: "inc-x", State: StateQueued}},
		{"raw and annotations", Record{IncidentID: a.IncidentID, State: StateInvestigating, OpenedAt: at, Alert: withRaw}},
		{"alert resolved", Record{IncidentID: a.IncidentID, State: StateResolved, ResolvedAt: at, Alert: a, AlertResolved: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			alert, err := json.Marshal(tc.rec.Alert)
			require.NoError(t, err)
			record, err := encode(tc.rec, alert)
			require.NoError(t, err)
			want, err := json.Marshal(tc.rec)
			require.NoError(t, err)
			require.Equal(t, string(want), string(record))
		})
	}
}
