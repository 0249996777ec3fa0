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
	if a.IncidentID != d.IncidentID || a.Service != d.Service {
		return nil, fmt.Errorf("%w: decision %s is about %s/%s but carries the alert of %s/%s", ErrAlert, d.DecisionID,
			d.IncidentID, d.Service, a.IncidentID, a.Service)
	}
	return d.Alert, nil
}
