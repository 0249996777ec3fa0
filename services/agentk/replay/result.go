package replay

import "agentk/contracts/incident"

// Result is what `agentk replay --json` prints on its last line. The first
// fields are the contract of INCIDENT-FORMAT.md ("What a replay prints"): names
// and meanings never change; new fields are only ever added.
type Result struct {
	Incident        string   `json:"incident"`
	Investigator    string   `json:"investigator"`
	Diagnosis       string   `json:"diagnosis"`
	Confidence      float64  `json:"confidence"`
	ClaimsPublished int      `json:"claims_published"`
	ClaimsDropped   int      `json:"claims_dropped"`
	Verdict         string   `json:"verdict"`
	FailedChecks    []string `json:"failed_checks"`
	Action          string   `json:"action"`
	RollbackTarget  string   `json:"rollback_target"`

	// Additions beyond the contract.
	Expect            Expectation `json:"expect"`
	Completed         bool        `json:"investigation_completed"`
	ToolCalls         int         `json:"tool_calls"`
	TokensIn          int         `json:"tokens_in"`
	TokensOut         int         `json:"tokens_out"`
	DurationMs        int64       `json:"duration_ms"`
	UnsupportedClaims int         `json:"unsupported_claims_published"`
	OutOfGateActions  int         `json:"out_of_gate_actions"`
	// RepeatActions counts actions beyond the first that one decision paid for.
	RepeatActions int      `json:"repeat_actions"`
	Approver      string   `json:"approver,omitempty"`
	ActionReason  string   `json:"action_reason,omitempty"`
	Command       []string `json:"command,omitempty"`
	IncidentID    string   `json:"incident_id,omitempty"`
	DecisionID    string   `json:"decision_id,omitempty"`
	// FailedReasons are the gate's reasons for each failed check, whole (the
	// text output clips them to a line), so a scoring script can say why.
	FailedReasons map[string]string `json:"failed_reasons,omitempty"`
	// Culprit is the pipeline's decision about another service than the
	// alerted one, when it made one (INCIDENT-FORMAT.md, DESIGN.md rule 17):
	// the service whose release caused the incident, as the gate derived it.
	Culprit *Culprit `json:"culprit,omitempty"`
}

// Culprit is the decision about rolling back the culprit service: the gate's
// verdict and, with deny, the checks that failed.
type Culprit struct {
	Service      string   `json:"service"`
	Verdict      string   `json:"verdict"`
	FailedChecks []string `json:"failed_checks,omitempty"`
}

// Expectation is the incident's right answer, copied for scoring scripts.
type Expectation struct {
	RootCause    string   `json:"root_cause"`
	Verdict      string   `json:"verdict"`
	FailedChecks []string `json:"failed_checks,omitempty"`
	// Culprit is expect.culprit, when the incident has one.
	Culprit *incident.Culprit `json:"culprit,omitempty"`
}

// BadRollback reports an allow where deny was right, about the alerted
// service or about the culprit (CulpritBadRollback): it must never happen.
func (r Result) BadRollback() bool {
	return r.Verdict == "allow" && r.Expect.Verdict == "deny" || r.CulpritBadRollback()
}

// MissedRollback reports a deny where allow was right, about the alerted
// service or about the culprit (CulpritMissed): the safe failure.
func (r Result) MissedRollback() bool {
	return r.Verdict == "deny" && r.Expect.Verdict == "allow" || r.CulpritMissed()
}

// DiagnosisCorrect reports whether the diagnosis is the incident's root cause.
func (r Result) DiagnosisCorrect() bool { return r.Diagnosis == r.Expect.RootCause }

// VerdictCorrect reports whether the gate decided as a correct gate would.
func (r Result) VerdictCorrect() bool { return r.Verdict == r.Expect.Verdict }
