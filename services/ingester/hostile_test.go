package ingester

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"agentk/services/ingester/internal/httpport"

	"github.com/stretchr/testify/require"
)

// hostile is one webhook body of a single firing alert whose labels (or
// raw fields) an attacker or a misconfigured SigNoz chose.
func hostile(labels map[string]string, startsAt string, extra map[string]any) []byte {
	l := map[string]string{"alertname": "burn", "service.name": "shop-api", "ruleId": "r1", "severity": "critical"}
	for k, v := range labels {
		l[k] = v
	}
	a := map[string]any{"status": "firing", "labels": l, "annotations": map[string]string{"burn_rate": "3"},
		"startsAt": startsAt, "endsAt": "0001-01-01T00:00:00Z", "fingerprint": "0123456789abcdef"}
	for k, v := range extra {
		a[k] = v
	}
	b, _ := json.Marshal(map[string]any{"status": "firing", "version": "4", "alerts": []any{a}})
	return b
}

// TestHostileWebhooksAreRefusedWholeAndNothingIsStored is issue 19's list of
// bodies that were accepted (or 503'd) and then broke the pipeline, sent to a
// real ingester over embedded NATS: each is a 400 naming the field, and the
// incident bucket and the alert stream stay empty, so nothing is half-stored
// and nothing downstream ever sees it.
func TestHostileWebhooksAreRefusedWholeAndNothingIsStored(t *testing.T) {
	f := embedded(t)
	r := start(t, f, nil, nil)
	defer r.stop()
	now := time.Now().UTC().Add(-time.Minute).Format(time.RFC3339)
	tests := []struct {
		name, field string
		body        []byte
	}{
		{name: "100 KB service.name", field: "alerts[0].labels.service.name", body: hostile(map[string]string{"service.name": strings.Repeat("s", 100<<10)}, now, nil)},
		{name: "300 KB alertname", field: "alerts[0].labels.alertname", body: hostile(map[string]string{"alertname": strings.Repeat("a", 300<<10)}, now, nil)},
		{name: "600 KB body", field: "alerts[0]", body: hostile(nil, now, map[string]any{"extra": strings.Repeat("x", 600<<10)})},
		{name: "startsAt year 1", field: "alerts[0].startsAt", body: hostile(nil, "0001-01-01T00:00:01Z", nil)},
		{name: "startsAt 9999", field: "alerts[0].startsAt", body: hostile(nil, "9999-12-31T23:59:59Z", nil)},
		{name: "NUL", field: "alerts[0].labels.service.name", body: hostile(map[string]string{"service.name": "shop\x00api"}, now, nil)},
		{name: "ESC", field: "alerts[0].labels.instance", body: hostile(map[string]string{"instance": "\x1b[31mred"}, now, nil)},
		{name: "RLO", field: "alerts[0].labels.alertname", body: hostile(map[string]string{"alertname": "\u202eburn"}, now, nil)},
		// Issue 34 #6: a Cyrillic о in shop-api, accepted before.
		{name: "homoglyph service name", field: "alerts[0].labels.service.name", body: hostile(map[string]string{"service.name": "sh\u043ep-api"}, now, nil)},
		// Issue 34 #3: Go's zero time is an RFC 3339 time, refused as out of range.
		{name: "startsAt zero time", field: "alerts[0].startsAt", body: hostile(nil, "0001-01-01T00:00:00Z", nil)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := post(t, r.url, tc.body)
			require.Equal(t, 400, code, string(body))
			var eb httpport.ErrorBody
			require.NoError(t, json.Unmarshal(body, &eb))
			require.Equal(t, tc.field, eb.Field)
			require.Less(t, len(body), 1024, "the refusal does not echo the content")
		})
	}
	records, firing := incidentKeys(t, f)
	require.Zero(t, records+firing, "nothing half-stored")
	require.Empty(t, storedAlerts(t, f), "nothing published")

	code, body := post(t, r.url, hostile(nil, now, nil))
	require.Equal(t, 200, code, string(body))
	require.Len(t, storedAlerts(t, f), 1, "a valid alert after all of them is filed")
}
