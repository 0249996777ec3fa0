package contracts_test

import (
	"encoding/json"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
)

// goldenNow is the incident clock every golden example is stamped with.
var goldenNow = time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// messageTypes maps each schema subject to a fresh value of its Go type.
func messageTypes() map[string]func() any {
	return map[string]func() any{
		contracts.SubjectAlert:     func() any { return &contracts.AlertV1{} },
		contracts.SubjectToolCall:  func() any { return &contracts.ToolCallV1{} },
		contracts.SubjectToolReply: func() any { return &contracts.ToolReplyV1{} },
		contracts.SubjectEvidence:  func() any { return &contracts.EvidenceV1{} },
		contracts.SubjectReport:    func() any { return &contracts.ReportV1{} },
		contracts.SubjectReview:    func() any { return &contracts.ReviewV1{} },
		contracts.SubjectDecision:  func() any { return &contracts.DecisionV1{} },
		contracts.SubjectApproval:  func() any { return &contracts.ApprovalV1{} },
		contracts.SubjectAction:    func() any { return &contracts.ActionV1{} },
		contracts.SubjectLedger:    func() any { return &contracts.ReleaseLedgerV1{} },
		contracts.SubjectCooldown:  func() any { return &contracts.CooldownV1{} },
		contracts.SubjectFreeze:    func() any { return &contracts.FreezeV1{} },
		contracts.SubjectEnvelope:  func() any { return &envelope.Envelope{} },
	}
}

func seal(role, subject string, v any, ttl time.Duration) json.RawMessage {
	e, err := contracts.GoldenSigner(role).SealJSON(subject, v, goldenNow, ttl)
	if err != nil {
		panic(err)
	}
	return e.Marshal()
}

const rawSigNozAlert = `{"status":"firing","labels":{"alertname":"shop-api error rate","ruleId":"019368f2-8c1a-7b4e-9d3f-2a6b1c0e5f11","severity":"critical","service.name":"shop-api","burn_rate":"14.4","threshold.name":"critical"},"annotations":{"summary":"error rate of shop-api is above 5%","related_traces":"http://signoz:8080/traces-explorer?ruleId=019368f2","related_logs":"http://signoz:8080/logs/logs-explorer?ruleId=019368f2"},"startsAt":"2026-11-30T10:12:00Z","endsAt":"0001-01-01T00:00:00Z","generatorURL":"http://signoz:8080/alerts/overview?ruleId=019368f2-8c1a-7b4e-9d3f-2a6b1c0e5f11","fingerprint":"6f3c2b1a9e8d7c65"}`

// examples returns one realistic value per subject. Envelopes inside them are
// sealed with the golden fixture keys, so consumers can verify them with
// contracts.GoldenKeyring.
func examples() map[string]any {
	startsAt := time.Date(2026, 11, 30, 10, 12, 0, 0, time.UTC)
	alert := contracts.AlertV1{
		IncidentID: "inc-shop-api-5b1e0c7d2a9f4e31", Status: contracts.AlertFiring,
		Service: "shop-api", RuleID: "019368f2-8c1a-7b4e-9d3f-2a6b1c0e5f11",
		AlertName: "shop-api error rate", Severity: "critical", StartsAt: startsAt,
		BurnRate: 14.4, BurnRateSource: "labels.burn_rate", Fingerprint: "6f3c2b1a9e8d7c65",
		Labels: map[string]string{
			"alertname": "shop-api error rate", "ruleId": "019368f2-8c1a-7b4e-9d3f-2a6b1c0e5f11",
			"severity": "critical", "service.name": "shop-api", "burn_rate": "14.4", "threshold.name": "critical",
		},
		Annotations: map[string]string{
			"summary":        "error rate of shop-api is above 5%",
			"related_traces": "http://signoz:8080/traces-explorer?ruleId=019368f2",
			"related_logs":   "http://signoz:8080/logs/logs-explorer?ruleId=019368f2",
		},
		Links: contracts.AlertLinks{
			Generator:     "http://signoz:8080/alerts/overview?ruleId=019368f2-8c1a-7b4e-9d3f-2a6b1c0e5f11",
			RelatedTraces: "http://signoz:8080/traces-explorer?ruleId=019368f2",
			RelatedLogs:   "http://signoz:8080/logs/logs-explorer?ruleId=019368f2",
		},
		ReceivedAt: goldenNow,
		Raw:        json.RawMessage(rawSigNozAlert),
	}
	alertEnv := seal(envelope.RoleIngester, contracts.SubjectAlert, alert, 0)
	markerTime := time.Date(2026, 11, 30, 10, 2, 0, 0, time.UTC)
	onset := time.Date(2026, 11, 30, 10, 5, 0, 0, time.UTC)
	evidence := contracts.EvidenceV1{
		ID: "ev-01", InvestigationID: "inv-01", IncidentID: alert.IncidentID, Service: "shop-api",
		Tool: contracts.ToolDeploymentMarkers, Arguments: json.RawMessage(`{"service":"shop-api"}`),
		From: startsAt.Add(-2 * time.Hour), To: goldenNow,
		RawSHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		Compact:   "deployment.marker shop-api v1 -> v2 at 2026-11-30T10:02:00Z",
		Link:      "http://signoz:8080/traces-explorer?service=shop-api",
		Facts: contracts.Facts{
			MarkerQuery: true,
			DeploymentMarkers: []contracts.DeploymentMarker{{
				Service: "shop-api", Version: "v2", PreviousVersion: "v1", DeploymentID: "dep-42",
				At: markerTime, TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "00f067aa0ba902b7",
			}},
			RequestCount: ptr(int64(1200)), ErrorCount: ptr(int64(180)), ErrorRate: ptr(0.15),
			P95Ms: ptr(840.5), Onset: &onset, Numbers: []float64{1200, 180, 0.15, 840.5},
		},
		RecordedAt: goldenNow,
	}
	evidenceEnv := seal(envelope.RoleSandbox, contracts.SubjectEvidence, evidence, 0)
	claim := contracts.Claim{
		ID: "claim-1", Class: "retry_storm", Confidence: 0.82, EvidenceIDs: []string{"ev-01"},
		Statement: "v2 shortened the upstream timeout; retries exploded after 10:05",
	}
	dropped := contracts.Claim{ID: "claim-2", Class: "db_pool_exhaustion", Confidence: 0.4, Statement: "the pool is exhausted"}
	decision := contracts.DecisionV1{
		DecisionID: "dec-01", IncidentID: alert.IncidentID, InvestigationID: "inv-01", ReviewID: "rev-01",
		Service: "shop-api", Action: "rollback", Verdict: contracts.VerdictAllow,
		Checks: []contracts.CheckResult{
			{Name: contracts.CheckSLOBreach, Passed: true, Reason: "burn rate 14.4 >= 1.0", Inputs: map[string]string{"burn_rate": "14.4"}},
			{Name: contracts.CheckAllowlist, Passed: true, Reason: "rollback is allowlisted"},
			{Name: contracts.CheckCooldown, Passed: true, Reason: "no action on shop-api in the last 600 s"},
			{Name: contracts.CheckConfidence, Passed: true, Reason: "best reviewed claim 0.82 >= 0.70"},
			{Name: contracts.CheckDeploymentRelated, Passed: true, Reason: "marker v2 at 10:02, onset 10:05"},
			{Name: contracts.CheckSandboxScope, Passed: true, Reason: "shop-api is in the sandbox"},
		},
		FailedChecks: []string{}, Diagnosis: "retry_storm", Confidence: 0.82,
		RollbackTarget: "agentk-demo/shop-api:v1", CurrentImage: "agentk-demo/shop-api:v2", Alert: alertEnv, DecidedAt: goldenNow, ExpiresAt: goldenNow.Add(15 * time.Minute),
	}
	decisionEnv := seal(envelope.RoleGate, contracts.SubjectDecision, decision, 15*time.Minute)
	var decEnvelope envelope.Envelope
	if err := json.Unmarshal(decisionEnv, &decEnvelope); err != nil {
		panic(err)
	}
	var evEnvelope envelope.Envelope
	if err := json.Unmarshal(evidenceEnv, &evEnvelope); err != nil {
		panic(err)
	}
	evidenceRef := contracts.RefTo(evidence.ID, evEnvelope)
	deployed := goldenNow.Add(2 * time.Minute)
	return map[string]any{
		contracts.SubjectAlert: alert,
		contracts.SubjectToolCall: contracts.ToolCallV1{
			CallID: "call-01", InvestigationID: "inv-01", IncidentID: alert.IncidentID,
			Tool: contracts.ToolDeploymentMarkers, Arguments: json.RawMessage(`{"service":"shop-api"}`), Alert: alertEnv,
		},
		contracts.SubjectToolReply: contracts.ToolReplyV1{CallID: "call-01", OK: true, Evidence: evidenceEnv},
		contracts.SubjectEvidence:  evidence,
		contracts.SubjectReport: contracts.ReportV1{
			InvestigationID: "inv-01", IncidentID: alert.IncidentID, Service: "shop-api", Investigator: "llm",
			Model: "scripted-honest", Claims: []contracts.Claim{claim, dropped}, Completed: true,
			Iterations: 4, ToolCalls: 5, TokensIn: 9120, TokensOut: 640,
			StartedAt: goldenNow, FinishedAt: goldenNow.Add(40 * time.Second),
			Alert: alertEnv, Evidence: []json.RawMessage{}, EvidenceRefs: []contracts.EvidenceRef{evidenceRef},
		},
		contracts.SubjectReview: contracts.ReviewV1{
			ReviewID: "rev-01", InvestigationID: "inv-01", IncidentID: alert.IncidentID, Service: "shop-api",
			Investigator: "llm", Kept: []contracts.Claim{claim},
			Dropped:                []contracts.DroppedClaim{{Claim: dropped, Reasons: []string{"cites no evidence"}}},
			Best:                   &claim,
			InvestigationCompleted: true, TokensIn: 9120, TokensOut: 640, ToolCalls: 5,
			ReviewedAt: goldenNow.Add(41 * time.Second), Alert: alertEnv, Evidence: []json.RawMessage{}, EvidenceRefs: []contracts.EvidenceRef{evidenceRef},
		},
		contracts.SubjectDecision: decision,
		contracts.SubjectApproval: contracts.ApprovalV1{
			ApprovalID: "apr-01", DecisionID: "dec-01", DecisionDigest: decEnvelope.Digest(),
			IncidentID: alert.IncidentID, Service: "shop-api", Answer: contracts.AnswerApprove,
			Approver: "U024BE7LH (alice)", Channel: contracts.ChannelSlack,
			AnsweredAt: goldenNow.Add(time.Minute), ExpiresAt: goldenNow.Add(15 * time.Minute), Decision: decisionEnv,
		},
		contracts.SubjectAction: contracts.ActionV1{
			ActionID: "act-01", IncidentID: alert.IncidentID, DecisionID: "dec-01", ApprovalID: "apr-01",
			Service: "shop-api", Outcome: contracts.OutcomeRolledBack,
			FromImage: "agentk-demo/shop-api:v2", ToImage: "agentk-demo/shop-api:v1",
			Command:           []string{"docker", "compose", "-p", "shop", "up", "-d", "--force-recreate", "--no-deps", "shop-api"},
			ContainerVerified: true, Recovered: ptr(true), ActionMs: 3200, VerifyMs: 120000, TotalMs: 123200,
			StartedAt: goldenNow.Add(time.Minute), FinishedAt: deployed,
		},
		contracts.SubjectLedger: contracts.ReleaseLedgerV1{
			Project: "shop", Service: "shop-api", UpdatedAt: goldenNow,
			Releases: []contracts.Release{
				{Version: "v1", Image: "agentk-demo/shop-api:v1", ImageID: "sha256:1111111111111111111111111111111111111111111111111111111111111111", DeployedAt: time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)},
				{Version: "v2", Image: "agentk-demo/shop-api:v2", ImageID: "sha256:2222222222222222222222222222222222222222222222222222222222222222", DeployedAt: markerTime},
			},
		},
		contracts.SubjectCooldown: contracts.CooldownV1{Service: "shop-api", ActionID: "act-01", At: deployed},
		contracts.SubjectFreeze: contracts.FreezeV1{
			FreezeID: "freeze-01", Scope: "shop-api", Active: true, Reason: "black friday change freeze",
			By: "alice", Channel: contracts.ChannelCLI, At: goldenNow, ExpiresAt: goldenNow.Add(48 * time.Hour),
		},
		contracts.SubjectEnvelope: json.RawMessage(alertEnv),
		// A derived decision (DESIGN.md rule 17): the alert fired on
		// shop-api, the release that broke it is payment's.
		GoldenDerivedDecision: derivedDecision(decision),
	}
}

// GoldenDerivedDecision names the golden of a derived decision: the
// decision subject's schema, a second example.
const GoldenDerivedDecision = contracts.SubjectDecision + ".derived"

// derivedDecision is the golden derived decision that goes with the
// alerted service's decision alerted.
func derivedDecision(alerted contracts.DecisionV1) contracts.DecisionV1 {
	d := alerted
	d.DecisionID = contracts.DerivedDecisionID("dec-01", "payment")
	d.Service = "payment"
	d.Diagnosis = "bad_release"
	d.Confidence = 0.8
	d.RollbackTarget = "agentk-demo/payment:2.1.9"
	d.CurrentImage = "agentk-demo/payment:2.2.0"
	d.Checks = []contracts.CheckResult{
		{Name: contracts.CheckSLOBreach, Passed: true, Reason: "burn rate 14.4 ≥ 1 on shop-api; 71% ≥ 50% of its new failures begin in payment", Inputs: map[string]string{"burn_rate": "14.4", "origin_share": "0.71"}},
		{Name: contracts.CheckAllowlist, Passed: true, Reason: "action rollback is allowlisted"},
		{Name: contracts.CheckCooldown, Passed: true, Reason: "no action on payment in the last 10m0s"},
		{Name: contracts.CheckConfidence, Passed: true, Reason: "best reviewed claim about payment claim-3 has confidence 0.8 ≥ 0.7"},
		{Name: contracts.CheckDeploymentRelated, Passed: true, Reason: "deployment-class diagnosis, a marker of payment before its onset and a rollback target"},
		{Name: contracts.CheckSandboxScope, Passed: true, Reason: "service payment is a sandbox service"},
	}
	d.Origin = &contracts.DecisionOrigin{
		AlertedService: "shop-api", AlertedDecisionID: "dec-01", Signal: "errors",
		Share: 0.71, Failures: 142, Total: 200,
		Reason: "shop-api burns its budget; 71% of its new failures begin in payment, released 2.2.0 5m0s before; roll payment back to 2.1.9?",
	}
	return d
}
