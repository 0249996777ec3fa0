// Package admission is the ingester's pure admission core: the incident
// record and its states, how many incidents hold an investigation slot, which
// queued incidents to release, and the ids of reopened episodes. It does no
// I/O; package incidents stores its records in the agentk_incidents bucket
// and publishes the alerts these decisions release.
//
// The lifecycle of an incident, state by state, is docs/lifecycle.md.
package admission

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"agentk/contracts"
)

// Incident states.
const (
	StatePending       = "pending"
	StateQueued        = "queued"
	StateInvestigating = "investigating"
	// StateDecided: the gate decided the incident's investigation; the
	// incident may still fire, but it holds no investigation slot.
	StateDecided  = "decided"
	StateResolved = "resolved"
	// StateNoData is a SigNoz "[No data]" alert: recorded and listed, never
	// investigated.
	StateNoData = "no_data"
	// StateRefused: the bus refused the incident's alert for its content. It
	// is set aside with the reason, so that it never blocks the incidents
	// queued behind it.
	StateRefused = "refused"
)

// Record is one incident in the index.
type Record struct {
	IncidentID string    `json:"incident_id"`
	Service    string    `json:"service"`
	RuleID     string    `json:"rule_id"`
	State      string    `json:"state"`
	OpenedAt   time.Time `json:"opened_at"`
	ReleasedAt time.Time `json:"released_at,omitzero"`
	ResolvedAt time.Time `json:"resolved_at,omitzero"`
	DecidedAt  time.Time `json:"decided_at,omitzero"`
	// Verdict is the gate's verdict once decided.
	Verdict string `json:"verdict,omitempty"`
	// Refusal is why the bus refused the alert (StateRefused).
	Refusal string `json:"refusal,omitempty"`
	// Reopens names the resolved incident of the same (service, rule) and
	// startsAt this one follows: Alertmanager re-fired it after a resolve
	// (flapping), so it is a new episode with its own investigation.
	Reopens string `json:"reopens,omitempty"`
	// Alert is the alert that opened the incident, published when the
	// incident is released to investigation.
	Alert contracts.AlertV1 `json:"alert"`
	// AlertResolved: Alert resolved. Until then the record counts as one of
	// the incident's firing alerts, beside their fp keys: opening an
	// incident writes no fp key for its own alert.
	AlertResolved bool `json:"alert_resolved,omitempty"`
}

// Holds reports whether r holds an investigation slot at now: released, not
// decided or resolved, and within its lease.
func (r Record) Holds(now time.Time, lease time.Duration) bool {
	return r.State == StateInvestigating && now.Sub(r.ReleasedAt) < lease
}

// Release is r released to investigation at now.
func (r Record) Release(now time.Time) Record {
	r.State, r.ReleasedAt = StateInvestigating, now
	return r
}

// Busy counts the incidents holding an investigation slot at now.
func Busy(recs []Record, now time.Time, lease time.Duration) int {
	n := 0
	for _, r := range recs {
		if r.Holds(now, lease) {
			n++
		}
	}
	return n
}

// Admit returns the indexes of the queued records to release at now, oldest
// opened first, so that at most max incidents hold a slot.
func Admit(recs []Record, now time.Time, max int, lease time.Duration) []int {
	free := max - Busy(recs, now, lease)
	if free <= 0 {
		return nil
	}
	var queued []int
	for i, r := range recs {
		if r.State == StateQueued {
			queued = append(queued, i)
		}
	}
	sort.SliceStable(queued, func(a, b int) bool {
		ra, rb := recs[queued[a]], recs[queued[b]]
		if !ra.OpenedAt.Equal(rb.OpenedAt) {
			return ra.OpenedAt.Before(rb.OpenedAt)
		}
		return ra.IncidentID < rb.IncidentID
	})
	if len(queued) > free {
		queued = queued[:free]
	}
	return queued
}

// MaxReopens bounds how many times one (service, rule, startsAt) reopens.
const MaxReopens = 1000

// NextOpening is the id of the incident that follows the resolved incident
// id when the same episode fires again: <id>-r2, <id>-r3, …
func NextOpening(id string) string {
	if i := strings.LastIndex(id, "-r"); i > 0 {
		if n, err := strconv.Atoi(id[i+2:]); err == nil && n >= 2 {
			return id[:i] + "-r" + strconv.Itoa(n+1)
		}
	}
	return id + "-r2"
}
