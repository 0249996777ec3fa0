// Package view derives what humans are shown about a decision, beyond the
// decision's own fields, for both the Slack message and the console: the
// burn rate the gate believed, the current → target move, the incident
// window, SigNoz deep links, and durations in words. It does no I/O.
package view

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/human"
	"agentk/platform/links"
)

// Links are where a human can read more. Empty fields are left out.
type Links struct {
	// Report is the console page of the incident report.
	Report string
	// Traces is SigNoz's traces explorer filtered to the service and the
	// incident window.
	Traces string
	// Marker is the trace of the deployment marker the gate relied on.
	Marker string
	// ErrorLogs is SigNoz's logs explorer on the service's error logs in the window.
	ErrorLogs string
	// Alert is the alert rule's page in SigNoz.
	Alert string
}

// Facts are values read from the gate's own check inputs and the signed
// alert the decision carries: what the gate saw, not what a model said.
type Facts struct {
	// BurnRate and BurnThreshold are the slo_breach check's inputs; "" when absent.
	BurnRate, BurnThreshold string
	// Current is what runs now (image, else version), from deployment_related.
	Current string
	// MarkerTraceID is the trace of the deployment marker the gate chose.
	MarkerTraceID string
	// From and To bound the incident window; zero when nothing placed it.
	From, To time.Time
	// Alert is the decision's alert, nil when it carries none readable.
	Alert *contracts.AlertV1
}

// Lead is how far before the alert (or the marker window) the incident
// window opens, so the change point and its baseline are in view.
const Lead = 15 * time.Minute

// FactsOf reads a decision's facts.
func FactsOf(d contracts.DecisionV1) Facts {
	var f Facts
	for _, c := range d.Checks {
		switch c.Name {
		case contracts.CheckSLOBreach:
			f.BurnRate, f.BurnThreshold = c.Inputs["burn_rate"], c.Inputs["threshold"]
		case contracts.CheckDeploymentRelated:
			f.Current = c.Inputs["current_image"]
			if f.Current == "" {
				f.Current = c.Inputs["current_version"]
			}
			f.MarkerTraceID = c.Inputs["marker_trace_id"]
			if lo, _, ok := strings.Cut(c.Inputs["window"], "/"); ok {
				if t, err := time.Parse(time.RFC3339, lo); err == nil {
					f.From = t
				}
			}
		}
	}
	f.Alert = alertOf(d)
	if a := f.Alert; a != nil && !a.StartsAt.IsZero() {
		if from := a.StartsAt.Add(-Lead); f.From.IsZero() || from.Before(f.From) {
			f.From = from
		}
	}
	if !f.From.IsZero() {
		f.To = d.DecidedAt
		if a := f.Alert; a != nil && a.StartsAt.Add(Lead).After(f.To) {
			f.To = a.StartsAt.Add(Lead)
		}
		if !f.To.After(f.From) {
			f.To = f.From.Add(2 * Lead)
		}
	}
	return f
}

// alertOf decodes the alert envelope the gate passed through. The gate set it
// only after verifying it, and the decision around it is gate-signed; here
// it only places links.
func alertOf(d contracts.DecisionV1) *contracts.AlertV1 {
	if len(d.Alert) == 0 {
		return nil
	}
	env, err := envelope.Parse(d.Alert)
	if err != nil {
		return nil
	}
	var a contracts.AlertV1
	if err := json.Unmarshal(env.Payload, &a); err != nil {
		return nil
	}
	return &a
}

// SigNoz returns the SigNoz deep links for a decision under the UI base URL
// (links.DefaultBaseURL when empty), shaped as SigNoz's own frontend shapes
// them (platform/links) on its real routes: the traces explorer on
// the service over the incident window, the marker's trace, the error logs
// in the logs explorer, and the alert rule's overview.
func SigNoz(base string, d contracts.DecisionV1) Links {
	if base == "" {
		base = links.DefaultBaseURL
	}
	base = strings.TrimRight(base, "/")
	f := FactsOf(d)
	var l Links
	if d.Service != "" && !f.From.IsZero() {
		svc := "service.name = " + quote(d.Service)
		l.Traces = links.Traces(base, links.Explorer{Filter: svc, From: f.From, To: f.To})
		l.ErrorLogs = links.Logs(base, links.Explorer{Filter: svc + " AND severity_text IN ('ERROR', 'FATAL')", From: f.From, To: f.To})
	}
	if f.MarkerTraceID != "" {
		l.Marker = links.Trace(base, f.MarkerTraceID)
	}
	if a := f.Alert; a != nil && a.RuleID != "" {
		l.Alert = base + links.RouteAlertOverview + "?ruleId=" + urlQuery(a.RuleID)
	}
	return l
}

// quote is a v5 filter string literal.
func quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func urlQuery(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// TimeLeft says how long until deadline at now: "4 min 10 s left", or "expired".
func TimeLeft(deadline, now time.Time) string {
	if !now.Before(deadline) {
		return "expired"
	}
	return human.Duration(deadline.Sub(now)) + " left"
}
