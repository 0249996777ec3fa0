package incidents

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"

	"agentk/contracts"

	"github.com/stretchr/testify/require"
)

// requireMarshalled checks MarshalAlert(a) against json.Marshal(a): the
// same bytes, or an error where json.Marshal has one.
func requireMarshalled(t *testing.T, a contracts.AlertV1) {
	t.Helper()
	want, wantErr := json.Marshal(a)
	got, err := MarshalAlert(a)
	if wantErr != nil {
		require.Error(t, err)
		return
	}
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
}

// TestMarshalAlertKnowsEveryField: MarshalAlert writes AlertV1's fields
// by hand; a field added to the contract (or a tag changed) fails here
// until MarshalAlert writes it too.
func TestMarshalAlertKnowsEveryField(t *testing.T) {
	t.Parallel()
	tags := func(v any) []string {
		var out []string
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			out = append(out, rt.Field(i).Name+" "+rt.Field(i).Type.String()+" "+rt.Field(i).Tag.Get("json"))
		}
		return out
	}
	require.Equal(t, []string{
		"IncidentID string incident_id", "Status string status", "Service string service", "RuleID string rule_id",
		"AlertName string alert_name", "Severity string severity,omitempty", "StartsAt time.Time starts_at",
		"EndsAt *time.Time ends_at,omitempty", "BurnRate float64 burn_rate", "BurnRateSource string burn_rate_source,omitempty",
		"NoData bool no_data,omitempty", "Test bool test,omitempty", "Fingerprint string fingerprint,omitempty",
		"Labels map[string]string labels,omitempty", "Annotations map[string]string annotations,omitempty",
		"Links contracts.AlertLinks links,omitempty", "ReceivedAt time.Time received_at", "Raw json.RawMessage raw,omitempty",
	}, tags(contracts.AlertV1{}))
	require.Equal(t, []string{"Generator string generator,omitempty", "RelatedTraces string related_traces,omitempty",
		"RelatedLogs string related_logs,omitempty"}, tags(contracts.AlertLinks{}))
}

// TestMarshalAlertIsJSONMarshal: MarshalAlert's bytes are json.Marshal's,
// escapes, empty and omitted fields, numbers, times and raw JSON included.
func TestMarshalAlertIsJSONMarshal(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 10, 0, 0, 123456789, time.UTC)
	end := at.Add(time.Minute)
	full := contracts.AlertV1{IncidentID: "inc-shop-1", Status: contracts.AlertResolved, Service: "shop-api", RuleID: "r1",
		AlertName: "burn <&> \"quoted\" \\ back", Severity: "critical", StartsAt: at, EndsAt: &end, BurnRate: 14.4,
		BurnRateSource: "labels.burn_rate", NoData: true, Test: true, Fingerprint: "fp1",
		Labels:      map[string]string{"b": "2", "a": "1", "z<": "tab\there", "ünï": "line\u2028sep\u2029"},
		Annotations: map[string]string{"summary": "ctl \x01\x1f \b\f\n\r bad \xff\xfe utf8", "": "empty name"},
		Links:       contracts.AlertLinks{Generator: "http://x/?a=1&b=<2>", RelatedLogs: "l"},
		ReceivedAt:  at.In(time.FixedZone("x", 3600)), Raw: json.RawMessage("{\n  \"labels\": {\"a\": \"<b>\"},\n  \"v\": [1, 2.50, true, null]\n}")}
	for _, tc := range []struct {
		name string
		a    contracts.AlertV1
	}{
		{"zero", contracts.AlertV1{}},
		{"full", full},
		{"empty maps are omitted", contracts.AlertV1{Labels: map[string]string{}, Annotations: map[string]string{}}},
		{"links: traces only", contracts.AlertV1{Links: contracts.AlertLinks{RelatedTraces: "t"}}},
		{"tiny burn rate", contracts.AlertV1{BurnRate: 1e-7}},
		{"huge burn rate", contracts.AlertV1{BurnRate: 1e21}},
		{"negative zero", contracts.AlertV1{BurnRate: math.Copysign(0, -1)}},
		{"fraction", contracts.AlertV1{BurnRate: -0.000001}},
		{"exponent of three digits", contracts.AlertV1{BurnRate: 1.5e-300}},
		{"NaN is json.Marshal's error", contracts.AlertV1{BurnRate: math.NaN()}},
		{"a year past 9999 is json.Marshal's error", contracts.AlertV1{StartsAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"an end past 9999", contracts.AlertV1{EndsAt: func() *time.Time { e := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC); return &e }()}},
		{"raw that is not JSON", contracts.AlertV1{Raw: json.RawMessage("{nope")}},
		{"raw compact, spaces and escapes in its strings", contracts.AlertV1{Raw: json.RawMessage(`{"a":"x y \" z \\","b":[1,{"c":"\u00e9 é"}],"d":null}`)}},
		{"raw compact but for a space after an escaped backslash", contracts.AlertV1{Raw: json.RawMessage(`{"a":"\\", "b":1}`)}},
		{"raw with U+2028 in a string", contracts.AlertV1{Raw: json.RawMessage("{\"a\":\"\u2028\"}")}},
		{"raw with an HTML character in a string", contracts.AlertV1{Raw: json.RawMessage(`{"a":"&"}`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			requireMarshalled(t, tc.a)
		})
	}
}

// FuzzMarshalAlert: on any strings, number and raw bytes, MarshalAlert is
// json.Marshal.
func FuzzMarshalAlert(f *testing.F) {
	f.Add("shop-api", "burn <&>", "k", "v\u2028\xff", 3.5, int64(1796033220), []byte(`{"a": [1, "<x>"]}`))
	f.Add("", "", "", "", 0.0, int64(0), []byte(nil))
	f.Add("a", "b", "c", "d", 1.0, int64(1), []byte(`{"a":"x \\\" y","b":[1,2.5e3,true,null]}`))
	f.Fuzz(func(t *testing.T, svc, name, k, v string, burn float64, unix int64, raw []byte) {
		at := time.Unix(unix, unix%1000000007).UTC()
		a := contracts.AlertV1{IncidentID: "inc-" + svc, Status: name, Service: svc, RuleID: k, AlertName: name, Severity: v,
			StartsAt: at, BurnRate: burn, BurnRateSource: v, Fingerprint: k, Labels: map[string]string{k: v, svc: name},
			Annotations: map[string]string{v: k}, Links: contracts.AlertLinks{Generator: v, RelatedTraces: name},
			ReceivedAt: at, Raw: raw}
		if len(raw)%2 == 1 {
			a.EndsAt = &at
		}
		requireMarshalled(t, a)
	})
}

// TestCompactRawIsAppendedAsItIs: a raw alert as senders encode it (no
// whitespace between tokens) is appended without encoding/json, and one
// with whitespace between tokens or a character json.Marshal escapes is
// not (TestMarshalAlertIsJSONMarshal holds the bytes to json.Marshal's).
func TestCompactRawIsAppendedAsItIs(t *testing.T) {
	t.Parallel()
	require.True(t, compact([]byte(`{"labels":{"alertname":"High error rate","d":"a \"b\" \\"},"v":[1,null]}`)))
	for _, raw := range []string{`{"a": 1}`, "{\"a\":1}\n", `{"a":"\\" }`, `{"a":"<"}`, "{\"a\":\"\u2029\"}"} {
		require.False(t, compact([]byte(raw)), raw)
	}
}
