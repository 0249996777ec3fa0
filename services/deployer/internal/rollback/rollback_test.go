package rollback_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/services/deployer/internal/kvstore"
	"agentk/services/deployer/internal/policy"
	"agentk/services/deployer/internal/rollback"
	"agentk/services/deployer/internal/testkit"

	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)

// fakeRuntime records what it was asked to do.
type fakeRuntime struct {
	applies atomic.Int32
	panics  bool
	exit    int
	verify  rollback.Verification
	gate    chan struct{} // when non-nil, Apply waits on it
}

func (f *fakeRuntime) Apply(ctx context.Context, p policy.Plan) (rollback.Applied, error) {
	f.applies.Add(1)
	if f.gate != nil {
		<-f.gate
	}
	if f.panics {
		panic("crash mid-action")
	}
	return rollback.Applied{Command: []string{"compose", "up", p.Service, p.To.Image}, ExitCode: f.exit}, nil
}

func (f *fakeRuntime) CommandFor(service string) []string {
	return []string{"compose", "up", "-d", "--force-recreate", "--no-deps", service}
}

func (f *fakeRuntime) Verify(ctx context.Context, p policy.Plan) (rollback.Verification, error) {
	return f.verify, nil
}

type fakeRecovery struct{ ok bool }

func (f fakeRecovery) Recovered(context.Context, rollback.RecoveryQuery) (bool, string, error) {
	return f.ok, "error rate 0.1% < SLO", nil
}

type fakeMarker struct {
	mu    sync.Mutex
	marks []rollback.Mark
}

func (f *fakeMarker) Mark(_ context.Context, m rollback.Mark) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.marks = append(f.marks, m)
}

type env struct {
	keys    testkit.Keys
	buckets testkit.Buckets
	rt      *fakeRuntime
	marker  *fakeMarker
	now     time.Time
}

func newEnv(t *testing.T) *env {
	t.Helper()
	js := testkit.StartJetStream(t)
	e := &env{keys: testkit.NewKeys(t), buckets: testkit.CreateBuckets(t, js.JS), now: t0,
		rt:     &fakeRuntime{verify: rollback.Verification{Verified: true, ImageID: "sha256:v1"}},
		marker: &fakeMarker{}}
	return e
}

func (e *env) deployer() *rollback.Deployer {
	return &rollback.Deployer{
		Keyring: e.keys.Keyring, Signer: e.keys.Deployer, Now: func() time.Time { return e.now },
		Rules:  policy.Rules{Allowlist: []string{"shop-api"}, Project: "shop", Cooldown: 10 * time.Minute},
		Nonces: e.buckets.Nonces, Cooldown: e.buckets.Cooldown, Releases: e.buckets.Releases, Freezes: e.buckets.Freezes, Spent: e.buckets.Spent, Incidents: e.buckets.Incidents,
		Runtime: e.rt, Recovery: fakeRecovery{ok: true}, Marker: e.marker,
		Stabilise: time.Minute, ApplyTimeout: time.Minute,
		Sleep: func(context.Context, time.Duration) error { return nil },
	}
}

func (e *env) seedLedger(t *testing.T) { t.Helper(); e.seedLedgerOf(t, "shop-api") }

// seedLedgerOf seeds service's ledger: v1 (testkit.ToImage) then v2
// (testkit.FromImage), deployed before t0.
func (e *env) seedLedgerOf(t *testing.T, service string) {
	t.Helper()
	l := contracts.ReleaseLedgerV1{Project: "shop", Service: service, Releases: []contracts.Release{
		{Version: "v1", Image: "agentk-demo/shop-api:v1", ImageID: "sha256:v1", DeployedAt: t0.Add(-2 * time.Hour)},
		{Version: "v2", Image: "agentk-demo/shop-api:v2", ImageID: "sha256:v2", DeployedAt: t0.Add(-18 * time.Minute)},
	}}
	require.NoError(t, e.deployer().PutLedger(context.Background(), l, 0))
}

func TestRollbackHappyPath(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedLedger(t)
	d := e.deployer()
	res, err := d.Handle(context.Background(), testkit.Signed(t, e.keys, "dec-1", "shop-api", t0), 1)
	require.NoError(t, err)
	a := res.Action
	require.Equal(t, contracts.OutcomeRolledBack, a.Outcome, a.Reason)
	require.Equal(t, "agentk-demo/shop-api:v2", a.FromImage)
	require.Equal(t, "agentk-demo/shop-api:v1", a.ToImage, "target comes from the ledger, not the decision")
	require.True(t, a.ContainerVerified)
	require.NotNil(t, a.Recovered)
	require.True(t, *a.Recovered)
	require.Equal(t, "action.appr-dec-1", res.MsgID)
	require.EqualValues(t, 1, e.rt.applies.Load())

	var back contracts.ActionV1
	_, err = e.keys.Keyring.Open(res.Envelope.Marshal(), contracts.SubjectAction, t0, &back)
	require.NoError(t, err, "the action is deployer-signed")

	require.Len(t, e.marker.marks, 1)
	require.Equal(t, "v1", e.marker.marks[0].Version)
	require.Equal(t, "v2", e.marker.marks[0].PreviousVersion)

	st := e.readLedger(t)
	require.Len(t, st.Releases, 1, "the ledger is cut back to the target: v2 is never a target again")
	require.Equal(t, "sha256:v1", st.Releases[0].ImageID)

	var c contracts.CooldownV1
	ce, err := e.buckets.Cooldown.Get(context.Background(), "shop-api")
	require.NoError(t, err)
	_, err = e.keys.Keyring.Open(ce.Value, contracts.SubjectCooldown, t0, &c)
	require.NoError(t, err)
	require.Equal(t, "action.appr-dec-1", c.ActionID)
}

func (e *env) readLedger(t *testing.T) contracts.ReleaseLedgerV1 {
	t.Helper()
	le, err := e.buckets.Releases.Get(context.Background(), "shop-api")
	require.NoError(t, err)
	var l contracts.ReleaseLedgerV1
	_, err = e.keys.Keyring.Open(le.Value, contracts.SubjectLedger, t0, &l)
	require.NoError(t, err)
	return l
}

func TestRefusals(t *testing.T) {
	t.Parallel()
	type tc struct {
		name   string
		setup  func(t *testing.T, e *env)
		msg    func(t *testing.T, e *env) []byte
		reason string
	}
	k := func(e *env) testkit.Keys { return e.keys }
	decWith := func(mut func(*contracts.DecisionV1)) func(t *testing.T, e *env) []byte {
		return func(t *testing.T, e *env) []byte {
			d := testkit.Decision("dec-1", "shop-api", t0)
			mut(&d)
			denv := testkit.SealDecision(t, k(e).Gate, d, t0)
			return testkit.SealApproval(t, k(e).Bridge, testkit.Approval(t, denv, t0), t0)
		}
	}
	apprWith := func(mut func(*contracts.ApprovalV1)) func(t *testing.T, e *env) []byte {
		return func(t *testing.T, e *env) []byte {
			denv := testkit.SealDecision(t, k(e).Gate, testkit.Decision("dec-1", "shop-api", t0), t0)
			a := testkit.Approval(t, denv, t0)
			mut(&a)
			return testkit.SealApproval(t, k(e).Bridge, a, t0)
		}
	}
	cases := []tc{
		{name: "decision signed by the bridge's key", reason: policy.ReasonDecisionSignature,
			msg: func(t *testing.T, e *env) []byte {
				denv := testkit.SealDecision(t, e.keys.Bridge, testkit.Decision("dec-1", "shop-api", t0), t0)
				return testkit.SealApproval(t, e.keys.Bridge, testkit.Approval(t, denv, t0), t0)
			}},
		{name: "decision signed by the reviewer's key", reason: policy.ReasonDecisionSignature,
			msg: func(t *testing.T, e *env) []byte {
				denv := testkit.SealDecision(t, e.keys.Reviewer, testkit.Decision("dec-1", "shop-api", t0), t0)
				return testkit.SealApproval(t, e.keys.Bridge, testkit.Approval(t, denv, t0), t0)
			}},
		{name: "approval signed by the gate's key", reason: policy.ReasonApprovalSignature,
			msg: func(t *testing.T, e *env) []byte {
				denv := testkit.SealDecision(t, e.keys.Gate, testkit.Decision("dec-1", "shop-api", t0), t0)
				return testkit.SealApproval(t, e.keys.Gate, testkit.Approval(t, denv, t0), t0)
			}},
		{name: "approval payload tampered after signing", reason: policy.ReasonApprovalSignature,
			msg: func(t *testing.T, e *env) []byte {
				raw := testkit.Signed(t, e.keys, "dec-1", "shop-api", t0)
				ae, err := envelope.Parse(raw)
				require.NoError(t, err)
				var a contracts.ApprovalV1
				require.NoError(t, json.Unmarshal(ae.Payload, &a))
				a.Approver = "attacker"
				ae.Payload, err = json.Marshal(a)
				require.NoError(t, err)
				return ae.Marshal()
			}},
		{name: "decision payload tampered after signing", reason: policy.ReasonDecisionSignature,
			msg: func(t *testing.T, e *env) []byte {
				d := testkit.Decision("dec-1", "shop-api", t0)
				d.Verdict, d.FailedChecks = contracts.VerdictDeny, []string{contracts.CheckSLOBreach}
				denv := testkit.SealDecision(t, e.keys.Gate, d, t0)
				d.Verdict, d.FailedChecks = contracts.VerdictAllow, []string{}
				var err error
				denv.Payload, err = json.Marshal(d)
				require.NoError(t, err)
				return testkit.SealApproval(t, e.keys.Bridge, testkit.Approval(t, denv, t0), t0)
			}},
		{name: "not an envelope", reason: policy.ReasonApprovalSignature,
			msg: func(*testing.T, *env) []byte { return []byte(`{"image":"evil:latest"}`) }},
		{name: "approval for another decision's digest", reason: policy.ReasonDigestMismatch,
			msg: func(t *testing.T, e *env) []byte {
				other := testkit.SealDecision(t, e.keys.Gate, testkit.Decision("dec-other", "shop-api", t0), t0)
				denv := testkit.SealDecision(t, e.keys.Gate, testkit.Decision("dec-1", "shop-api", t0), t0)
				a := testkit.Approval(t, denv, t0)
				a.DecisionDigest = other.Digest()
				return testkit.SealApproval(t, e.keys.Bridge, a, t0)
			}},
		{name: "approval naming another decision id", reason: policy.ReasonDecisionMismatch,
			msg: apprWith(func(a *contracts.ApprovalV1) { a.DecisionID = "dec-other" })},
		{name: "approval naming another service", reason: policy.ReasonDecisionMismatch,
			msg: apprWith(func(a *contracts.ApprovalV1) { a.Service = "payments" })},
		{name: "approval expired", reason: policy.ReasonApprovalExpired,
			msg: apprWith(func(a *contracts.ApprovalV1) { a.ExpiresAt = t0.Add(-time.Second) })},
		{name: "approval envelope expired", reason: policy.ReasonApprovalExpired,
			msg: func(t *testing.T, e *env) []byte {
				denv := testkit.SealDecision(t, e.keys.Gate, testkit.Decision("dec-1", "shop-api", t0), t0)
				return testkit.SealApproval(t, e.keys.Bridge, testkit.Approval(t, denv, t0), t0.Add(-11*time.Minute))
			}},
		{name: "decision expired", reason: policy.ReasonDecisionExpired,
			msg: decWith(func(d *contracts.DecisionV1) { d.ExpiresAt = t0.Add(-time.Minute) })},
		{name: "decision denies", reason: policy.ReasonDecisionDenied,
			msg: decWith(func(d *contracts.DecisionV1) {
				d.Verdict, d.FailedChecks = contracts.VerdictDeny, []string{contracts.CheckDeploymentRelated}
			})},
		{name: "service frozen", reason: policy.ReasonFrozen,
			setup: func(t *testing.T, e *env) {
				e.putFreeze(t, e.keys.Bridge, freezeOn("shop-api", true, t0.Add(time.Hour)))
			},
			msg: func(t *testing.T, e *env) []byte { return testkit.Signed(t, e.keys, "dec-1", "shop-api", t0) }},
		{name: "every service frozen", reason: policy.ReasonFrozen,
			setup: func(t *testing.T, e *env) {
				e.putFreeze(t, e.keys.Bridge, freezeOn(contracts.FreezeGlobal, true, t0.Add(time.Hour)))
			},
			msg: func(t *testing.T, e *env) []byte { return testkit.Signed(t, e.keys, "dec-1", "shop-api", t0) }},
		{name: "freeze value not signed by the bridge", reason: policy.ReasonFrozen,
			setup: func(t *testing.T, e *env) {
				e.putFreeze(t, e.keys.Gate, freezeOn("shop-api", false, t0.Add(time.Hour)))
			},
			msg: func(t *testing.T, e *env) []byte { return testkit.Signed(t, e.keys, "dec-1", "shop-api", t0) }},
		{name: "action other than rollback", reason: policy.ReasonActionNotAllowed,
			msg: decWith(func(d *contracts.DecisionV1) { d.Action = "restart" })},
		{name: "service outside the deployer's allowlist", reason: policy.ReasonNotAllowlisted,
			// payments has a ledger with a target: only the allowlist stands
			// between the approval and a rollback.
			setup: func(t *testing.T, e *env) { e.seedLedgerOf(t, "payments") },
			msg:   func(t *testing.T, e *env) []byte { return testkit.Signed(t, e.keys, "dec-1", "payments", t0) }},
		{name: "unknown answer", reason: policy.ReasonUnknownAnswer,
			msg: apprWith(func(a *contracts.ApprovalV1) { a.Answer = "yes please" })},
		{name: "cooldown active", reason: policy.ReasonCooldownActive,
			setup: func(t *testing.T, e *env) {
				require.NoError(t, e.deployer().PutCooldown(context.Background(), contracts.CooldownV1{Service: "shop-api", ActionID: "action.prior", At: t0.Add(-5 * time.Minute)}))
			},
			msg: func(t *testing.T, e *env) []byte { return testkit.Signed(t, e.keys, "dec-1", "shop-api", t0) }},
		{name: "cooldown entry not signed by the deployer", reason: policy.ReasonCooldownUnread,
			setup: func(t *testing.T, e *env) {
				env, err := e.keys.Bridge.SealJSON(contracts.SubjectApproval, contracts.CooldownV1{Service: "shop-api", At: t0.Add(-time.Hour)}, t0, 0)
				require.NoError(t, err)
				_, err = e.buckets.Cooldown.Put(context.Background(), "shop-api", env.Marshal(), 0)
				require.NoError(t, err)
			},
			msg: func(t *testing.T, e *env) []byte { return testkit.Signed(t, e.keys, "dec-1", "shop-api", t0) }},
		{name: "no release ledger", reason: policy.ReasonNoTarget,
			setup: func(t *testing.T, e *env) {
				_, err := e.buckets.Releases.Get(context.Background(), "shop-api")
				require.ErrorIs(t, err, kvstore.ErrNotFound)
			},
			msg: func(t *testing.T, e *env) []byte { return testkit.Signed(t, e.keys, "dec-1", "shop-api", t0) }},
		{name: "decision approved another target", reason: policy.ReasonTargetMismatch,
			msg: decWith(func(d *contracts.DecisionV1) { d.RollbackTarget = "agentk-demo/shop-api:v0" })},
		{name: "decision approved a move from another release", reason: policy.ReasonTargetMismatch,
			msg: decWith(func(d *contracts.DecisionV1) { d.CurrentImage = "agentk-demo/shop-api:v3" })},
		{name: "decision names no move", reason: policy.ReasonTargetMismatch,
			msg: decWith(func(d *contracts.DecisionV1) { d.CurrentImage, d.RollbackTarget = "", "" })},
		{name: "the running release was deployed after the decision", reason: policy.ReasonLedgerMoved,
			msg: decWith(func(d *contracts.DecisionV1) { d.DecidedAt = t0.Add(-30 * time.Minute) })},
		{name: "decision already consumed by another approval", reason: policy.ReasonDecisionSpent,
			setup: func(t *testing.T, e *env) {
				_, err := e.buckets.Spent.Put(context.Background(), "dec-1", []byte(`{"decision_id":"dec-1","approval_id":"appr-other","nonce":"n-other"}`), 0)
				require.NoError(t, err)
			},
			msg: func(t *testing.T, e *env) []byte { return testkit.Signed(t, e.keys, "dec-1", "shop-api", t0) }},
		{name: "alert resolved, not re-confirmed", reason: policy.ReasonAlertResolved,
			setup: func(t *testing.T, e *env) { e.resolve(t, "inc-dec-1", t0.Add(-time.Minute)) },
			msg:   func(t *testing.T, e *env) []byte { return testkit.Signed(t, e.keys, "dec-1", "shop-api", t0) }},
		{name: "alert resolved after the human's re-confirmation", reason: policy.ReasonAlertResolved,
			setup: func(t *testing.T, e *env) { e.resolve(t, "inc-dec-1", t0.Add(-time.Minute)) },
			msg:   apprWith(func(a *contracts.ApprovalV1) { a.ResolvedConfirmedAt = t0.Add(-2 * time.Minute) })},
		{name: "incident record unreadable", reason: policy.ReasonIncidentUnread,
			setup: func(t *testing.T, e *env) {
				_, err := e.buckets.Incidents.Put(context.Background(), "inc-dec-1", []byte(`{not json`), 0)
				require.NoError(t, err)
			},
			msg: func(t *testing.T, e *env) []byte { return testkit.Signed(t, e.keys, "dec-1", "shop-api", t0) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			if c.name != "no release ledger" {
				e.seedLedger(t)
			}
			if c.setup != nil {
				c.setup(t, e)
			}
			res, err := e.deployer().Handle(context.Background(), c.msg(t, e), 1)
			require.NoError(t, err)
			require.NotNil(t, res.Refusal)
			require.Equal(t, c.reason, res.Refusal.Reason, res.Refusal.Detail)
			if c.reason == policy.ReasonApprovalSignature || c.reason == policy.ReasonDecisionSignature {
				// A message that failed verification answers nothing: no
				// action, under any claimed id.
				require.NotNil(t, res.Unverified)
				require.True(t, res.Unverified.Forged)
				require.Zero(t, res.Action)
				require.Empty(t, res.Envelope.Payload)
				require.Empty(t, res.MsgID)
			} else {
				require.Nil(t, res.Unverified)
				require.Equal(t, contracts.OutcomeRefused, res.Action.Outcome)
				require.Contains(t, res.Action.Reason, c.reason)
			}
			require.Zero(t, e.rt.applies.Load(), "nothing mutated")
			require.Empty(t, e.marker.marks)
		})
	}
}

// resolve writes the ingester's record of incident id, resolved at at.
func (e *env) resolve(t *testing.T, id string, at time.Time) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"incident_id": id, "service": "shop-api", "state": "resolved", "opened_at": t0.Add(-time.Hour), "resolved_at": at})
	require.NoError(t, err)
	_, err = e.buckets.Incidents.Put(context.Background(), id, b, 0)
	require.NoError(t, err)
}

func freezeOn(scope string, active bool, until time.Time) contracts.FreezeV1 {
	return contracts.FreezeV1{FreezeID: "fz-" + scope, Scope: scope, Active: active, Reason: "change freeze",
		By: "alice", Channel: contracts.ChannelCLI, At: t0.Add(-time.Hour), ExpiresAt: until}
}

func (e *env) putFreeze(t *testing.T, signer *envelope.Signer, f contracts.FreezeV1) {
	t.Helper()
	env, err := signer.SealJSON(contracts.SubjectFreeze, f, t0.Add(-time.Hour), 0)
	require.NoError(t, err)
	_, err = e.buckets.Freezes.Put(context.Background(), f.Scope, env.Marshal(), 0)
	require.NoError(t, err)
}

func TestFreezeExpiresOnTimeAndLiftAllows(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		freeze contracts.FreezeV1
	}{
		{name: "expired exactly at approval time", freeze: freezeOn("shop-api", true, t0)},
		{name: "lifted", freeze: freezeOn("shop-api", false, t0.Add(time.Hour))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.seedLedger(t)
			e.putFreeze(t, e.keys.Bridge, tc.freeze)
			res, err := e.deployer().Handle(context.Background(), testkit.Signed(t, e.keys, "dec-1", "shop-api", t0), 1)
			require.NoError(t, err)
			require.Equal(t, contracts.OutcomeRolledBack, res.Action.Outcome, res.Action.Reason)
		})
	}
}

func TestNoFreezeStoreRefuses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedLedger(t)
	d := e.deployer()
	d.Freezes = nil
	res, err := d.Handle(context.Background(), testkit.Signed(t, e.keys, "dec-1", "shop-api", t0), 1)
	require.NoError(t, err)
	require.Equal(t, contracts.OutcomeRefused, res.Action.Outcome)
	require.Equal(t, policy.ReasonFrozen, res.Refusal.Reason)
	require.Zero(t, e.rt.applies.Load())
}

// A shadow decision (the gate's flag or the deployer's own AGENTK_SHADOW)
// goes through every check and records the exact command and images, but
// nothing is applied, no cooldown is taken and the ledger is unchanged.
func TestShadowRecordsAndChangesNothing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		gateShadow bool
		ownShadow  bool
	}{
		{name: "decision marked shadow by the gate", gateShadow: true},
		{name: "deployer configured shadow", ownShadow: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.seedLedger(t)
			d := e.deployer()
			d.Shadow = func(string) bool { return tc.ownShadow }
			dec := testkit.Decision("dec-1", "shop-api", t0)
			dec.Shadow = tc.gateShadow
			denv := testkit.SealDecision(t, e.keys.Gate, dec, t0)
			raw := testkit.SealApproval(t, e.keys.Bridge, testkit.Approval(t, denv, t0), t0)
			res, err := d.Handle(context.Background(), raw, 1)
			require.NoError(t, err)
			a := res.Action
			require.Equal(t, contracts.OutcomeShadow, a.Outcome, a.Reason)
			require.Equal(t, "agentk-demo/shop-api:v2", a.FromImage)
			require.Equal(t, "agentk-demo/shop-api:v1", a.ToImage)
			require.Equal(t, []string{"compose", "up", "-d", "--force-recreate", "--no-deps", "shop-api"}, a.Command)
			require.False(t, a.ContainerVerified)
			require.Zero(t, e.rt.applies.Load(), "nothing applied")
			require.Empty(t, e.marker.marks)
			_, err = e.buckets.Cooldown.Get(context.Background(), "shop-api")
			require.ErrorIs(t, err, kvstore.ErrNotFound, "a shadow action takes no cooldown")
			require.Len(t, e.readLedger(t).Releases, 2, "the ledger is unchanged")
		})
	}
}

func TestCooldownAfterExpiryAllows(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedLedger(t)
	require.NoError(t, e.deployer().PutCooldown(context.Background(), contracts.CooldownV1{Service: "shop-api", ActionID: "action.prior", At: t0.Add(-11 * time.Minute)}))
	res, err := e.deployer().Handle(context.Background(), testkit.Signed(t, e.keys, "dec-1", "shop-api", t0), 1)
	require.NoError(t, err)
	require.Equal(t, contracts.OutcomeRolledBack, res.Action.Outcome, res.Action.Reason)
}

func TestDenyAnswerIsRecordedAsNone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedLedger(t)
	denv := testkit.SealDecision(t, e.keys.Gate, testkit.Decision("dec-1", "shop-api", t0), t0)
	a := testkit.Approval(t, denv, t0)
	a.Answer = contracts.AnswerDeny
	raw := testkit.SealApproval(t, e.keys.Bridge, a, t0)
	d := e.deployer()
	res, err := d.Handle(context.Background(), raw, 1)
	require.NoError(t, err)
	require.Equal(t, contracts.OutcomeNone, res.Action.Outcome)
	require.Zero(t, e.rt.applies.Load())
	_, err = e.buckets.Cooldown.Get(context.Background(), "shop-api")
	require.ErrorIs(t, err, kvstore.ErrNotFound, "a denial takes no cooldown")

	again, err := d.Handle(context.Background(), raw, 1)
	require.NoError(t, err)
	require.Equal(t, policy.ReasonReplay, again.Refusal.Reason, "the nonce was consumed")
}

func TestReplayedApprovalIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedLedger(t)
	raw := testkit.Signed(t, e.keys, "dec-1", "shop-api", t0)
	first, err := e.deployer().Handle(context.Background(), raw, 1)
	require.NoError(t, err)
	require.Equal(t, contracts.OutcomeRolledBack, first.Action.Outcome)

	// A fresh deployer (a restart) with the same KV: the nonce is durable, and
	// it is checked before the cooldown, so the refusal names the replay.
	e.seedLedger2(t)
	replay, err := e.deployer().Handle(context.Background(), raw, 1)
	require.NoError(t, err)
	require.Equal(t, contracts.OutcomeRefused, replay.Action.Outcome)
	require.Equal(t, policy.ReasonReplay, replay.Refusal.Reason)
	require.NotEqual(t, first.MsgID, replay.MsgID, "a replay refusal never shadows the original action id")
	require.EqualValues(t, 1, e.rt.applies.Load())
}

// seedLedger2 overwrites the ledger with a fresh v1→v2 history.
func (e *env) seedLedger2(t *testing.T) {
	t.Helper()
	le, err := e.buckets.Releases.Get(context.Background(), "shop-api")
	require.NoError(t, err)
	l := contracts.ReleaseLedgerV1{Project: "shop", Service: "shop-api", Releases: []contracts.Release{
		{Version: "v1", Image: "agentk-demo/shop-api:v1", ImageID: "sha256:v1"},
		{Version: "v2", Image: "agentk-demo/shop-api:v2", ImageID: "sha256:v2"},
	}}
	require.NoError(t, e.deployer().PutLedger(context.Background(), l, le.Revision))
}

func TestConcurrentApprovalsProduceOneRollback(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedLedger(t)
	e.rt.gate = make(chan struct{})
	d := e.deployer()
	msgs := [][]byte{
		testkit.Signed(t, e.keys, "dec-a", "shop-api", t0),
		testkit.Signed(t, e.keys, "dec-b", "shop-api", t0),
	}
	results := make(chan rollback.Result, len(msgs))
	for _, m := range msgs {
		go func() {
			r, err := d.Handle(context.Background(), m, 1)
			if err != nil {
				r.Action.Outcome = "error: " + err.Error()
			}
			results <- r
		}()
	}
	// The winner is held inside Apply, so the first answer must be the
	// loser's, refused by the cooldown (read after the win, or lost at CAS).
	first := <-results
	require.Equal(t, contracts.OutcomeRefused, first.Action.Outcome, first.Action.Reason)
	require.Contains(t, []string{policy.ReasonCooldownActive, policy.ReasonCooldownRace}, first.Refusal.Reason)
	close(e.rt.gate)
	second := <-results
	require.Equal(t, contracts.OutcomeRolledBack, second.Action.Outcome, second.Action.Reason)
	require.EqualValues(t, 1, e.rt.applies.Load())
}

// racingBucket lets another writer take the key between the deployer's read
// and its compare-and-set, every time.
type racingBucket struct {
	rollback.Bucket
	competitor func()
	once       sync.Once
}

func (r *racingBucket) Put(ctx context.Context, key string, v []byte, rev uint64) (uint64, error) {
	r.once.Do(r.competitor)
	return r.Bucket.Put(ctx, key, v, rev)
}

func TestCooldownIsTakenWithCompareAndSet(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedLedger(t)
	d := e.deployer()
	other := e.deployer() // a second deployer replica
	d.Cooldown = &racingBucket{Bucket: e.buckets.Cooldown, competitor: func() {
		require.NoError(t, other.PutCooldown(context.Background(), contracts.CooldownV1{Service: "shop-api", ActionID: "action.other", At: t0}))
	}}
	res, err := d.Handle(context.Background(), testkit.Signed(t, e.keys, "dec-1", "shop-api", t0), 1)
	require.NoError(t, err)
	require.Equal(t, contracts.OutcomeRefused, res.Action.Outcome)
	require.Equal(t, policy.ReasonCooldownRace, res.Refusal.Reason)
	require.Zero(t, e.rt.applies.Load())
}

func TestRedeliveryAfterDoneRepublishesTheSameAction(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedLedger(t)
	raw := testkit.Signed(t, e.keys, "dec-1", "shop-api", t0)
	first, err := e.deployer().Handle(context.Background(), raw, 1)
	require.NoError(t, err)
	again, err := e.deployer().Handle(context.Background(), raw, 2)
	require.NoError(t, err)
	require.Equal(t, first.MsgID, again.MsgID)
	require.Equal(t, first.Envelope.Marshal(), again.Envelope.Marshal(), "byte-identical: JetStream de-duplicates it")
	require.EqualValues(t, 1, e.rt.applies.Load())
}

// crashMidAction runs an approval into a runtime that panics mid-action,
// as a crash would, and leaves the runtime sane again for the restart.
func crashMidAction(t *testing.T) (*env, []byte) {
	t.Helper()
	e := newEnv(t)
	e.seedLedger(t)
	raw := testkit.Signed(t, e.keys, "dec-1", "shop-api", t0)
	e.rt.panics = true
	require.Panics(t, func() { _, _ = e.deployer().Handle(context.Background(), raw, 1) })
	e.rt.panics = false
	return e, raw
}

func TestCrashMidActionIsReconciledNotRepeated(t *testing.T) {
	t.Parallel()
	e, raw := crashMidAction(t)

	// The process restarts: reconcile from Docker's state before consuming.
	restarted := e.deployer()
	pending, err := restarted.Reconcile(context.Background())
	require.NoError(t, err)
	require.Len(t, pending, 1)
	require.Equal(t, contracts.OutcomeRolledBack, pending[0].Action.Outcome, pending[0].Action.Reason)
	require.True(t, pending[0].Action.ContainerVerified)
	require.Nil(t, pending[0].Action.Recovered, "recovery is not claimed after a crash")
	require.Equal(t, "action.appr-dec-1", pending[0].MsgID)

	// The approval, never acked, comes back: the reconciled action, no second rollback.
	again, err := restarted.Handle(context.Background(), raw, 2)
	require.NoError(t, err)
	require.Equal(t, pending[0].Envelope.Marshal(), again.Envelope.Marshal())
	require.EqualValues(t, 1, e.rt.applies.Load())

	none, err := restarted.Reconcile(context.Background())
	require.NoError(t, err)
	require.Empty(t, none)
}

// A dry run changes nothing, so one that a crash interrupted has nothing to
// reconcile from Docker: the restart reports the dry run it was doing
// (seen in e2e/faults, where the deployer killed as the approval arrived came
// back to "container runs , not  (dry run: nothing changed)" and failed).
func TestCrashMidDryRunIsReportedAsADryRun(t *testing.T) {
	t.Parallel()
	e, raw := crashMidAction(t)
	e.rt.verify = rollback.Verification{Detail: "dry run: nothing changed", DryRun: true}

	pending, err := e.deployer().Reconcile(context.Background())
	require.NoError(t, err)
	require.Len(t, pending, 1)
	act := pending[0].Action
	require.Equal(t, contracts.OutcomeDryRun, act.Outcome, act.Reason)
	require.Contains(t, act.Reason, "would move shop-api from agentk-demo/shop-api:v2 to agentk-demo/shop-api:v1")
	require.Equal(t, []string{"compose", "up", "-d", "--force-recreate", "--no-deps", "shop-api"}, act.Command)
	require.False(t, act.ContainerVerified)
	again, err := e.deployer().Handle(context.Background(), raw, 2)
	require.NoError(t, err)
	require.Equal(t, pending[0].Envelope.Marshal(), again.Envelope.Marshal(), "the redelivered approval gets the same answer")
	require.EqualValues(t, 1, e.rt.applies.Load())
}

func TestCrashMidActionOnOldImageReportsFailed(t *testing.T) {
	t.Parallel()
	e, raw := crashMidAction(t)
	e.rt.verify = rollback.Verification{Verified: false, ImageID: "sha256:v2", Detail: "still on v2"}
	res, err := e.deployer().Handle(context.Background(), raw, 2)
	require.NoError(t, err)
	require.Equal(t, contracts.OutcomeFailed, res.Action.Outcome)
	require.Contains(t, res.Action.Reason, "not retried")
	require.EqualValues(t, 1, e.rt.applies.Load())
}

func TestFailedVerificationIsFailedAndNotRecovered(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		exit    int
		verify  rollback.Verification
		outcome string
	}{
		{name: "compose exits non-zero", exit: 1, verify: rollback.Verification{Verified: true}, outcome: contracts.OutcomeFailed},
		{name: "container on the wrong image", verify: rollback.Verification{Verified: false, ImageID: "sha256:v2"}, outcome: contracts.OutcomeFailed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.seedLedger(t)
			e.rt.exit, e.rt.verify = c.exit, c.verify
			res, err := e.deployer().Handle(context.Background(), testkit.Signed(t, e.keys, "dec-1", "shop-api", t0), 1)
			require.NoError(t, err)
			require.Equal(t, c.outcome, res.Action.Outcome)
			require.False(t, res.Action.ContainerVerified)
			require.Nil(t, res.Action.Recovered)
			require.Empty(t, e.marker.marks, "no marker for a rollback that did not happen")
			require.Len(t, e.readLedger(t).Releases, 2, "the ledger is untouched")
		})
	}
}

func TestNotRecoveredGoesBackToAHuman(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedLedger(t)
	d := e.deployer()
	d.Recovery = fakeRecovery{ok: false}
	res, err := d.Handle(context.Background(), testkit.Signed(t, e.keys, "dec-1", "shop-api", t0), 1)
	require.NoError(t, err)
	require.Equal(t, contracts.OutcomeRolledBack, res.Action.Outcome)
	require.NotNil(t, res.Action.Recovered)
	require.False(t, *res.Action.Recovered)
	require.Contains(t, res.Action.Reason, "back to a human")
	require.EqualValues(t, 1, e.rt.applies.Load())
}

// The bus retries a handler in process after a transient failure (say the
// action's publish failed) with the same delivery count. That retry of the
// same stream message must republish the recorded action, not refuse it as a
// replay; a copy of the approval published again (another sequence) is a replay.
func TestInProcessRetryRepublishesRecordedAction(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedLedger(t)
	raw := testkit.Signed(t, e.keys, "dec-1", "shop-api", t0)
	d := e.deployer()
	first, err := d.HandleMessage(context.Background(), raw, 1, 7)
	require.NoError(t, err)
	require.Equal(t, contracts.OutcomeRolledBack, first.Action.Outcome)

	retry, err := d.HandleMessage(context.Background(), raw, 1, 7)
	require.NoError(t, err)
	require.Equal(t, contracts.OutcomeRolledBack, retry.Action.Outcome, "the retry republishes the outcome")
	require.Equal(t, first.MsgID, retry.MsgID)
	require.Equal(t, first.Envelope.Marshal(), retry.Envelope.Marshal(), "byte-identical")
	require.EqualValues(t, 1, e.rt.applies.Load(), "compose ran once")

	copyOf, err := d.HandleMessage(context.Background(), raw, 1, 8)
	require.NoError(t, err)
	require.Equal(t, contracts.OutcomeRefused, copyOf.Action.Outcome)
	require.Equal(t, policy.ReasonReplay, copyOf.Refusal.Reason)
	require.EqualValues(t, 1, e.rt.applies.Load())
}

// down is a store that cannot be reached: NATS restarting, a leader election.
type down struct{ rollback.Bucket }

func (down) Get(ctx context.Context, key string) (kvstore.Entry, error) {
	return kvstore.Entry{}, fmt.Errorf("kvstore: get %s: %w", key, context.DeadlineExceeded)
}

// A store that cannot be reached is no answer: the approval comes back and is
// judged again, instead of being refused and the human's answer used up.
func TestUnreachableStoreRedeliversInsteadOfRefusing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		break_ func(*rollback.Deployer)
	}{
		{"nonce store", func(d *rollback.Deployer) { d.Nonces = down{d.Nonces} }},
		{"cooldown store", func(d *rollback.Deployer) { d.Cooldown = down{d.Cooldown} }},
		{"ledger store", func(d *rollback.Deployer) { d.Releases = down{d.Releases} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.seedLedger(t)
			raw := testkit.Signed(t, e.keys, "dec-1", "shop-api", t0)
			d := e.deployer()
			tc.break_(d)
			_, err := d.HandleMessage(context.Background(), raw, 1, 3)
			require.ErrorIs(t, err, rollback.ErrTransient)
			require.Zero(t, e.rt.applies.Load())

			// The store is back: the redelivered approval is acted on.
			res, err := e.deployer().HandleMessage(context.Background(), raw, 2, 3)
			require.NoError(t, err)
			require.Equal(t, contracts.OutcomeRolledBack, res.Action.Outcome)
			require.EqualValues(t, 1, e.rt.applies.Load())
		})
	}
}
