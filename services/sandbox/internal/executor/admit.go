package executor

import (
	"fmt"
	"log/slog"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/services/sandbox/internal/tools"
)

// admission is admit's verdict on one tool call: admitted (refusal empty),
// with what answering it needs, or refused, with the reply's error and the
// log line the refusal deserves (none when logMsg is empty).
type admission struct {
	call  contracts.ToolCallV1
	role  string // the caller's verified role; empty when the call did not verify
	alert contracts.AlertV1
	// tool is the validated call (every tool but list_fields, which
	// fieldtool validates).
	tool tools.Call

	refusal  string
	logLevel slog.Level
	logMsg   string
	logErr   error
}

// refuse turns a refusal into the admission's verdict.
func (a admission) refuse(text string, level slog.Level, msg string, err error) admission {
	a.refusal, a.logLevel, a.logMsg, a.logErr = text, level, msg, err
	return a
}

// admit decides whether a tool call may run, in order: the call verifies as
// signed by a caller role, the role may make it, the alert inside verifies
// as the ingester's and names the call's incident, the arguments validate
// within the limits, and a deployer's call is a recovery verification of the
// alert's own service. It has no side effects: the budget, which is state,
// is the caller's to spend. parseErr is the request's failure to parse as an
// envelope, if it did fail.
func admit(kr *envelope.Keyring, lim tools.Limits, env envelope.Envelope, parseErr error, now time.Time) admission {
	var a admission
	var role string
	err := parseErr
	if err == nil {
		role, err = open(kr, env, now, &a.call)
	}
	if err != nil {
		return a.refuse(fmt.Sprintf("%v: the call is not a valid investigator-signed tool call: %v", ErrRejected, err), slog.LevelWarn, "tool call rejected", err)
	}
	a.role = role
	if err := checkCaller(role, a.call); err != nil {
		return a.refuse(err.Error(), slog.LevelWarn, "tool call refused for its caller", err)
	}
	if _, err := kr.Open(a.call.Alert, contracts.SubjectAlert, now, &a.alert); err != nil {
		return a.refuse(fmt.Sprintf("%v: the alert inside the call is not ingester-signed: %v", ErrRejected, err), slog.LevelWarn, "alert in tool call rejected", err)
	}
	if a.alert.IncidentID != a.call.IncidentID || a.call.InvestigationID == "" {
		return a.refuse(fmt.Sprintf("%v: call names incident %q but carries the alert of %q", ErrRejected, a.call.IncidentID, a.alert.IncidentID), 0, "", nil)
	}
	if a.call.Tool == contracts.ToolListFields {
		return a
	}
	if a.tool, err = tools.Validate(a.call.Tool, a.call.Arguments, a.alert.StartsAt, now, lim); err != nil {
		return a.refuse(err.Error(), slog.LevelInfo, "tool call refused", err)
	}
	if role == envelope.RoleDeployer {
		if err := checkVerification(a.tool, a.alert, now); err != nil {
			return a.refuse(err.Error(), slog.LevelWarn, "recovery verification refused", err)
		}
	}
	return a
}
