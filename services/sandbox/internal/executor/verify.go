package executor

import (
	"fmt"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/services/sandbox/internal/tools"
)

// VerificationPrefix starts the investigation id of every deployer-signed
// call: the deployer's recovery verification of one action
// ("verify-<action id>"). Its evidence is recorded like any other, and the
// prefix tells a reader it was the deployer's check, not the model's look.
// An investigator-signed call may not use it.
const VerificationPrefix = "verify-"

// callerRole reports which role may have signed a tool call: the
// investigator (any allowlisted tool) or the deployer (recovery only).
var callerRoles = []string{envelope.RoleInvestigator, envelope.RoleDeployer}

// checkCaller applies what a caller's role may ask before any argument is
// read: the deployer only service_overview under a verification id; the
// investigator never under one.
func checkCaller(role string, call contracts.ToolCallV1) error {
	verification := strings.HasPrefix(call.InvestigationID, VerificationPrefix)
	switch role {
	case envelope.RoleDeployer:
		if call.Tool != contracts.ToolServiceOverview {
			return fmt.Errorf("%w: a deployer-signed call may run only %s (recovery verification), not %q", ErrRejected, contracts.ToolServiceOverview, call.Tool)
		}
		if !verification || len(call.InvestigationID) == len(VerificationPrefix) {
			return fmt.Errorf("%w: a deployer-signed call's investigation id must be %s<action id>, got %q", ErrRejected, VerificationPrefix, call.InvestigationID)
		}
	case envelope.RoleInvestigator:
		if verification {
			return fmt.Errorf("%w: investigation ids starting %q are the deployer's recovery verifications", ErrRejected, VerificationPrefix)
		}
	default:
		return fmt.Errorf("%w: role %s may not call tools", ErrRejected, role)
	}
	return nil
}

// checkVerification bounds a validated deployer call: only the alert's own
// service, over an explicit range after the alert began and not in the future.
// The incident window already reaches max(now, startsAt+30m), so a recovery
// range [rollback verified, now] always overlaps it: no wider rule is needed.
func checkVerification(c tools.Call, alert contracts.AlertV1, now time.Time) error {
	if c.Service != alert.Service || alert.Service == "" {
		return fmt.Errorf("%w: recovery verification may query only the alert's service %q, not %q", ErrRejected, alert.Service, c.Service)
	}
	if c.Args.From == nil || c.Args.To == nil {
		return fmt.Errorf("%w: recovery verification needs an explicit from and to", ErrRejected)
	}
	if c.Window.From.Before(alert.StartsAt) {
		return fmt.Errorf("%w: recovery range starts %s, before the alert began at %s", ErrRejected,
			c.Window.From.Format(time.RFC3339), alert.StartsAt.UTC().Format(time.RFC3339))
	}
	if c.Window.To.After(now.Add(envelope.MaxClockSkew)) {
		return fmt.Errorf("%w: recovery range ends %s, in the future", ErrRejected, c.Window.To.Format(time.RFC3339))
	}
	return nil
}
