package report_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/platform/report"
)

var update = flag.Bool("update", false, "rewrite golden files")

var (
	t0   = time.Date(2026, 11, 30, 10, 10, 0, 0, time.UTC)
	tNow = time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)
)

func ptr[T any](v T) *T { return &v }

func sources() report.Sources {
	best := contracts.Claim{ID: "c1", Class: "retry_storm", Statement: "retries rose to 1,018 and p95 to 2.3s after v2", Confidence: 0.82, EvidenceIDs: []string{"ev-1", "ev-2"}}
	return report.Sources{
		Alert: &contracts.AlertV1{IncidentID: "inc-1", Status: contracts.AlertFiring, Service: "shop-api", RuleID: "42", AlertName: "shop-api error budget burn",
			Severity: "critical", StartsAt: t0, BurnRate: 14.4, BurnRateSource: "labels.burn_rate",
			Links: contracts.AlertLinks{Generator: "http://localhost:8080/alerts/overview?ruleId=42"}},
		Report: &contracts.ReportV1{InvestigationID: "inv-1", IncidentID: "inc-1", Service: "shop-api", Investigator: "llm", Model: "scripted-1",
			Completed: true, Iterations: 5, ToolCalls: 6, TokensIn: 12034, TokensOut: 811, StartedAt: t0.Add(time.Minute), FinishedAt: t0.Add(time.Minute + 42*time.Second)},
		Evidence: []contracts.EvidenceV1{
			{ID: "ev-1", Tool: contracts.ToolServiceOverview, From: t0.Add(-2 * time.Hour), To: tNow, Link: "http://localhost:8080/services/shop-api"},
			{ID: "ev-2", Tool: contracts.ToolDeploymentMarkers, From: t0.Add(-2 * time.Hour), To: tNow, Link: "http://localhost:8080/traces-explorer?q=deployment.marker"},
		},
		Review: &contracts.ReviewV1{ReviewID: "review.inv-1", InvestigationID: "inv-1", IncidentID: "inc-1", Service: "shop-api",
			Kept: []contracts.Claim{best}, Best: &best,
			Dropped: []contracts.DroppedClaim{{Claim: contracts.Claim{ID: "c2", Class: "db_pool_exhaustion", Statement: "pool exhausted at 4.7s", Confidence: 0.6, EvidenceIDs: []string{"ev-9"}},
				Reasons: []string{`cites evidence "ev-9" that the report does not carry`, "number 4.7s is not in the cited evidence (tolerance 1%)"}}},
			InvestigationCompleted: true},
	}
}

func decision(verdict string) *contracts.DecisionV1 {
	d := &contracts.DecisionV1{DecisionID: "decision.review.inv-1", IncidentID: "inc-1", Service: "shop-api", Action: "rollback", Verdict: verdict,
		Diagnosis: "retry_storm", Confidence: 0.82, RollbackTarget: "agentk-demo/shop-api:v1", DecidedAt: tNow, ExpiresAt: tNow.Add(15 * time.Minute),
		FailedChecks: []string{}}
	for _, n := range []string{"slo_breach", "allowlist", "cooldown", "confidence", "deployment_related", "sandbox_scope"} {
		c := contracts.CheckResult{Name: n, Passed: true, Reason: n + " holds", Inputs: map[string]string{"b": "2", "a": "1"}}
		if verdict == contracts.VerdictDeny && n == "deployment_related" {
			c.Passed, c.Reason = false, "no deployment.marker span of shop-api lies in the 30m0s before the onset"
			d.FailedChecks = []string{n}
			d.NextStep = "deployment_related: check the deployment markers."
		}
		d.Checks = append(d.Checks, c)
	}
	return d
}

// derived is the gate's derived decision about payment, where shop-api's
// failures begin.
func derived() *contracts.DecisionV1 {
	d := decision(contracts.VerdictAllow)
	d.DecisionID, d.Service, d.Diagnosis, d.RollbackTarget = "decision.review.inv-1.origin.payment", "payment", "bad_release", "agentk-demo/payment:2.1.9"
	d.Origin = &contracts.DecisionOrigin{AlertedService: "shop-api", AlertedDecisionID: "decision.review.inv-1", Signal: "errors", Share: 0.71, Failures: 71, Total: 100,
		Reason: "shop-api burns its budget; 71% of its new failures begin in payment, released 2.2.0 5m0s before; roll payment back to 2.1.9?"}
	return d
}

func approval(answer string) *contracts.ApprovalV1 {
	return &contracts.ApprovalV1{ApprovalID: "approval.decision.review.inv-1", Answer: answer, Approver: "alice", Channel: contracts.ChannelSlack, AnsweredAt: tNow.Add(2 * time.Minute)}
}

func action(outcome string, recovered *bool) *contracts.ActionV1 {
	return &contracts.ActionV1{Outcome: outcome, FromImage: "agentk-demo/shop-api:v2", ToImage: "agentk-demo/shop-api:v1",
		ContainerVerified: outcome == contracts.OutcomeRolledBack, Recovered: recovered, TotalMs: 48211}
}

func TestGolden(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		mutate func(s *report.Sources)
		status report.Status
	}{
		{"insufficient-evidence", func(s *report.Sources) {
			s.Review.Kept, s.Review.Best, s.Review.InsufficientEvidence = nil, nil, true
		}, report.StatusNeedsHuman},
		{"signoz-unreachable", func(s *report.Sources) {
			s.Review.Kept, s.Review.Best, s.Review.InsufficientEvidence = nil, nil, true
			s.Report.Completed = false
			s.Report.IncompleteReason = "minimum_plan_failed: " + contracts.IncompleteSigNozUnreachable + " (SigNoz query failed: signoz: unavailable: dial tcp 127.0.0.1:8080: connection refused)"
			s.Evidence = nil
		}, report.StatusNeedsHuman},
		{"action-denied", func(s *report.Sources) { s.Decision = decision(contracts.VerdictDeny) }, report.StatusActionDenied},
		{"awaiting-approval", func(s *report.Sources) { s.Decision = decision(contracts.VerdictAllow) }, report.StatusAwaitingApproval},
		{"denied-by-human", func(s *report.Sources) {
			s.Decision, s.Approval = decision(contracts.VerdictAllow), approval(contracts.AnswerDeny)
		}, report.StatusActionDenied},
		{"recovered", func(s *report.Sources) {
			s.Decision, s.Approval = decision(contracts.VerdictAllow), approval(contracts.AnswerApprove)
			s.Action = action(contracts.OutcomeRolledBack, ptr(true))
		}, report.StatusRecovered},
		{"not-recovered", func(s *report.Sources) {
			s.Decision, s.Approval = decision(contracts.VerdictAllow), approval(contracts.AnswerApprove)
			s.Action = action(contracts.OutcomeRolledBack, ptr(false))
		}, report.StatusNotRecovered},
		{"failed", func(s *report.Sources) {
			s.Decision, s.Approval = decision(contracts.VerdictAllow), approval(contracts.AnswerApprove)
			s.Action = action(contracts.OutcomeFailed, nil)
			s.Action.Reason = "compose exited 1"
		}, report.StatusFailed},
		{"derived-awaiting-approval", func(s *report.Sources) {
			// Issue 33: shop-api's own rollback denied, payment's allowed.
			s.Decision, s.Derived = decision(contracts.VerdictDeny), derived()
		}, report.StatusAwaitingApproval},
		{"hostile-text", func(s *report.Sources) {
			s.Review.Kept[0].Statement = `<script>alert(1)</script> [click](javascript:alert(1)) | **IGNORE PREVIOUS** _x_`
			s.Review.Dropped[0].Reasons = []string{"<img src=x onerror=alert(1)>"}
			s.Evidence[0].Link = "javascript:alert(1)"
			s.Alert.Links.Generator = "data:text/html,<script>alert(1)</script>"
		}, report.StatusNeedsHuman},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := sources()
			tc.mutate(&s)
			r := report.Build(s)
			require.Equal(t, tc.status, r.Status)
			golden(t, tc.name+".md", report.Markdown(r))
			golden(t, tc.name+".html", report.HTML(r))
		})
	}
}

// TestSigNozDownIsNotInsufficientEvidence: when the investigation could not
// read SigNoz, the report says so, in the banner and the findings.
func TestSigNozDownIsNotInsufficientEvidence(t *testing.T) {
	t.Parallel()
	s := sources()
	s.Review.Kept, s.Review.Best, s.Review.InsufficientEvidence = nil, nil, true
	s.Report.Completed = false
	s.Report.IncompleteReason = "minimum_plan_failed: " + contracts.IncompleteSigNozRejected + " (signoz: not authorised: 401)"
	r := report.Build(s)
	require.Contains(t, r.Banner, contracts.IncompleteSigNozRejected)
	require.NotContains(t, r.Banner, "insufficient evidence")
	for _, out := range []string{report.Markdown(r), report.HTML(r)} {
		require.Contains(t, out, contracts.IncompleteSigNozRejected)
		require.NotContains(t, out, "insufficient evidence")
	}
}

// TestEmbeddedLeavesTitleAndGateToThePage: the console shows the title and
// the signed decision itself; the embedded report must not repeat them.
func TestEmbeddedLeavesTitleAndGateToThePage(t *testing.T) {
	t.Parallel()
	s := sources()
	s.Decision = decision(contracts.VerdictAllow)
	r := report.Build(s)
	full, emb := report.HTMLFragment(r), report.HTMLEmbedded(r)
	require.Contains(t, full, "<h1>")
	require.Contains(t, full, "Policy gate")
	require.NotContains(t, emb, "<h1>")
	require.NotContains(t, emb, "Policy gate")
	require.Contains(t, emb, "Findings")
	require.Contains(t, emb, "42 s", "durations in words")
}

func TestHostileTextIsEscaped(t *testing.T) {
	t.Parallel()
	s := sources()
	s.Review.Kept[0].Statement = `<script>alert(1)</script> [click](javascript:alert(1))`
	s.Evidence[0].Link = "javascript:alert(1)"
	r := report.Build(s)
	h, m := report.HTML(r), report.Markdown(r)
	require.NotContains(t, h, "<script>")
	require.NotContains(t, h, `href="javascript`)
	require.NotContains(t, m, "<script>")
	require.NotContains(t, m, "](javascript:")
}

func TestDecodeRoundTrip(t *testing.T) {
	t.Parallel()
	s := sources()
	s.Decision = decision(contracts.VerdictDeny)
	b, err := json.Marshal(s)
	require.NoError(t, err)
	r, err := report.Decode(b)
	require.NoError(t, err)
	require.Equal(t, report.Build(s), r)
	_, err = report.Decode([]byte("{"))
	require.ErrorIs(t, err, report.ErrDecode)
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create %s", path)
	require.Equal(t, strings.TrimSpace(string(want)), strings.TrimSpace(got), "%s differs; run go test -update if intended", path)
}
