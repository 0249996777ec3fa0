package contracts

import (
	"encoding/json"
	"time"
)

// Alert statuses.
const (
	AlertFiring   = "firing"
	AlertResolved = "resolved"
)

// AlertV1 is one normalised alert from SigNoz (or any Alertmanager-format
// sender), published on SubjectAlert once it is durable. Several webhook
// deliveries of the same firing alert share one IncidentID.
type AlertV1 struct {
	// IncidentID identifies the incident: one per (service, rule) while it fires.
	IncidentID string `json:"incident_id"`
	// Status is AlertFiring or AlertResolved.
	Status string `json:"status"`
	// Service is the service.name (or service) label; empty means out of scope.
	Service string `json:"service"`
	// RuleID is SigNoz's ruleId label (or alertname when there is none).
	RuleID    string `json:"rule_id"`
	AlertName string `json:"alert_name"`
	Severity  string `json:"severity,omitempty"`
	// StartsAt is when the alert began firing (Alertmanager startsAt).
	StartsAt time.Time `json:"starts_at"`
	// EndsAt is set only for resolved alerts; SigNoz's 0001-01-01 means still firing.
	EndsAt *time.Time `json:"ends_at,omitempty"`
	// BurnRate is the SLO burn rate read from labels or annotations; an unreadable
	// value is 0, which fails the gate's slo_breach check.
	BurnRate float64 `json:"burn_rate"`
	// BurnRateSource names where BurnRate came from ("labels.burn_rate",
	// "annotations.slo_burn_rate", …), or "" when none parsed.
	BurnRateSource string `json:"burn_rate_source,omitempty"`
	// NoData marks SigNoz's "[No data]" alerts: recorded, not investigated.
	NoData bool `json:"no_data,omitempty"`
	// Test marks the notification channel's test alert: acknowledged, never investigated.
	Test        bool              `json:"test,omitempty"`
	Fingerprint string            `json:"fingerprint,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Links       AlertLinks        `json:"links,omitempty"`
	ReceivedAt  time.Time         `json:"received_at"`
	// Raw is the single alert object exactly as the webhook carried it.
	Raw json.RawMessage `json:"raw,omitempty"`
}

// AlertLinks are the links the sender attached to the alert.
type AlertLinks struct {
	Generator     string `json:"generator,omitempty"`
	RelatedTraces string `json:"related_traces,omitempty"`
	RelatedLogs   string `json:"related_logs,omitempty"`
}
