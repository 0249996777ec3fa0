package livedemo

// alert.go: the alert, as SigNoz's rule would fire it, computed by the demo
// from the live store (burn-rate maths), and posted to the ingester.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"agentk/cmd/agentk/internal/harness"
	"agentk/cmd/agentk/livesignoz"
	"agentk/contracts/incident"
)

// fireAlert waits for v2's errors to burn the budget and posts the alert.
func (d *demo) fireAlert(ctx context.Context) error {
	var burn float64
	if err := waitFor(ctx, 90*time.Second, "v2's errors to burn the budget", func() bool {
		var reqs int
		burn, reqs = burnRate(d.store, time.Now())
		return burn >= liveBurnCritical && serverSpans(d.store, d.v2From) >= liveMinV2Requests && reqs > 0
	}); err != nil {
		return err
	}
	d.res.AlertBurnRate = math.Round(burn*10) / 10
	d.p.step("v2's errors show in the live store: burn rate %.1f over the last %s (≥ %.1f: critical)", d.res.AlertBurnRate, liveRuleWindow, liveBurnCritical)
	d.p.note("the DEMO COMPUTES THE ALERT ITSELF — there is no SigNoz rule engine here; deploy/signoz/alert-rule.json is the real rule")
	alert := liveAlert(d.res.Project, d.res.AlertBurnRate, time.Now().UTC().Truncate(time.Second))
	d.res.AlertAt = time.Now()
	_, err := harness.PostAlert(ctx, "http://"+d.ingestAddr+"/v1/alerts", d.ingestToken, alert)
	var refused *harness.Refused
	switch {
	case errors.As(err, &refused):
		return fmt.Errorf("demo --live: the ingester refused the alert: %s", refused)
	case err != nil:
		return fmt.Errorf("demo --live: ingester: %w", err)
	}
	d.p.step("alert posted to the ingester (Alertmanager-format webhook, as SigNoz posts it)")
	return nil
}

// burnRate is the alert rule's value: (errors / requests) / (1 − SLO) over
// the server spans of the service in the rule's window before now.
func burnRate(st *livesignoz.Store, now time.Time) (float64, int) {
	var reqs, errs int
	for _, s := range st.Spans(func(s incident.Span) bool {
		return s.Service() == Service && s.Kind == 2 && !s.Timestamp.Before(now.Add(-liveRuleWindow)) && !s.Timestamp.After(now)
	}) {
		reqs++
		if s.HasError {
			errs++
		}
	}
	if reqs == 0 {
		return 0, 0
	}
	return float64(errs) / float64(reqs) / liveSLOBudget, reqs
}

func serverSpans(st *livesignoz.Store, from time.Time) int {
	return len(st.Spans(func(s incident.Span) bool {
		return s.Service() == Service && s.Kind == 2 && !s.Timestamp.Before(from)
	}))
}

// liveAlert is the webhook SigNoz's alert rule (deploy/signoz/alert-rule.json) posts.
func liveAlert(project string, burn float64, startsAt time.Time) []byte {
	value := fmt.Sprintf("%.1f", burn)
	ann := map[string]string{
		"burn_rate":   value,
		"value":       value,
		"threshold":   fmt.Sprint(liveBurnCritical),
		"summary":     Service + ": error budget burn",
		"description": "The SLO error budget of " + Service + " is burning faster than allowed. (Computed by agentk demo --live from the live store: no SigNoz rule engine here.)",
	}
	labels := map[string]string{
		"alertname":      Service + " error budget burn",
		"ruleId":         project,
		"service.name":   Service,
		"severity":       "critical",
		"threshold.name": "critical",
	}
	body, _ := json.Marshal(map[string]any{
		"receiver": "agentk", "status": "firing", "version": "4",
		"groupKey":          fmt.Sprintf("{}/{ruleId=%q}:{alertname=%q}", project, labels["alertname"]),
		"groupLabels":       map[string]string{"alertname": labels["alertname"]},
		"commonLabels":      labels,
		"commonAnnotations": ann,
		"externalURL":       "http://localhost:8080",
		"truncatedAlerts":   0,
		"alerts": []map[string]any{{
			"status": "firing", "labels": labels, "annotations": ann,
			"startsAt": startsAt.Format(time.RFC3339), "endsAt": "0001-01-01T00:00:00Z",
			"fingerprint": harness.RandHex(8), "generatorURL": "http://localhost:8080/alerts/edit?ruleId=" + project,
		}},
	})
	return body
}
