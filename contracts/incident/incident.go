// Package incident reads recorded incidents in the on-disk format of
// INCIDENT-FORMAT.md: a folder with incident.yaml, alert.json, spans.jsonl,
// optional logs.jsonl (either of them may be gzip-compressed as .jsonl.gz,
// OpenTelemetry), releases.yaml and an optional rule.json. The format is a contract: folders
// written by others must load unchanged, and a folder that breaks it is refused
// with an error naming the file, line and field.
package incident

import (
	"encoding/json"
	"sort"
	"time"
)

// Incident is one loaded incident folder.
type Incident struct {
	Dir  string
	Meta Meta
	// AlertJSON is alert.json byte for byte: the webhook body as SigNoz posted it.
	AlertJSON []byte
	// RuleJSON is rule.json byte for byte (nil when the folder has none):
	// the alert's rule as SigNoz's GET /api/v2/rules/{id} returns it.
	RuleJSON []byte
	// Spans and Logs are nil while the telemetry is deferred (Deferred).
	Spans    []Span
	Logs     []Log
	Releases Releases
	// deferred: the telemetry was not read (LoadDeferred); WithTelemetry
	// reads it.
	deferred bool
}

// Meta is incident.yaml.
type Meta struct {
	ID              string        `yaml:"id" json:"id"`
	Title           string        `yaml:"title" json:"title"`
	Service         string        `yaml:"service" json:"service"`
	Now             time.Time     `yaml:"now" json:"now"`
	Expect          Expect        `yaml:"expect" json:"expect"`
	Tags            []string      `yaml:"tags,omitempty" json:"tags,omitempty"`
	SandboxServices []string      `yaml:"sandbox_services,omitempty" json:"sandbox_services,omitempty"`
	PriorActions    []PriorAction `yaml:"prior_actions,omitempty" json:"prior_actions,omitempty"`
}

// Expect is the right answer.
type Expect struct {
	RootCause    string   `yaml:"root_cause" json:"root_cause"`
	Verdict      string   `yaml:"verdict" json:"verdict"`
	FailedChecks []string `yaml:"failed_checks,omitempty" json:"failed_checks,omitempty"`
	// Culprit is set when the release that caused the incident may be another
	// service's than the alerted one (DESIGN.md rule 17): what a correct
	// pipeline decides about rolling that service back.
	Culprit *Culprit `yaml:"culprit,omitempty" json:"culprit,omitempty"`
}

// Culprit is expect.culprit: a service of releases.yaml and the verdict a
// correct gate gives a rollback of it (allow or deny).
type Culprit struct {
	Service string `yaml:"service" json:"service"`
	Verdict string `yaml:"verdict" json:"verdict"`
}

// PriorAction is an entry of the action ledger when the replay starts.
type PriorAction struct {
	Service string    `yaml:"service" json:"service"`
	At      time.Time `yaml:"at" json:"at"`
}

// Span is one line of spans.jsonl, named like SigNoz's trace columns.
type Span struct {
	Timestamp     time.Time         `json:"timestamp"`
	TraceID       string            `json:"trace_id"`
	SpanID        string            `json:"span_id"`
	ParentSpanID  string            `json:"parent_span_id"`
	Name          string            `json:"name"`
	Kind          int               `json:"kind"`
	DurationNano  int64             `json:"duration_nano"`
	HasError      bool              `json:"has_error"`
	StatusCode    int               `json:"status_code"`
	StatusMessage string            `json:"status_message"`
	Resource      map[string]string `json:"resource"`
	// Attributes keep their JSON types (string, number, bool).
	Attributes map[string]json.RawMessage `json:"attributes"`
}

// Service returns the span's resource service.name.
func (s Span) Service() string { return s.Resource["service.name"] }

// Log is one line of logs.jsonl. Body is untrusted text.
type Log struct {
	Timestamp    time.Time                  `json:"timestamp"`
	SeverityText string                     `json:"severity_text"`
	Body         string                     `json:"body"`
	TraceID      string                     `json:"trace_id"`
	SpanID       string                     `json:"span_id"`
	Resource     map[string]string          `json:"resource"`
	Attributes   map[string]json.RawMessage `json:"attributes"`
}

// Service returns the log's resource service.name.
func (l Log) Service() string { return l.Resource["service.name"] }

// Releases is releases.yaml.
type Releases struct {
	Project  string                    `yaml:"project" json:"project"`
	Services map[string][]ReleaseEntry `yaml:"services" json:"services"`
}

// ReleaseEntry is one release of a service, oldest first in the file.
type ReleaseEntry struct {
	Version    string    `yaml:"version" json:"version"`
	Image      string    `yaml:"image" json:"image"`
	DeployedAt time.Time `yaml:"deployed_at" json:"deployed_at"`
}

// ServiceNames returns the services of releases.yaml, sorted.
func (r Releases) ServiceNames() []string {
	names := make([]string, 0, len(r.Services))
	for n := range r.Services {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// SandboxScope returns the services the gate and the deployer may act on in a
// replay of this incident: incident.yaml's sandbox_services, by default every
// service in releases.yaml (INCIDENT-FORMAT.md).
func (inc *Incident) SandboxScope() []string {
	if len(inc.Meta.SandboxServices) > 0 {
		return append([]string(nil), inc.Meta.SandboxServices...)
	}
	return inc.Releases.ServiceNames()
}
