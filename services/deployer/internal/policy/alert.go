package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
)

// ErrAlert wraps every reason the alert a decision carries cannot be used for
// the recovery query.
var ErrAlert = errors.New("policy: decision alert")

// RecoveryAlert returns the ingester-signed alert envelope a verified
// decision carries, once it verifies and names the decision's own incident and
// service. The sandbox derives the recovery query's window from it, so a
// missing or mismatched alert means recovery cannot be checked, never that
// the deployer picks a window itself.
func RecoveryAlert(kr *envelope.Keyring, d contracts.DecisionV1, now time.Time) (json.RawMessage, error) {
	if len(d.Alert) == 0 {
		return nil, fmt.Errorf("%w: decision %s carries no alert", ErrAlert, d.DecisionID)
	}
	var a contracts.AlertV1
	if _, err := kr.Open(d.Alert, contracts.SubjectAlert, now, &a); err != nil {
		return nil, fmt.Errorf("%w: decision %s: %w", ErrAlert, d.DecisionID, err)
	}
	want := d.Service
	if d.Origin != nil {
		// A derived decision (issue 33) acts on the service where the alerted
		// service's failures begin and carries the alerted service's alert.
		if d.Origin.AlertedService == "" || d.Origin.AlertedService == d.Service {
			return nil, fmt.Errorf("%w: derived decision %s about %s names alerted service %q: a derived decision is about another service than the alerted one",
				ErrAlert, d.DecisionID, d.Service, d.Origin.AlertedService)
		}
		want = d.Origin.AlertedService
	}
	if a.IncidentID != d.IncidentID || a.Service != want {
		return nil, fmt.Errorf("%w: decision %s is about %s/%s but carries the alert of %s/%s", ErrAlert, d.DecisionID,
			d.IncidentID, want, a.IncidentID, a.Service)
	}
	return d.Alert, nil
}

// RecoveryService is the service whose SLO tells whether a rollback on d
// worked: the alerted service, which for a derived decision is not the one
// rolled back (its alert is the one that must stop burning).
func RecoveryService(d contracts.DecisionV1) string {
	if d.Origin != nil {
		return d.Origin.AlertedService
	}
	return d.Service
}

// DerivedState is the adapter's verification of a derived decision's alert
// (RecoveryAlert): Checked once it ran, Err what it found.
type DerivedState struct {
	Checked bool
	Err     error
}

// derived refuses a derived decision whose signed alert does not name the
// alerted service its origin states, for this incident: the gate's reason
// for acting on a service nobody alerted on would then be unsupported. A
// derived decision nobody checked is refused too (fail closed).
func derived(in Input) *Refusal {
	d := in.Verified.Decision
	if d.Origin == nil {
		return nil
	}
	switch {
	case !in.Derived.Checked:
		return refuse(ReasonOriginMismatch, "derived decision %s about %s: its alert was not verified", d.DecisionID, d.Service)
	case in.Derived.Err != nil:
		return refuse(ReasonOriginMismatch, "derived decision %s about %s (alerted %q): %v", d.DecisionID, d.Service, d.Origin.AlertedService, in.Derived.Err)
	}
	return nil
}
