package contracts

import (
	"encoding/json"
	"time"
)

// EvidenceV1 is one tool result as the sandbox recorded it. Only the sandbox
// produces it; the reviewer and the gate trust its Facts because the model
// never wrote them.
type EvidenceV1 struct {
	ID              string          `json:"id"`
	InvestigationID string          `json:"investigation_id"`
	IncidentID      string          `json:"incident_id"`
	Service         string          `json:"service"`
	Tool            string          `json:"tool"`
	Arguments       json.RawMessage `json:"arguments"`
	From            time.Time       `json:"from"`
	To              time.Time       `json:"to"`
	// RawSHA256 is the hex sha256 of the raw SigNoz response body.
	RawSHA256 string `json:"raw_sha256"`
	// Compact is what the model sees: nulls and engine statistics removed,
	// rows and characters capped, untrusted text quoted as data.
	Compact string `json:"compact"`
	// Link is a SigNoz deep link under the configured base URL.
	Link       string    `json:"link"`
	Facts      Facts     `json:"facts"`
	RecordedAt time.Time `json:"recorded_at"`
}

// Facts are the values the gate may use without reading text. Pointers are nil
// when the tool did not measure them.
type Facts struct {
	// MarkerQuery is true when this evidence is the result of a deployment-marker
	// query (even one that found none).
	MarkerQuery bool `json:"marker_query,omitempty"`
	// DeploymentMarkers come only from spans named deployment.marker.
	DeploymentMarkers []DeploymentMarker `json:"deployment_markers,omitempty"`
	RequestCount      *int64             `json:"request_count,omitempty"`
	ErrorCount        *int64             `json:"error_count,omitempty"`
	ErrorRate         *float64           `json:"error_rate,omitempty"`
	P95Ms             *float64           `json:"p95_ms,omitempty"`
	// Onset is the first minute the service's error rate or p95 left its baseline.
	Onset *time.Time `json:"onset,omitempty"`
	// OnsetUnknown says in plain words why a service overview placed no onset
	// ("baseline 6 min (40 sampled requests) before the alert, need 10 min and
	// 30 sampled requests"); empty when an onset was found or not measured.
	OnsetUnknown string `json:"onset_unknown,omitempty"`
	// Numbers are every number in Compact, so the reviewer can check a claim's figures.
	Numbers []float64 `json:"numbers,omitempty"`
	// TrafficRatio is the service's inbound request rate (root spans per
	// minute) from the onset on, over its baseline rate; nil when unknown. A
	// surge of traffic, not a release, explains a regression that comes with it.
	TrafficRatio *float64 `json:"traffic_ratio,omitempty"`
	// CoRegressed lists other services (never the pipeline's own) whose errors
	// or latency left their baseline within minutes of this service's onset: a
	// shared cause that rolling back this one service would not fix.
	CoRegressed []string `json:"co_regressed,omitempty"`
	// Propagated lists other services that regressed with this one only
	// through their calls into it: their failing traces hold this service's
	// failing spans beneath their own. They are no shared cause.
	Propagated []string `json:"propagated,omitempty"`
}

// DeploymentMarker is one deployment.marker span.
type DeploymentMarker struct {
	Service         string    `json:"service"`
	Version         string    `json:"version"`
	PreviousVersion string    `json:"previous_version,omitempty"`
	DeploymentID    string    `json:"deployment_id,omitempty"`
	At              time.Time `json:"at"`
	TraceID         string    `json:"trace_id,omitempty"`
	SpanID          string    `json:"span_id,omitempty"`
}
