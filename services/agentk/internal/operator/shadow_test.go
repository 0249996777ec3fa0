package operator

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentk/cmd/agentk/internal/chain"
	"agentk/cmd/agentk/internal/command"
	"agentk/cmd/agentk/internal/command/commandtest"
	"agentk/cmd/agentk/replay"
	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/contracts/incident"
	"agentk/platform/fabric"
	"agentk/platform/identity"
	"agentk/platform/topology"

	"github.com/stretchr/testify/require"
)

func TestShadowAgreement(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, verdict, human, want string
	}{
		{name: "allowed and approved", verdict: contracts.VerdictAllow, human: contracts.AnswerApprove, want: chain.Agree},
		{name: "allowed and denied", verdict: contracts.VerdictAllow, human: contracts.AnswerDeny, want: chain.AllowedDenied},
		{name: "allowed, nobody answered yet", verdict: contracts.VerdictAllow, human: chain.HumanNone, want: chain.AwaitingAnswer},
		{name: "denied, nobody approved", verdict: contracts.VerdictDeny, human: chain.HumanNone, want: chain.Agree},
		{name: "denied and denied", verdict: contracts.VerdictDeny, human: contracts.AnswerDeny, want: chain.Agree},
		{name: "denied yet approved", verdict: contracts.VerdictDeny, human: contracts.AnswerApprove, want: chain.DeniedApproved},
		{name: "an unknown verdict is a denial", verdict: "maybe", human: chain.HumanNone, want: chain.Agree},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, chain.Agreement(tc.verdict, tc.human))
		})
	}
}

// asRule rewrites the alert's rule id: each replay below is then a new
// incident of its own rule, not an alert attached to the one still open in
// the shared store.
func asRule(t *testing.T, inc *incident.Incident, rule string) {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(inc.AlertJSON, &v))
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "ruleId" {
					x[k] = rule
					continue
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	b, err := json.Marshal(v)
	require.NoError(t, err)
	inc.AlertJSON = b
}

// TestShadowReportOverShadowReplays replays three incidents with shop-api in
// shadow mode into one store: one the gate allows and the human approves,
// one it allows and the human denies, one it denies; then one more incident
// not in shadow mode. The report lists exactly the three shadow decisions,
// what each human answered, the command the deployer would have run, and the
// totals.
func TestShadowReportOverShadowReplays(t *testing.T) {
	if testing.Short() {
		t.Skip("replays four incidents")
	}
	data := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	shadow := map[string]string{"AGENTK_SHADOW": "shop-api"}
	runs := []struct {
		incident string
		env      map[string]string
		approve  bool
		verdict  string
		action   string
	}{
		{incident: "retry-storm-01", env: shadow, approve: true, verdict: contracts.VerdictAllow, action: contracts.OutcomeShadow},
		{incident: "bad-release-01", env: shadow, approve: false, verdict: contracts.VerdictAllow, action: contracts.OutcomeNone},
		{incident: "db-pool-exhaustion-01", env: shadow, verdict: contracts.VerdictDeny, action: contracts.OutcomeNone},
		{incident: "bad-release-02", env: nil, approve: true, verdict: contracts.VerdictAllow, action: contracts.OutcomeDryRun},
	}
	results := map[string]replay.Result{}
	for i, r := range runs {
		inc, err := incident.Load(filepath.Join(repoRoot, "e2e", "incidents", r.incident))
		require.NoError(t, err)
		asRule(t, inc, "shadow-"+r.incident)
		approve := r.approve
		res, err := replay.RunIncident(ctx, inc, replay.Options{DataDir: data, Env: r.env, Interactive: func(string) bool { return approve }})
		require.NoError(t, err, "run %d: %s", i, r.incident)
		require.Equal(t, r.verdict, res.Verdict, r.incident)
		require.Equal(t, r.action, res.Action, "%s: %s", r.incident, res.ActionReason)
		results[r.incident] = res
	}
	// Shadow mode changed nothing the gate checks: the shadow outcome carries
	// the command a dry run would report.
	require.NotEmpty(t, results["retry-storm-01"].Command)

	// Freezes in the store: one holding (bridge-signed), one expired, one
	// value nobody signed (the services count it as frozen).
	now := time.Now().UTC()
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: data, Port: 0})
	require.NoError(t, err)
	adm, err := f.Admin(ctx)
	require.NoError(t, err)
	kv, err := adm.KeyValue(ctx, topology.BucketFreezes)
	require.NoError(t, err)
	for _, fz := range []contracts.FreezeV1{
		{FreezeID: "frz-holds", Scope: "shop-api", Active: true, Reason: "black friday", By: "alice", At: now, ExpiresAt: now.Add(time.Hour)},
		{FreezeID: "frz-over", Scope: contracts.FreezeGlobal, Active: true, Reason: "maintenance", By: "bob", At: now.Add(-2 * time.Hour), ExpiresAt: now.Add(-time.Hour)},
	} {
		e, err := f.Signer(envelope.RoleBridge).SealJSON(contracts.SubjectFreeze, fz, fz.At, 0)
		require.NoError(t, err)
		_, err = kv.Put(ctx, fz.Scope, e.Marshal())
		require.NoError(t, err)
	}
	_, err = kv.Put(ctx, "cart-api", []byte(`{"not":"signed"}`))
	require.NoError(t, err)
	require.NoError(t, adm.Close())
	require.NoError(t, f.Close())

	env := map[string]string{"AGENTK_DATA_DIR": data, "AGENTK_NATS_PORT": "0"}
	c, out, errb := commandtest.New(env)
	require.Equal(t, 0, command.Run(ctx, c, []string{"shadow-report", "--json", "--since", "87600h"}), errb.String())
	var sum chain.Summary
	require.NoError(t, json.Unmarshal(out.Bytes(), &sum))
	require.Zero(t, sum.Unverified)
	require.Len(t, sum.Freezes, 2, "%+v", sum.Freezes)
	require.Equal(t, "cart-api", sum.Freezes[0].Scope)
	require.Contains(t, sum.Freezes[0].Problem, "counts as frozen")
	require.Equal(t, chain.Freeze{Scope: "shop-api", By: "alice", Reason: "black friday", At: now, ExpiresAt: now.Add(time.Hour), FreezeID: "frz-holds"}, sum.Freezes[1])
	require.Len(t, sum.Rows, 3, "only the shadow decisions: %+v", sum.Rows)
	byIncident := map[string]chain.Row{}
	for _, row := range sum.Rows {
		byIncident[row.IncidentID] = row
	}
	approved := byIncident[results["retry-storm-01"].IncidentID]
	require.Equal(t, contracts.VerdictAllow, approved.Verdict)
	require.Equal(t, contracts.AnswerApprove, approved.Human)
	require.Equal(t, contracts.OutcomeShadow, approved.Outcome)
	require.Equal(t, results["retry-storm-01"].Command, approved.Command, "the exact command the deployer recorded")
	require.NotEmpty(t, approved.ToImage)
	require.Equal(t, chain.Agree, approved.Agreement)

	denied := byIncident[results["bad-release-01"].IncidentID]
	require.Equal(t, contracts.VerdictAllow, denied.Verdict)
	require.Equal(t, contracts.AnswerDeny, denied.Human)
	require.Empty(t, denied.Command)
	require.Equal(t, chain.AllowedDenied, denied.Agreement)

	gateDenied := byIncident[results["db-pool-exhaustion-01"].IncidentID]
	require.Equal(t, contracts.VerdictDeny, gateDenied.Verdict)
	require.Equal(t, chain.HumanNone, gateDenied.Human)
	require.Contains(t, gateDenied.FailedChecks, contracts.CheckDeploymentRelated)
	require.Equal(t, chain.Agree, gateDenied.Agreement)

	require.Equal(t, chain.Totals{
		Decisions: 3, GateAllowed: 2, GateDenied: 1, HumanApproved: 1, HumanDenied: 1,
		Judged: 3, Agreed: 2, AgreedAllow: 1, AgreedDeny: 1, GateAllowedHumanDenied: 1,
		AgreementRate: 2.0 / 3.0, WouldHaveRun: 1,
	}, sum.Totals)

	t.Run("text", func(t *testing.T) {
		c, out, errb := commandtest.New(env)
		require.Equal(t, 0, command.Run(ctx, c, []string{"shadow-report", "--since", "87600h"}), errb.String())
		text := out.String()
		t.Log("\n" + text)
		require.Contains(t, text, "would have run: "+strings.Join(approved.Command, " "))
		require.Contains(t, text, "agreement: 2 of 3 judged (66.7%)")
		require.Contains(t, text, "gate allowed but human denied: 1; gate denied: 1")
		require.Contains(t, text, results["bad-release-01"].IncidentID)
		require.Contains(t, text, "shop-api by alice until "+now.Add(time.Hour).Format(time.RFC3339)+": black friday")
	})
	t.Run("since and service filters", func(t *testing.T) {
		c, out, errb := commandtest.New(env)
		require.Equal(t, 0, command.Run(ctx, c, []string{"shadow-report", "--json", "--since", "87600h", "--service", "cart-api"}), errb.String())
		var none chain.Summary
		require.NoError(t, json.Unmarshal(out.Bytes(), &none))
		require.Empty(t, none.Rows)
		// Every replayed decision is dated at its incident, in the past.
		c, out, errb = commandtest.New(env)
		require.Equal(t, 0, command.Run(ctx, c, []string{"shadow-report", "--since", "1s"}), errb.String())
		require.Contains(t, out.String(), "no shadow decisions")
	})
	t.Run("the shadow incident's chain audits clean", func(t *testing.T) {
		c, out, errb := commandtest.New(env)
		require.Equal(t, 0, command.Run(ctx, c, []string{"audit", results["retry-storm-01"].IncidentID}), errb.String()+out.String())
		require.Contains(t, out.String(), "[shadow]")
		require.Contains(t, out.String(), "shadow → ")
		require.Contains(t, out.String(), "chain verified")
	})
	t.Run("bad usage", func(t *testing.T) {
		c, _, _ := commandtest.New(env)
		require.Equal(t, 2, command.Run(ctx, c, []string{"shadow-report", "extra"}))
	})
}

// shadowMsg seals v for subject with role's key, as stored on the stream.
func shadowMsg(t *testing.T, ids *identity.Set, role, subject string, v any, now time.Time) chain.Msg {
	t.Helper()
	s, err := ids.Signer(role)
	require.NoError(t, err)
	e, err := s.SealJSON(subject, v, now, 15*time.Minute)
	require.NoError(t, err)
	return chain.Msg{Subject: subject, Data: e.Marshal()}
}

// The core over hand-made streams: a decision forged with the wrong key, an
// approval bound to another digest and a non-shadow decision never count;
// an allowed decision nobody answered is awaiting, not judged.
func TestShadowReportCountsOnlyVerifiedLinks(t *testing.T) {
	t.Parallel()
	ids, err := identity.Ensure(t.TempDir())
	require.NoError(t, err)
	kr, err := ids.Keyring()
	require.NoError(t, err)
	now := time.Date(2026, 11, 4, 10, 20, 0, 0, time.UTC)
	dec := func(id, verdict string, shadow bool) contracts.DecisionV1 {
		return contracts.DecisionV1{DecisionID: id, IncidentID: "inc-" + id, Service: "shop-api", Action: "rollback",
			Verdict: verdict, FailedChecks: []string{}, Shadow: shadow, DecidedAt: now, ExpiresAt: now.Add(15 * time.Minute)}
	}
	forged := shadowMsg(t, ids, envelope.RoleInvestigator, contracts.SubjectDecision, dec("forged", contracts.VerdictAllow, true), now)
	waiting := shadowMsg(t, ids, envelope.RoleGate, contracts.SubjectDecision, dec("waiting", contracts.VerdictAllow, true), now)
	rebound := shadowMsg(t, ids, envelope.RoleGate, contracts.SubjectDecision, dec("rebound", contracts.VerdictAllow, true), now)
	live := shadowMsg(t, ids, envelope.RoleGate, contracts.SubjectDecision, dec("live", contracts.VerdictAllow, false), now)
	old := dec("old", contracts.VerdictDeny, true)
	old.DecidedAt = now.Add(-48 * time.Hour)
	msgs := []chain.Msg{forged, waiting, rebound, live, shadowMsg(t, ids, envelope.RoleGate, contracts.SubjectDecision, old, old.DecidedAt)}
	// An approval of "rebound" bound to the digest of "waiting".
	msgs = append(msgs, shadowMsg(t, ids, envelope.RoleBridge, contracts.SubjectApproval, contracts.ApprovalV1{
		ApprovalID: "appr-rebound", DecisionID: "rebound", DecisionDigest: mustEnv(t, waiting.Data).Digest(), Answer: contracts.AnswerApprove,
		Approver: "mallory", AnsweredAt: now, ExpiresAt: now.Add(10 * time.Minute)}, now))

	// A shadow decision approved and then acted on: a defect the report shouts about.
	acted := shadowMsg(t, ids, envelope.RoleGate, contracts.SubjectDecision, dec("acted", contracts.VerdictAllow, true), now)
	msgs = append(msgs, acted,
		shadowMsg(t, ids, envelope.RoleBridge, contracts.SubjectApproval, contracts.ApprovalV1{
			ApprovalID: "appr-acted", DecisionID: "acted", DecisionDigest: mustEnv(t, acted.Data).Digest(), Answer: contracts.AnswerApprove,
			Approver: "alice", AnsweredAt: now, ExpiresAt: now.Add(10 * time.Minute)}, now),
		shadowMsg(t, ids, envelope.RoleDeployer, contracts.SubjectAction, contracts.ActionV1{
			ActionID: "act-acted", DecisionID: "acted", ApprovalID: "appr-acted", Service: "shop-api", Outcome: contracts.OutcomeRolledBack}, now))

	sum := chain.Shadow(kr, msgs, now.Add(-24*time.Hour), "")
	require.Equal(t, 1, sum.Unverified, "the forged decision")
	var got []string
	for _, r := range sum.Rows {
		got = append(got, r.DecisionID+":"+r.Human+":"+r.Agreement)
	}
	require.ElementsMatch(t, []string{"waiting:none:" + chain.AwaitingAnswer, "rebound:none:" + chain.AwaitingAnswer, "acted:approve:" + chain.Agree}, got)
	require.Equal(t, 1, sum.Totals.Judged)
	require.Equal(t, 1.0, sum.Totals.AgreementRate)
	require.Equal(t, 1, sum.Totals.Acted)
	var b bytes.Buffer
	require.NoError(t, printShadow(&b, sum))
	require.Contains(t, b.String(), "1 stored messages did not verify")
	require.Contains(t, b.String(), "WARNING: it acted on 1 shadow decisions")

	// Nothing judged: no rate, and the report says so.
	sum = chain.Shadow(kr, msgs[:5], now.Add(-24*time.Hour), "")
	require.Zero(t, sum.Totals.Judged)
	require.Zero(t, sum.Totals.AgreementRate)
	b.Reset()
	require.NoError(t, printShadow(&b, sum))
	require.Contains(t, b.String(), "agreement: nothing judged yet")
}

func mustEnv(t *testing.T, b []byte) envelope.Envelope {
	t.Helper()
	e, err := envelope.Parse(b)
	require.NoError(t, err)
	return e
}
