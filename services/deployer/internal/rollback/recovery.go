package rollback

import (
	"encoding/json"
	"time"

	"agentk/contracts"
	"agentk/services/deployer/internal/policy"
)

// RecoveryQuery is what one recovery check is about: the service rolled back
// by ActionID, from Since (the container verified on the target) to now.
type RecoveryQuery struct {
	ActionID   string
	IncidentID string
	Service    string
	// Alert is the ingester-signed alert envelope the decision carried, already
	// verified to name this incident and service; nil when it could not be,
	// and then AlertProblem says why.
	Alert        json.RawMessage
	AlertProblem string
	Since        time.Time
}

// recoveryAlert is the decision's alert as verified before acting.
type recoveryAlert struct {
	raw     json.RawMessage
	problem string
	// service is the service whose SLO recovery is checked on: the
	// alerted one (policy.RecoveryService).
	service string
}

// alertOf verifies the alert a decision carries. A problem never stops the
// rollback a human approved; it only means telemetry cannot confirm recovery.
func (d *Deployer) alertOf(dec contracts.DecisionV1, now time.Time) recoveryAlert {
	raw, err := policy.RecoveryAlert(d.Keyring, dec, now)
	if err != nil {
		return recoveryAlert{problem: err.Error(), service: policy.RecoveryService(dec)}
	}
	return recoveryAlert{raw: raw, service: policy.RecoveryService(dec)}
}
