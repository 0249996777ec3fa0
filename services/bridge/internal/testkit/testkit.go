// Package testkit builds signed test inputs for the bridge's tests: a gate key,
// a bridge key, the keyring that knows both, and gate-signed decisions.
package testkit

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nkeys"

	"agentk/contracts"
	"agentk/contracts/envelope"
)

// Keys are one test's signing keys.
type Keys struct {
	Gate, Bridge, Deployer, Stranger *envelope.Signer
	Keyring                          *envelope.Keyring
}

// NewKeys makes fresh keys; the stranger's key is in the keyring as a gate
// key's impostor only when you add it, which you do not.
func NewKeys(t testing.TB) Keys {
	t.Helper()
	mk := func() *envelope.Signer {
		kp, err := nkeys.CreateUser()
		if err != nil {
			t.Fatal(err)
		}
		seed, err := kp.Seed()
		if err != nil {
			t.Fatal(err)
		}
		s, err := envelope.NewSigner(seed)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	k := Keys{Gate: mk(), Bridge: mk(), Deployer: mk(), Stranger: mk()}
	kr, err := envelope.NewKeyring(
		envelope.KeyEntry{KeyID: k.Gate.KeyID(), Role: envelope.RoleGate},
		envelope.KeyEntry{KeyID: k.Bridge.KeyID(), Role: envelope.RoleBridge},
		envelope.KeyEntry{KeyID: k.Deployer.KeyID(), Role: envelope.RoleDeployer},
	)
	if err != nil {
		t.Fatal(err)
	}
	k.Keyring = kr
	return k
}

// Epoch is the fixed time tests start at.
var Epoch = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

// Decision returns an allowed rollback decision with id, decided at now.
func Decision(id string, now time.Time) contracts.DecisionV1 {
	checks := []contracts.CheckResult{
		{Name: contracts.CheckSLOBreach, Passed: true, Reason: "burn rate 14.2 >= 1.0", Inputs: map[string]string{"burn_rate": "14.2", "threshold": "1"}},
		{Name: contracts.CheckAllowlist, Passed: true, Reason: "rollback is allowed"},
		{Name: contracts.CheckCooldown, Passed: true, Reason: "no action in the last 600 s"},
		{Name: contracts.CheckConfidence, Passed: true, Reason: "best reviewed claim 0.86 >= 0.70"},
		{Name: contracts.CheckDeploymentRelated, Passed: true, Reason: "deploy marker 4m before onset",
			Inputs: map[string]string{"trace": "http://signoz.test:8080/trace/abc123",
				"current_image": "registry.test/checkout:1.5.0", "current_version": "1.5.0",
				"marker": "checkout@1.5.0@" + now.Add(-9*time.Minute).UTC().Format(time.RFC3339), "marker_trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
				"window": now.Add(-35*time.Minute).UTC().Format(time.RFC3339) + "/" + now.Add(-5*time.Minute).UTC().Format(time.RFC3339)}},
		{Name: contracts.CheckSandboxScope, Passed: true, Reason: "checkout is in the sandbox"},
	}
	return contracts.DecisionV1{
		DecisionID: id, IncidentID: "inc-" + id, InvestigationID: "inv-" + id, ReviewID: "rev-" + id,
		Service: "checkout", Action: "rollback", Verdict: contracts.VerdictAllow, Checks: checks,
		FailedChecks: []string{}, Diagnosis: "bad_deploy", Confidence: 0.86,
		RollbackTarget: "registry.test/checkout:1.4.2", DecidedAt: now, ExpiresAt: now.Add(15 * time.Minute),
	}
}

// Denied returns a gate denial with id.
func Denied(id string, now time.Time) contracts.DecisionV1 {
	d := Decision(id, now)
	d.Verdict = contracts.VerdictDeny
	d.Checks[2].Passed, d.Checks[2].Reason = false, "rolled back 120 s ago"
	d.FailedChecks = []string{contracts.CheckCooldown}
	d.NextStep = "wait for the cooldown or act by hand"
	return d
}

// Seal signs dec as the gate would, valid 15 minutes from now.
func Seal(t testing.TB, s *envelope.Signer, dec contracts.DecisionV1, now time.Time) []byte {
	t.Helper()
	env, err := s.SealJSON(contracts.SubjectDecision, dec, now, dec.ExpiresAt.Sub(now))
	if err != nil {
		t.Fatal(err)
	}
	return env.Marshal()
}

// Action returns the deployer's outcome for decision dec: a dry run, or a
// rollback with recovered set.
func Action(id string, dec contracts.DecisionV1, outcome string, recovered *bool, now time.Time) contracts.ActionV1 {
	return contracts.ActionV1{
		ActionID: id, IncidentID: dec.IncidentID, DecisionID: dec.DecisionID, ApprovalID: "apv-" + dec.DecisionID,
		Service: dec.Service, Outcome: outcome, FromImage: "registry.test/checkout:1.5.0", ToImage: dec.RollbackTarget,
		ContainerVerified: outcome == contracts.OutcomeRolledBack, Recovered: recovered,
		ActionMs: 3200, VerifyMs: 121800, TotalMs: 125000, StartedAt: now, FinishedAt: now.Add(125 * time.Second),
	}
}

// SealAction signs act as the deployer would.
func SealAction(t testing.TB, s *envelope.Signer, act contracts.ActionV1, now time.Time) []byte {
	t.Helper()
	env, err := s.SealJSON(contracts.SubjectAction, act, now, 0)
	if err != nil {
		t.Fatal(err)
	}
	return env.Marshal()
}

// Clock is a settable clock, safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock starts at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock on.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Incidents is the ingester's incident records as the desk reads them
// (desk.Incidents): the resolve time of each incident whose alert resolved.
type Incidents struct {
	mu sync.Mutex
	at map[string]time.Time
}

// ResolvedAt implements desk.Incidents: zero while the alert fires.
func (f *Incidents) ResolvedAt(_ context.Context, id string) (time.Time, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.at[id], nil
}

// Resolve records that id's alert resolved at at.
func (f *Incidents) Resolve(id string, at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.at == nil {
		f.at = map[string]time.Time{}
	}
	f.at[id] = at
}
