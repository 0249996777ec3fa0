package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// kvIncidents reads resolve times from the ingester's incident records
// (agentk_incidents, key = incident id; the ingester is the only writer and
// the bridge may only read, topology.Grants). The record's shape is the
// ingester's incidents.Record; only the two fields read here matter.
type kvIncidents struct{ kv jetstream.KeyValue }

// ResolvedAt implements desk.Incidents: zero while the alert fires or when
// the incident has no record.
func (k kvIncidents) ResolvedAt(ctx context.Context, incidentID string) (time.Time, error) {
	e, err := k.kv.Get(ctx, incidentID)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) || errors.Is(err, jetstream.ErrInvalidKey) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("bridge: incident %s: %w", incidentID, err)
	}
	_, at, err := incidentResolve(e.Value())
	if err != nil {
		return time.Time{}, fmt.Errorf("bridge: incident %s: %w", incidentID, err)
	}
	return at, nil
}

// incidentResolve reads an incident record's id and resolve time (zero
// while its alert fires).
func incidentResolve(value []byte) (string, time.Time, error) {
	var r struct {
		IncidentID string    `json:"incident_id"`
		ResolvedAt time.Time `json:"resolved_at"`
	}
	err := json.Unmarshal(value, &r)
	return r.IncidentID, r.ResolvedAt, err
}
