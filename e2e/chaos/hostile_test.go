package chaos

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// hostileKinds names each kind of hostile webhook the soak test sends, in
// the order hostile cycles through them. The first ones must be refused at
// the door; the last ones are accepted and must not harm anything.
var hostileKinds = []string{
	"huge-service-name", "huge-alertname", "huge-unknown-field", "starts-year-1", "starts-9999",
	"nul-service", "esc-label", "rlo-alertname", "malformed-json", "labels-not-object",
	"too-many-labels", "ends-9999", "control-annotation", "over-max-body",
	// accepted:
	"test-notification", "no-data", "resolved-unknown", "unknown-service", "flap",
}

// refused reports whether kind must be refused with a 4xx.
func refused(kind string) bool {
	switch kind {
	case "valid", "test-notification", "no-data", "resolved-unknown", "unknown-service", "flap":
		return false
	}
	return true
}

// webhook is one alert as SigNoz sends it.
func webhook(status string, labels, annotations map[string]string, startsAt, endsAt string, extra map[string]any) []byte {
	a := map[string]any{"status": status, "labels": labels, "annotations": annotations,
		"startsAt": startsAt, "endsAt": endsAt, "generatorURL": "http://signoz:8080/alerts/edit?ruleId=x"}
	for k, v := range extra {
		a[k] = v
	}
	b, _ := json.Marshal(map[string]any{"receiver": "agentk", "status": status, "version": "4", "alerts": []any{a}})
	return b
}

func baseLabels(svc, rule string) map[string]string {
	return map[string]string{"alertname": "error budget burn", "service.name": svc, "ruleId": rule, "severity": "critical", "burn_rate": "4"}
}

// hostile returns the bodies of the i-th hostile webhook (a flap is three
// posts: fire, resolve, fire again) and its kind. now is the pipeline's clock.
func hostile(i int, now time.Time) (string, [][]byte) {
	kind := hostileKinds[i%len(hostileKinds)]
	rule := fmt.Sprintf("hostile-%d", i)
	start := now.Add(-2 * time.Minute).Format(time.RFC3339)
	notEnded := "0001-01-01T00:00:00Z"
	l := baseLabels("shop-api", rule)
	with := func(k, v string) map[string]string { l[k] = v; return l }
	one := func(b []byte) [][]byte { return [][]byte{b} }
	switch kind {
	case "huge-service-name":
		return kind, one(webhook("firing", with("service.name", strings.Repeat("s", 100<<10)), nil, start, notEnded, nil))
	case "huge-alertname":
		return kind, one(webhook("firing", with("alertname", strings.Repeat("a", 300<<10)), nil, start, notEnded, nil))
	case "huge-unknown-field":
		return kind, one(webhook("firing", l, nil, start, notEnded, map[string]any{"extra": strings.Repeat("x", 600<<10)}))
	case "starts-year-1":
		return kind, one(webhook("firing", l, nil, "0001-01-01T00:00:01Z", notEnded, nil))
	case "starts-9999":
		return kind, one(webhook("firing", l, nil, "9999-12-31T23:59:59Z", notEnded, nil))
	case "nul-service":
		return kind, one(webhook("firing", with("service.name", "shop\x00api"), nil, start, notEnded, nil))
	case "esc-label":
		return kind, one(webhook("firing", with("instance", "\x1b[2K\rINFO forged row"), nil, start, notEnded, nil))
	case "rlo-alertname":
		return kind, one(webhook("firing", with("alertname", "burn \u202eipa-pohs"), nil, start, notEnded, nil))
	case "malformed-json":
		return kind, one([]byte(`{"alerts":[{"status":"firing","labels":{"service.name":"shop-api"`))
	case "labels-not-object":
		return kind, one([]byte(`{"alerts":[{"status":"firing","labels":["service.name","shop-api"],"startsAt":"` + start + `"}]}`))
	case "too-many-labels":
		for j := range 100 {
			l[fmt.Sprintf("l%03d", j)] = "v"
		}
		return kind, one(webhook("firing", l, nil, start, notEnded, nil))
	case "ends-9999":
		return kind, one(webhook("resolved", l, nil, start, "9999-12-31T23:59:59Z", nil))
	case "control-annotation":
		return kind, one(webhook("firing", l, map[string]string{"summary": "ok\x07\x1b]8;;http://evil\x1b\\"}, start, notEnded, nil))
	case "over-max-body":
		return kind, one(webhook("firing", l, map[string]string{"description": strings.Repeat("d", 1100<<10)}, start, notEnded, nil))
	case "test-notification":
		return kind, one(webhook("firing", map[string]string{"alertname": "Test Alert (agentk)", "testalert": "true"}, nil, start, notEnded, nil))
	case "no-data":
		return kind, one(webhook("firing", with("nodata", "true"), nil, start, notEnded, nil))
	case "resolved-unknown":
		return kind, one(webhook("resolved", l, nil, start, now.Add(-time.Minute).Format(time.RFC3339), nil))
	case "unknown-service":
		return kind, one(webhook("firing", with("service.name", fmt.Sprintf("not-in-scope-%d", i)), nil, start, notEnded, nil))
	case "flap":
		fire := webhook("firing", l, nil, start, notEnded, map[string]any{"fingerprint": fmt.Sprintf("flap%012d", i)})
		res := webhook("resolved", l, nil, start, now.Add(-time.Minute).Format(time.RFC3339), map[string]any{"fingerprint": fmt.Sprintf("flap%012d", i)})
		return kind, [][]byte{fire, res, fire}
	}
	panic("unknown kind " + kind)
}

// valid is the i-th valid alert: the incident's own alert under its own
// rule, so that each is a new deployment-class incident.
func valid(alertJSON []byte, i int) []byte {
	var v any
	if err := json.Unmarshal(alertJSON, &v); err != nil {
		panic(err)
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "ruleId" {
					x[k] = fmt.Sprintf("valid-%d", i)
					continue
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	b, _ := json.Marshal(v)
	return b
}
