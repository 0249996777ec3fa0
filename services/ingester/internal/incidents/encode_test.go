package incidents

import (
	"encoding/json"
	"reflect"
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

// TestEncodeKnowsEveryField: encode writes Record's fields by hand; a field
// added to the record (or a tag changed) fails here until encode writes it
// too.
func TestEncodeKnowsEveryField(t *testing.T) {
	t.Parallel()
	var got []string
	rt := reflect.TypeOf(Record{})
	for i := range rt.NumField() {
		got = append(got, rt.Field(i).Name+" "+rt.Field(i).Type.String()+" "+rt.Field(i).Tag.Get("json"))
	}
	require.Equal(t, []string{
		"IncidentID string incident_id", "Service string service", "RuleID string rule_id", "State string state",
		"OpenedAt time.Time opened_at", "ReleasedAt time.Time released_at,omitzero", "ResolvedAt time.Time resolved_at,omitzero",
		"DecidedAt time.Time decided_at,omitzero", "Verdict string verdict,omitempty", "Refusal string refusal,omitempty",
		"Reopens string reopens,omitempty", "Alert contracts.AlertV1 alert", "AlertResolved bool alert_resolved,omitempty",
	}, got)
}

// FuzzEncode: on any strings and times, encode around the alert's
// json.Marshal bytes is json.Marshal of the record, or its error.
func FuzzEncode(f *testing.F) {
	f.Add("inc-shop-1", "shop-api", "burn <&>", "investigating", "v\u2028\xff", int64(1796033220), int64(0), false)
	f.Add("", "", "", "", "", int64(0), int64(-62135596800), true)
	f.Add("a", "b\n", "c\"", "d\\", "e", int64(253402300800), int64(1), false)
	f.Fuzz(func(t *testing.T, id, svc, rule, state, text string, unix, other int64, resolved bool) {
		at := time.Unix(unix, unix%1000000007).UTC()
		at2 := time.Unix(other, other%999999937).In(time.FixedZone("z", int(other%86400)))
		rec := Record{IncidentID: id, Service: svc, RuleID: rule, State: state, OpenedAt: at, ReleasedAt: at2,
			Verdict: text, Reopens: rule, AlertResolved: resolved,
			Alert: contracts.AlertV1{IncidentID: id, Service: svc, StartsAt: at, ReceivedAt: at}}
		if other%2 == 0 {
			rec.ResolvedAt, rec.DecidedAt, rec.Refusal = at, at2, text
		}
		want, wantErr := json.Marshal(rec)
		alert, err := json.Marshal(rec.Alert)
		if err != nil {
			require.Error(t, wantErr)
			return
		}
		got, err := encode(rec, alert)
		if wantErr != nil {
			require.Error(t, err)
			return
		}
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	})
}
