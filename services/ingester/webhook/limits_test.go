package webhook_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"agentk/services/ingester/webhook"

	"github.com/stretchr/testify/require"
)

// hostileBody is one firing alert with the given labels, annotations and
// times, shaped as SigNoz sends it.
func hostileBody(t testing.TB, labels, annotations map[string]string, startsAt, endsAt string, extra map[string]any) []byte {
	t.Helper()
	a := map[string]any{
		"status": "firing", "labels": labels, "annotations": annotations,
		"startsAt": startsAt, "endsAt": endsAt, "fingerprint": "0123456789abcdef",
		"generatorURL": "http://signoz:8080/alerts/edit?ruleId=r1",
	}
	for k, v := range extra {
		a[k] = v
	}
	b, err := json.Marshal(map[string]any{"receiver": "agentk", "status": "firing", "version": "4", "alerts": []any{a}})
	require.NoError(t, err)
	return b
}

func okLabels(kv ...string) map[string]string {
	m := map[string]string{"alertname": "shop-api error rate", "service.name": "shop-api", "severity": "critical", "ruleId": "r1"}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

const (
	okStart  = "2026-11-30T10:12:00Z"
	notEnded = "0001-01-01T00:00:00Z" // what Alertmanager and SigNoz send while firing
)

// TestParseRefusesHostileInput is issue 19's list of input that was accepted
// and then broke the pipeline further down: each is now refused at the door
// with an error naming the field.
func TestParseRefusesHostileInput(t *testing.T) {
	t.Parallel()
	manyLabels := okLabels()
	for i := range webhook.MaxLabels {
		manyLabels[strings.Repeat("l", 3)+string(rune('a'+i%26))+strings.Repeat("x", i/26)] = "v"
	}
	bigAnnotations := map[string]string{}
	for i := range 20 {
		bigAnnotations["d"+strings.Repeat("x", i)] = strings.Repeat("a", webhook.MaxAnnotationBytes)
	}
	tests := []struct {
		name        string
		body        []byte
		field, want string
	}{
		{name: "100 KB service.name (issue 19 #1: killed the gate)",
			body:  hostileBody(t, okLabels("service.name", strings.Repeat("s", 100<<10)), nil, okStart, notEnded, nil),
			field: "alerts[0].labels.service.name", want: "102400 bytes, max 256"},
		{name: "300 KB alertname (issue 19 #2: never published)",
			body:  hostileBody(t, okLabels("alertname", strings.Repeat("a", 300<<10)), nil, okStart, notEnded, nil),
			field: "alerts[0].labels.alertname", want: "307200 bytes, max 256"},
		{name: "600 KB body in an unknown field (issue 19 #4: 503 forever, half-stored)",
			body:  hostileBody(t, okLabels(), nil, okStart, notEnded, map[string]any{"extra": strings.Repeat("x", 600<<10)}),
			field: "alerts[0]", want: "bytes once normalised, max 65536"},
		{name: "many big annotations together exceed the message budget",
			body:  hostileBody(t, okLabels(), bigAnnotations, okStart, notEnded, nil),
			field: "alerts[0]", want: "bytes once normalised, max 65536"},
		{name: "one annotation too large",
			body:  hostileBody(t, okLabels(), map[string]string{"description": strings.Repeat("d", webhook.MaxAnnotationBytes+1)}, okStart, notEnded, nil),
			field: "alerts[0].annotations.description", want: "8193 bytes, max 8192"},
		{name: "other label too large",
			body:  hostileBody(t, okLabels("instance", strings.Repeat("i", 2000)), nil, okStart, notEnded, nil),
			field: "alerts[0].labels.instance", want: "2000 bytes, max 1024"},
		{name: "too many labels",
			body:  hostileBody(t, manyLabels, nil, okStart, notEnded, nil),
			field: "alerts[0].labels", want: "labels, max 64"},
		{name: "label name too long",
			body:  hostileBody(t, okLabels(strings.Repeat("k", 200), "v"), nil, okStart, notEnded, nil),
			field: "alerts[0].labels[<name of 200 bytes>]", want: "200 bytes, max 128"},
		{name: "startsAt in year 1 (issue 19 #4: SigNoz query failed)",
			body:  hostileBody(t, okLabels(), nil, "0001-01-01T00:00:01Z", notEnded, nil),
			field: "alerts[0].startsAt", want: "before 1970-01-01"},
		{name: "startsAt Go's zero time (issue 34 #3: was 'not an RFC 3339 time')",
			body:  hostileBody(t, okLabels(), nil, notEnded, notEnded, nil),
			field: "alerts[0].startsAt", want: "0001-01-01T00:00:00Z is before 1970-01-01"},
		{name: "startsAt in 9999 (issue 19 #4: evidence could not be sealed)",
			body:  hostileBody(t, okLabels(), nil, "9999-12-31T23:59:59Z", notEnded, nil),
			field: "alerts[0].startsAt", want: "after the ingester's clock"},
		{name: "startsAt an hour ahead",
			body:  hostileBody(t, okLabels(), nil, received.Add(61*60e9).Format("2006-01-02T15:04:05Z"), notEnded, nil),
			field: "alerts[0].startsAt", want: "after the ingester's clock"},
		{name: "endsAt in 9999",
			body:  hostileBody(t, okLabels(), nil, okStart, "9999-12-31T23:59:59Z", nil),
			field: "alerts[0].endsAt", want: "after the ingester's clock"},
		{name: "endsAt in 1960",
			body:  hostileBody(t, okLabels(), nil, okStart, "1960-01-01T00:00:00Z", nil),
			field: "alerts[0].endsAt", want: "before 1970-01-01"},
		{name: "NUL in service.name (issue 19 #4: raw NUL to Slack)",
			body:  hostileBody(t, okLabels("service.name", "shop\x00api"), nil, okStart, notEnded, nil),
			field: "alerts[0].labels.service.name", want: "control character U+0000"},
		{name: "ESC in a label (issue 19 #4: forged log row)",
			body:  hostileBody(t, okLabels("instance", "a\x1b[2K\rINFO all good"), nil, okStart, notEnded, nil),
			field: "alerts[0].labels.instance", want: "control character U+001B"},
		{name: "RLO in alertname",
			body:  hostileBody(t, okLabels("alertname", "error \u202erate"), nil, okStart, notEnded, nil),
			field: "alerts[0].labels.alertname", want: "control character U+202E"},
		{name: "newline in a label",
			body:  hostileBody(t, okLabels("severity", "critical\nINFO forged"), nil, okStart, notEnded, nil),
			field: "alerts[0].labels.severity", want: "control character U+000A"},
		{name: "ESC in an annotation",
			body:  hostileBody(t, okLabels(), map[string]string{"summary": "x\x1b]8;;http://evil\x07"}, okStart, notEnded, nil),
			field: "alerts[0].annotations.summary", want: "control character U+001B"},
		{name: "NUL in a label name",
			body:  hostileBody(t, okLabels("a\x00b", "v"), nil, okStart, notEnded, nil),
			field: `alerts[0].labels["a\x00b"]`, want: "control character U+0000"},
		{name: "C1 control in generatorURL",
			body:  hostileBody(t, okLabels(), nil, okStart, notEnded, map[string]any{"generatorURL": "http://x/\u009b"}),
			field: "alerts[0].generatorURL", want: "control character U+009B"},
		{name: "huge fingerprint",
			body:  hostileBody(t, okLabels(), nil, okStart, notEnded, map[string]any{"fingerprint": strings.Repeat("f", 200)}),
			field: "alerts[0].fingerprint", want: "200 bytes, max 128"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := webhook.Parse(tc.body, received)
			require.Error(t, err)
			require.ErrorIs(t, err, webhook.ErrInvalid)
			var fe *webhook.FieldError
			require.True(t, errors.As(err, &fe))
			require.Equal(t, tc.field, fe.Field)
			require.Contains(t, fe.Msg, tc.want)
			require.Less(t, len(err.Error()), 512, "the error itself stays small")
		})
	}
}

// TestParseAcceptsWhatSendersReallySend: the bounds leave room for real
// Alertmanager and SigNoz traffic.
func TestParseAcceptsWhatSendersReallySend(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body []byte
	}{
		{name: "still firing: endsAt is Go's zero time", body: hostileBody(t, okLabels(), nil, okStart, notEnded, nil)},
		{name: "firing with Alertmanager's resolve-timeout endsAt", body: hostileBody(t, okLabels(), nil, okStart, received.Add(5*60e9).Format("2006-01-02T15:04:05Z"), nil)},
		{name: "startsAt a minute ahead (clock skew)", body: hostileBody(t, okLabels(), nil, received.Add(60e9).Format("2006-01-02T15:04:05Z"), notEnded, nil)},
		{name: "multi-line description with tabs", body: hostileBody(t, okLabels(), map[string]string{"description": "line one\n\tline two\r\n"}, okStart, notEnded, nil)},
		{name: "dotted and underscored service name", body: hostileBody(t, okLabels("service.name", "shop_api.v2-eu"), nil, okStart, notEnded, nil)},
		{name: "service name padded with spaces", body: hostileBody(t, okLabels("service.name", " shop-api "), nil, okStart, notEnded, nil)},
		{name: "no service label (unscoped)", body: hostileBody(t, map[string]string{"alertname": "disk full", "severity": "warning"}, nil, okStart, notEnded, nil)},
		{name: "service.name of exactly 253 bytes", body: hostileBody(t, okLabels("service.name", strings.Repeat("s", 253)), nil, okStart, notEnded, nil)},
		{name: "no endsAt at all", body: hostileBody(t, okLabels(), nil, okStart, "", nil)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			alerts, err := webhook.Parse(tc.body, received)
			require.NoError(t, err)
			require.Len(t, alerts, 1)
		})
	}
}

// TestParseChecksEveryAlertBeforeReturningAny: a bad alert after good ones
// refuses the whole body, so the caller files nothing of it.
func TestParseChecksEveryAlertBeforeReturningAny(t *testing.T) {
	t.Parallel()
	good := json.RawMessage(hostileBody(t, okLabels(), nil, okStart, notEnded, nil))
	var gb struct{ Alerts []json.RawMessage }
	require.NoError(t, json.Unmarshal(good, &gb))
	var bb struct{ Alerts []json.RawMessage }
	require.NoError(t, json.Unmarshal(hostileBody(t, okLabels("service.name", "a\x00"), nil, okStart, notEnded, nil), &bb))
	body, err := json.Marshal(map[string]any{"status": "firing", "alerts": []json.RawMessage{gb.Alerts[0], gb.Alerts[0], bb.Alerts[0]}})
	require.NoError(t, err)
	alerts, err := webhook.Parse(body, received)
	require.Nil(t, alerts)
	var fe *webhook.FieldError
	require.True(t, errors.As(err, &fe))
	require.Equal(t, "alerts[2].labels.service.name", fe.Field)
}

// TestParseRefusesWhatCannotNameAService (issue 34 #6): a service label that
// is not a Docker Compose service name is refused with the field named and
// the value escaped, so that a Cyrillic homoglyph of shop-api never enters
// the pipeline to read as shop-api in a table, a Slack message or the
// console. Before, these were accepted and denied much later with "KV key
// ... holds byte 0xd0 ... unknown fails closed".
func TestParseRefusesWhatCannotNameAService(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		labels      map[string]string
		field, want string
	}{
		{name: "Cyrillic o in shop-api", labels: okLabels("service.name", "sh\u043ep-api"),
			field: "alerts[0].labels.service.name", want: `"sh\u043ep-api" is not a service name`},
		{name: "umlauts", labels: okLabels("service.name", "shöp-äpi"),
			field: "alerts[0].labels.service.name", want: `"sh\u00f6p-\u00e4pi" is not a service name`},
		{name: "accent", labels: okLabels("service.name", "café-api"),
			field: "alerts[0].labels.service.name", want: "is not a service name"},
		{name: "homoglyph in the service label", labels: map[string]string{"alertname": "a", "service": "shop-\u0430pi"},
			field: "alerts[0].labels.service", want: `"shop-\u0430pi"`},
		{name: "fullwidth letters", labels: okLabels("service.name", "\uff53hop-api"),
			field: "alerts[0].labels.service.name", want: "is not a service name"},
		{name: "space inside", labels: okLabels("service.name", "shop api"),
			field: "alerts[0].labels.service.name", want: "is not a service name"},
		{name: "slash", labels: okLabels("service.name", "ns/shop-api"),
			field: "alerts[0].labels.service.name", want: "is not a service name"},
		{name: "leading dot", labels: okLabels("service.name", ".shop-api"),
			field: "alerts[0].labels.service.name", want: "is not a service name"},
		{name: "254 bytes", labels: okLabels("service.name", strings.Repeat("s", 254)),
			field: "alerts[0].labels.service.name", want: "is not a service name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := webhook.Parse(hostileBody(t, tc.labels, nil, okStart, notEnded, nil), received)
			require.ErrorIs(t, err, webhook.ErrInvalid)
			var fe *webhook.FieldError
			require.True(t, errors.As(err, &fe))
			require.Equal(t, tc.field, fe.Field)
			require.Contains(t, fe.Msg, tc.want)
			for _, r := range err.Error() {
				require.Less(t, r, rune(0x80), "the refusal shows the name escaped: %s", err)
			}
		})
	}
}
