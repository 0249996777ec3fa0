package webhook_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/ingester/webhook"

	"github.com/stretchr/testify/require"
)

var received = time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)

func load(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

func TestParseSigNozThresholdAlert(t *testing.T) {
	t.Parallel()
	alerts, err := webhook.Parse(load(t, "signoz-threshold.json"), received)
	require.NoError(t, err)
	require.Len(t, alerts, 1)
	a := alerts[0]
	require.Equal(t, contracts.AlertFiring, a.Status)
	require.Equal(t, "shop-api", a.Service)
	require.Equal(t, "019368f2-8c1a-7b4e-9d3f-2a6b1c0e5f11", a.RuleID)
	require.Equal(t, "shop-api error rate", a.AlertName)
	require.Equal(t, "critical", a.Severity)
	require.Equal(t, time.Date(2026, 11, 30, 10, 12, 0, 0, time.UTC), a.StartsAt)
	require.Nil(t, a.EndsAt, "0001-01-01 means still firing")
	require.Equal(t, 14.4, a.BurnRate)
	require.Equal(t, "labels.slo_burn_rate", a.BurnRateSource)
	require.False(t, a.Test)
	require.False(t, a.NoData)
	require.Equal(t, "6f3c2b1a9e8d7c65", a.Fingerprint)
	require.Equal(t, "http://signoz:8080/alerts/edit?ruleId=019368f2-8c1a-7b4e-9d3f-2a6b1c0e5f11", a.Links.Generator)
	require.Contains(t, a.Links.RelatedTraces, "/traces-explorer?")
	require.Contains(t, a.Links.RelatedLogs, "/logs/logs-explorer?")
	require.Equal(t, received, a.ReceivedAt)
	require.Equal(t, webhook.IncidentID("shop-api", a.RuleID, a.StartsAt), a.IncidentID)
	require.Regexp(t, `^inc-shop-api-[0-9a-f]{16}$`, a.IncidentID)
	require.JSONEq(t, `"6f3c2b1a9e8d7c65"`, `"`+a.Fingerprint+`"`)
	require.Contains(t, string(a.Raw), `"fingerprint": "6f3c2b1a9e8d7c65"`, "raw alert kept as sent")
}

func TestParseSigNozTestNotification(t *testing.T) {
	t.Parallel()
	alerts, err := webhook.Parse(load(t, "signoz-test-notification.json"), received)
	require.NoError(t, err)
	require.Len(t, alerts, 1)
	require.True(t, alerts[0].Test)
	require.Empty(t, alerts[0].Service)
	require.Equal(t, "Test Alert (agentk)", alerts[0].RuleID, "no ruleId: the alertname stands in")
	require.Zero(t, alerts[0].BurnRate)
}

func TestParseSigNozNoData(t *testing.T) {
	t.Parallel()
	alerts, err := webhook.Parse(load(t, "signoz-nodata.json"), received)
	require.NoError(t, err)
	require.True(t, alerts[0].NoData)
	require.False(t, alerts[0].Test)
	require.Equal(t, "shop-api", alerts[0].Service)
}

func TestParseSigNozResolvedSharesTheIncident(t *testing.T) {
	t.Parallel()
	firing, err := webhook.Parse(load(t, "signoz-threshold.json"), received)
	require.NoError(t, err)
	resolved, err := webhook.Parse(load(t, "signoz-resolved.json"), received.Add(21*time.Minute))
	require.NoError(t, err)
	r := resolved[0]
	require.Equal(t, contracts.AlertResolved, r.Status)
	require.NotNil(t, r.EndsAt)
	require.Equal(t, time.Date(2026, 11, 30, 10, 41, 0, 0, time.UTC), *r.EndsAt)
	require.Equal(t, firing[0].IncidentID, r.IncidentID)
}

func TestParsePrometheusAlertmanager(t *testing.T) {
	t.Parallel()
	alerts, err := webhook.Parse(load(t, "alertmanager-prometheus.json"), received)
	require.NoError(t, err)
	require.Len(t, alerts, 2)
	a := alerts[0]
	require.Equal(t, "payments", a.Service, "the service label when there is no service.name")
	require.Equal(t, "ErrorBudgetBurn", a.RuleID)
	require.Nil(t, a.EndsAt, "Alertmanager's endsAt on a firing alert is a resolve timeout, not an end")
	require.Equal(t, 6.2, a.BurnRate)
	require.Equal(t, "annotations.burnRate", a.BurnRateSource)
	require.Equal(t, time.Date(2026, 11, 30, 9, 58, 30, 512000000, time.UTC), a.StartsAt)
	require.Zero(t, alerts[1].BurnRate, "\"fast\" and +Inf are not finite numbers")
	require.Empty(t, alerts[1].BurnRateSource)
	require.NotEqual(t, a.IncidentID, alerts[1].IncidentID, "different episodes; the index groups them")
}

func TestBurnRate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		labels      string
		annotations string
		want        float64
		source      string
	}{
		{"none", `{}`, `{}`, 0, ""},
		{"label", `{"burn_rate":"2.5"}`, `{}`, 2.5, "labels.burn_rate"},
		{"label before annotation", `{"burn_rate":"2.5"}`, `{"burn_rate":"9"}`, 2.5, "labels.burn_rate"},
		{"first key wins over later keys", `{"burnRate":"7"}`, `{"burn_rate":"3"}`, 3, "annotations.burn_rate"},
		{"NaN skipped", `{"burn_rate":"NaN"}`, `{"slo_burn_rate":"1.5"}`, 1.5, "annotations.slo_burn_rate"},
		{"Inf skipped", `{"burn_rate":"Inf"}`, `{}`, 0, ""},
		{"text in the value", `{"burn_rate":"14.4x (retry storm)"}`, `{}`, 0, ""},
		{"spaces trimmed", `{"burn_rate":" 1.0 "}`, `{}`, 1, "labels.burn_rate"},
		{"typed number label", `{"burn_rate":3.25}`, `{}`, 3.25, "labels.burn_rate"},
		{"negative is finite", `{"burn_rate":"-2"}`, `{}`, -2, "labels.burn_rate"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body := `{"alerts":[{"status":"firing","labels":` + tc.labels + `,"annotations":` + tc.annotations + `,"startsAt":"2026-11-30T10:00:00Z"}]}`
			alerts, err := webhook.Parse([]byte(body), received)
			require.NoError(t, err)
			require.Equal(t, tc.want, alerts[0].BurnRate)
			require.Equal(t, tc.source, alerts[0].BurnRateSource)
		})
	}
}

func TestParseRejectsNamingTheField(t *testing.T) {
	t.Parallel()
	alert := func(fields string) string {
		return `{"version":"4","alerts":[{"status":"firing","labels":{"alertname":"x"},"startsAt":"2026-11-30T10:00:00Z"},{` + fields + `}]}`
	}
	tests := []struct {
		name  string
		body  string
		field string
		msg   string
	}{
		{"not json", `{"alerts": [`, "", "malformed JSON"},
		{"empty body", ``, "", "malformed JSON"},
		{"a list, not an object", `[]`, "", "must be a JSON object"},
		{"alerts missing", `{"version":"4"}`, "alerts", "required"},
		{"alerts empty", `{"alerts":[]}`, "alerts", "at least one"},
		{"alerts not a list", `{"alerts":{}}`, "alerts", "must be a JSON array"},
		{"status missing", alert(`"labels":{},"startsAt":"2026-11-30T10:00:00Z"`), "alerts[1].status", "required"},
		{"status unknown", alert(`"status":"pending","labels":{},"startsAt":"2026-11-30T10:00:00Z"`), "alerts[1].status", "neither firing nor resolved"},
		{"labels missing", alert(`"status":"firing","startsAt":"2026-11-30T10:00:00Z"`), "alerts[1].labels", "required"},
		{"labels a list", alert(`"status":"firing","labels":[],"startsAt":"2026-11-30T10:00:00Z"`), "alerts[1].labels", "JSON object"},
		{"startsAt missing", alert(`"status":"firing","labels":{}`), "alerts[1].startsAt", "required"},
		{"startsAt not a time", alert(`"status":"firing","labels":{},"startsAt":"10:00"`), "alerts[1].startsAt", "RFC 3339"},
		{"startsAt zero", alert(`"status":"firing","labels":{},"startsAt":"0001-01-01T00:00:00Z"`), "alerts[1].startsAt", "before 1970-01-01 (Go's zero time"},
		{"startsAt a number", alert(`"status":"firing","labels":{},"startsAt":1796033220`), "alerts[1].startsAt", "JSON string"},
		{"endsAt not a time", alert(`"status":"resolved","labels":{},"startsAt":"2026-11-30T10:00:00Z","endsAt":"soon"`), "alerts[1].endsAt", "RFC 3339"},
		{"commonLabels a string", `{"commonLabels":"x","alerts":[{"status":"firing","labels":{},"startsAt":"2026-11-30T10:00:00Z"}]}`, "commonLabels", "JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := webhook.Parse([]byte(tc.body), received)
			require.ErrorIs(t, err, webhook.ErrInvalid)
			var fe *webhook.FieldError
			require.True(t, errors.As(err, &fe))
			require.Equal(t, tc.field, fe.Field)
			require.Contains(t, fe.Msg, tc.msg)
		})
	}
}

func TestParseToleratesUnknownFields(t *testing.T) {
	t.Parallel()
	body := `{"future":{"x":1},"alerts":[{"status":"firing","labels":{"service.name":"a"},"startsAt":"2026-11-30T10:00:00Z","extra":[1,2]}]}`
	alerts, err := webhook.Parse([]byte(body), received)
	require.NoError(t, err)
	require.Equal(t, "a", alerts[0].Service)
	require.NotEmpty(t, alerts[0].Fingerprint, "derived from labels when the sender sent none")
	require.Equal(t, webhook.Fingerprint(map[string]string{"service.name": "a"}), alerts[0].Fingerprint)
}

func TestIncidentIDs(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	require.Equal(t, webhook.IncidentID("shop-api", "r1", t0), webhook.IncidentID("shop-api", "r1", t0))
	require.NotEqual(t, webhook.IncidentID("shop-api", "r1", t0), webhook.IncidentID("shop-api", "r2", t0))
	require.NotEqual(t, webhook.IncidentID("shop-api", "r1", t0), webhook.IncidentID("shop-api", "r1", t0.Add(time.Minute)))
	require.Regexp(t, `^inc-unscoped-[0-9a-f]{16}$`, webhook.IncidentID("", "r1", t0))
	require.Regexp(t, `^inc-my-svc-v2-[0-9a-f]{16}$`, webhook.IncidentID("My_Svc.v2", "r1", t0))
	require.Equal(t, webhook.RuleKey("a", "b"), webhook.RuleKey("a", "b"))
	require.NotEqual(t, webhook.RuleKey("a", "b"), webhook.RuleKey("a", "c"))
	require.NotEqual(t, webhook.RuleKey("a\x00", "b"), webhook.RuleKey("a", "\x00b"))
}

// TestIDsAreStable pins RuleKey and IncidentID to the values they had when
// shortHash was rewritten without allocations: both name keys and records
// already stored in agentk_incidents, so they may never change.
func TestIDsAreStable(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)
	long := strings.Repeat("x", 300)
	for _, c := range []struct{ service, rule, key, id string }{
		{"shop-api", "r1", "open.shop-api.8019a7ff7a4eebaa", "inc-shop-api-50e13499e2a452ad"},
		{"", "r1", "open.unscoped.e275badc0497037f", "inc-unscoped-cdc8fbc4c2e705fd"},
		{"My_Svc.v2", "rule 42", "open.my-svc-v2.2a51b88573fa11ac", "inc-my-svc-v2-5b78e88a6ffb16b8"},
		{"a\x00", "b", "open.a.a27e3ea449187fb6", "inc-a-c4f8bbc2a4eced47"},
		{"a", "\x00b", "open.a.f32da298c9a6f299", "inc-a-94df20ed450653db"},
		{"é", "", "open.unscoped.f48aa107ce279182", "inc-unscoped-843204cb47661aff"},
		{long, long, "open.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.9558cf7a92ed2d2a", "inc-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-3101e77b37ceeb01"},
	} {
		require.Equal(t, c.key, webhook.RuleKey(c.service, c.rule), "%q %q", c.service, c.rule)
		require.Equal(t, c.id, webhook.IncidentID(c.service, c.rule, t0), "%q %q", c.service, c.rule)
	}
}

// TestParseE2ECorpusAlerts parses every recorded incident's alert.json: the
// replay harness feeds them through this same parser.
func TestParseE2ECorpusAlerts(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("../../../e2e/incidents/*/alert.json")
	require.NoError(t, err)
	if len(paths) == 0 {
		t.Skip("no e2e corpus in this checkout")
	}
	for _, p := range paths {
		// The replay clock starts at the incident's now (incident.yaml).
		now := received
		meta := string(loadPath(t, filepath.Join(filepath.Dir(p), "incident.yaml")))
		if m := regexp.MustCompile(`(?m)^now: *(\S+)`).FindStringSubmatch(meta); m != nil {
			var err error
			now, err = time.Parse(time.RFC3339, m[1])
			require.NoError(t, err, p)
		}
		alerts, err := webhook.Parse(loadPath(t, p), now)
		require.NoError(t, err, p)
		require.NotEmpty(t, alerts)
	}
}

func loadPath(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}
