package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/dockertest"
	"agentk/platform/fabric"
	"agentk/platform/identity"
	"agentk/platform/topology"
	"agentk/services/deployer/demotarget/demotest"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// hostile is one message an attacker with publish rights on the approval
// subject (the test's admin credential) puts on the bus.
type hostile struct {
	name   string
	how    string
	reason string // the refusal code the deployer must answer with
	build  func(k keys, now time.Time) []byte
}

type keys struct{ gate, bridge, investigator *envelope.Signer }

func decision(id, service string, now time.Time) contracts.DecisionV1 {
	return contracts.DecisionV1{
		DecisionID: id, IncidentID: "inc-" + id, InvestigationID: "inv-" + id, ReviewID: "rev-" + id,
		Service: service, Action: "rollback", Verdict: contracts.VerdictAllow, FailedChecks: []string{},
		Diagnosis: "bad_release", Confidence: 0.9, DecidedAt: now, ExpiresAt: now.Add(15 * time.Minute),
	}
}

func approval(denv envelope.Envelope, now time.Time) contracts.ApprovalV1 {
	var d contracts.DecisionV1
	if err := json.Unmarshal(denv.Payload, &d); err != nil {
		panic(err)
	}
	return contracts.ApprovalV1{
		ApprovalID: "appr-" + d.DecisionID, DecisionID: d.DecisionID, DecisionDigest: denv.Digest(),
		IncidentID: d.IncidentID, Service: d.Service, Answer: contracts.AnswerApprove,
		Approver: "mallory", Channel: contracts.ChannelCLI, AnsweredAt: now, ExpiresAt: d.ExpiresAt,
		Decision: denv.Marshal(),
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// seal signs a as the bridge would.
func seal(s *envelope.Signer, a contracts.ApprovalV1, now time.Time) []byte {
	return must(s.SealJSON(contracts.SubjectApproval, a, now, 10*time.Minute)).Marshal()
}

// hostiles are the messages; every decision names the move from → to the
// ledger really plans, so only the check under test stands in the way.
func hostiles(service, from, to string) []hostile {
	decision := func(id, service string, now time.Time) contracts.DecisionV1 {
		d := decision(id, service, now)
		d.CurrentImage, d.RollbackTarget = from, to
		return d
	}
	return []hostile{
		{name: "unsigned decision", reason: "decision_signature",
			how: "a bridge-signed approval carrying a gate decision whose signature was stripped",
			build: func(k keys, now time.Time) []byte {
				denv := must(k.gate.SealJSON(contracts.SubjectDecision, decision("h-unsigned", service, now), now, 15*time.Minute))
				denv.Sig = nil
				return seal(k.bridge, approval(denv, now), now)
			}},
		{name: "decision signed by the bridge's key", reason: "decision_signature",
			how: "the decision is sealed with the bridge's (valid, known) key instead of the gate's",
			build: func(k keys, now time.Time) []byte {
				denv := must(k.bridge.SealJSON(contracts.SubjectDecision, decision("h-wrongrole", service, now), now, 15*time.Minute))
				return seal(k.bridge, approval(denv, now), now)
			}},
		{name: "decision signed by the investigator's key", reason: "decision_signature",
			how: "a compromised investigator forges the gate's decision with its own key",
			build: func(k keys, now time.Time) []byte {
				denv := must(k.investigator.SealJSON(contracts.SubjectDecision, decision("h-investigator", service, now), now, 15*time.Minute))
				return seal(k.bridge, approval(denv, now), now)
			}},
		{name: "tampered decision payload", reason: "decision_signature",
			how: "a gate-denied decision rewritten to allow after signing; the approval's digest matches the rewritten bytes",
			build: func(k keys, now time.Time) []byte {
				d := decision("h-tampered", service, now)
				d.Verdict, d.FailedChecks = contracts.VerdictDeny, []string{contracts.CheckSLOBreach}
				denv := must(k.gate.SealJSON(contracts.SubjectDecision, d, now, 15*time.Minute))
				d.Verdict, d.FailedChecks = contracts.VerdictAllow, []string{}
				denv.Payload = must(json.Marshal(d))
				return seal(k.bridge, approval(denv, now), now)
			}},
		{name: "tampered approval payload", reason: "approval_signature",
			how: "a bridge-signed deny rewritten to approve after signing",
			build: func(k keys, now time.Time) []byte {
				denv := must(k.gate.SealJSON(contracts.SubjectDecision, decision("h-tampered-approval", service, now), now, 15*time.Minute))
				a := approval(denv, now)
				a.Answer = contracts.AnswerDeny
				aenv := must(k.bridge.SealJSON(contracts.SubjectApproval, a, now, 10*time.Minute))
				a.Answer = contracts.AnswerApprove
				aenv.Payload = must(json.Marshal(a))
				return aenv.Marshal()
			}},
		{name: "approval signed by the gate's key", reason: "approval_signature",
			how: "the approval is sealed with the gate's key: no human answered through the bridge",
			build: func(k keys, now time.Time) []byte {
				denv := must(k.gate.SealJSON(contracts.SubjectDecision, decision("h-gate-approves", service, now), now, 15*time.Minute))
				return seal(k.gate, approval(denv, now), now)
			}},
		{name: "expired decision", reason: "decision_expired",
			how: "a genuine gate decision issued 40 min ago with a 15 min lifetime, freshly approved",
			build: func(k keys, now time.Time) []byte {
				then := now.Add(-40 * time.Minute)
				denv := must(k.gate.SealJSON(contracts.SubjectDecision, decision("h-expired", service, then), then, 15*time.Minute))
				a := approval(denv, now)
				a.ExpiresAt = now.Add(10 * time.Minute)
				return seal(k.bridge, a, now)
			}},
		{name: "approval bound to another decision's digest", reason: "digest_mismatch",
			how: "an approval of decision A (digest of A) carrying decision B",
			build: func(k keys, now time.Time) []byte {
				da := must(k.gate.SealJSON(contracts.SubjectDecision, decision("h-digest-a", service, now), now, 15*time.Minute))
				db := must(k.gate.SealJSON(contracts.SubjectDecision, decision("h-digest-b", service, now), now, 15*time.Minute))
				a := approval(db, now)
				a.DecisionDigest = da.Digest()
				return seal(k.bridge, a, now)
			}},
		{name: "decision for a service outside the sandbox", reason: "service_not_allowlisted",
			how: "a genuinely signed, approved rollback of a service that is not in the deployer's allowlist",
			build: func(k keys, now time.Time) []byte {
				denv := must(k.gate.SealJSON(contracts.SubjectDecision, decision("h-scope", "payments-db", now), now, 15*time.Minute))
				return seal(k.bridge, approval(denv, now), now)
			}},
		{name: "approved denial", reason: "decision_denied",
			how: "a genuine gate denial approved by a genuine human through the bridge",
			build: func(k keys, now time.Time) []byte {
				d := decision("h-denied", service, now)
				d.Verdict, d.FailedChecks = contracts.VerdictDeny, []string{contracts.CheckCooldown}
				denv := must(k.gate.SealJSON(contracts.SubjectDecision, d, now, 15*time.Minute))
				return seal(k.bridge, approval(denv, now), now)
			}},
	}
}

// TestHostileMessagesAreRefused publishes forged, tampered, expired,
// replayed and out-of-scope approvals straight onto the bus, to a deployer
// process with the Docker runtime in front of a running compose project: each
// is refused with its reason code, and the engine shows the project exactly
// as it was.
func TestHostileMessagesAreRefused(t *testing.T) {
	cli := dockertest.Require(t)
	t.Parallel()
	// The demo target, v1 then v2: the ledger has a rollback target, so
	// only the checks stand between a message and a rollback. The images
	// take what the machine takes (within the test's deadline); the test's
	// own budget starts once they are there.
	repo, _, _ := demotest.Images(t, "faults")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	stamp := time.Now().UnixNano()
	w := newWorld(t)
	project := fmt.Sprintf("agentkfaults%d", stamp)
	stack := dockertest.NewCompose(ctx, t, []string{"docker-compose"}, project, w.dir,
		fmt.Sprintf("version: \"2.4\"\nservices:\n  shop-api:\n    image: %s:${SHOP_API_TAG:-v2}\n", repo))
	file := stack.File
	stack.Up("SHOP_API_TAG=v1")

	w.startNATS(ctx)
	f, err := fabric.Remote(ctx, w.url, filepath.Join(w.dir, "keys"), fabric.Options{})
	require.NoError(t, err)
	w.fab, w.kr = f, f.Keyring()
	w.admin, err = f.Admin(ctx)
	require.NoError(t, err)
	w.env = map[string]string{
		"AGENTK_NATS_URL": w.url, "AGENTK_OTEL_DISABLED": "1", "AGENTK_LOG_FORMAT": "text", "AGENTK_HEALTH_ADDR": "127.0.0.1:0",
		"AGENTK_DEPLOYER_RUNTIME": "docker", "AGENTK_DEPLOYER_SERVICES": "shop-api",
		"AGENTK_COMPOSE_PROJECT": project, "AGENTK_COMPOSE_FILE": file,
		"AGENTK_DEPLOYER_STATE_DIR": filepath.Join(w.dir, "deployer-state"), "AGENTK_DEPLOYER_STABILISE": "1s",
		"DOCKER_HOST": os.Getenv("DOCKER_HOST"),
	}
	w.startService(envelope.RoleDeployer)

	releases, err := w.admin.KeyValue(ctx, "agentk_releases")
	require.NoError(t, err)
	ledger := func() int {
		e, err := releases.Get(ctx, "shop-api")
		if err != nil {
			return 0
		}
		var l contracts.ReleaseLedgerV1
		if _, err := w.kr.Open(e.Value(), contracts.SubjectLedger, time.Now(), &l); err != nil {
			return -1
		}
		return len(l.Releases)
	}
	poll(ctx, t, "v1 in the deployer's ledger", func() (bool, error) { return ledger() == 1, nil })
	stack.Up("SHOP_API_TAG=v2")
	poll(ctx, t, "v2 in the deployer's ledger: a rollback target exists", func() (bool, error) { return ledger() == 2, nil })
	before := dockertest.State(ctx, t, cli, project)
	require.Len(t, before, 1)

	ids, err := identity.Load(filepath.Join(w.dir, "keys"))
	require.NoError(t, err)
	signer := func(role string) *envelope.Signer { return must(ids.Signer(role)) }
	k := keys{gate: signer(envelope.RoleGate), bridge: signer(envelope.RoleBridge), investigator: signer(envelope.RoleInvestigator)}

	actions := make(chan *nats.Msg, 64)
	sub, err := w.admin.NATS().ChanSubscribe(contracts.SubjectAction, actions)
	require.NoError(t, err)
	defer func() { _ = sub.Unsubscribe() }()
	dead := make(chan *nats.Msg, 64)
	dsub, err := w.admin.NATS().ChanSubscribe(topology.DLQSubject(contracts.SubjectApproval), dead)
	require.NoError(t, err)
	defer func() { _ = dsub.Unsubscribe() }()
	require.NoError(t, w.admin.NATS().Flush())
	js := w.admin.JetStream()
	n := 0
	publish := func(b []byte) {
		n++
		_, err := js.Publish(ctx, contracts.SubjectApproval, b, jetstream.WithMsgID(fmt.Sprintf("hostile.%d.%d", stamp, n)))
		require.NoError(t, err)
	}
	// forged publishes a message that fails verification: it must come out
	// dead-lettered, with no action under any of its claimed ids.
	forged := func(b []byte) {
		publish(b)
		select {
		case <-dead:
		case m := <-actions:
			t.Fatalf("an unverified approval was answered with an action: %s", m.Data)
		case <-ctx.Done():
			t.Fatalf("hostile message %d not dead-lettered:\n%s", n, tail(w.procs[envelope.RoleDeployer].log, 20))
		}
	}
	send := func(b []byte) contracts.ActionV1 {
		publish(b)
		select {
		case m := <-actions:
			var a contracts.ActionV1
			_, err := w.kr.Open(m.Data, contracts.SubjectAction, time.Now(), &a)
			require.NoError(t, err, "the action is deployer-signed")
			return a
		case <-ctx.Done():
			t.Fatalf("no action for hostile message %d:\n%s", n, tail(w.procs[envelope.RoleDeployer].log, 20))
			return contracts.ActionV1{}
		}
	}

	from, to := repo+":v2", repo+":v1"
	for _, h := range hostiles("shop-api", from, to) {
		if h.reason == "decision_signature" || h.reason == "approval_signature" {
			forged(h.build(k, time.Now()))
			require.Equal(t, before, dockertest.State(ctx, t, cli, project), "%s changed the Docker state", h.name)
			record(t, row{Area: "hostile", Fault: h.name, How: h.how, Outcome: "unverified (`" + h.reason + "`): dead-lettered, no action published under its claimed ids; Docker state unchanged"})
			continue
		}
		a := send(h.build(k, time.Now()))
		require.Equal(t, contracts.OutcomeRefused, a.Outcome, "%s: %+v", h.name, a)
		require.True(t, strings.HasPrefix(a.Reason, h.reason+":"), "%s: reason %q, want %s", h.name, a.Reason, h.reason)
		require.Equal(t, before, dockertest.State(ctx, t, cli, project), "%s changed the Docker state", h.name)
		record(t, row{Area: "hostile", Fault: h.name, How: h.how, Outcome: "refused `" + h.reason + "`; Docker state unchanged"})
	}

	// The control, then the replay: a genuine approval does act, and the
	// engine shows it (the assertions above could have failed); the same
	// signed approval published again later is a replay and acts on nothing.
	genuine := must(k.gate.SealJSON(contracts.SubjectDecision, hdecision("h-genuine", time.Now(), from, to), time.Now(), 15*time.Minute))
	b := seal(k.bridge, approval(genuine, time.Now()), time.Now())
	act := send(b)
	require.Equal(t, contracts.OutcomeRolledBack, act.Outcome, "%+v", act)
	require.True(t, act.ContainerVerified)
	after := dockertest.State(ctx, t, cli, project)
	require.NotEqual(t, before, after, "a genuine rollback shows in the Docker state")
	again := send(b)
	require.Equal(t, contracts.OutcomeRefused, again.Outcome, "%+v", again)
	require.True(t, strings.HasPrefix(again.Reason, "replay:"), again.Reason)
	require.Equal(t, after, dockertest.State(ctx, t, cli, project), "the replayed approval changed the Docker state")
	record(t, row{Area: "hostile", Fault: "replayed approval", How: "a genuine bridge-signed approval that rolled back, published a second time under a new message id",
		Outcome: "first rolled back, replay refused `replay`; Docker state unchanged by the replay"})
}

// hdecision is an allowing decision of shop-api approving from → to.
func hdecision(id string, now time.Time, from, to string) contracts.DecisionV1 {
	d := decision(id, "shop-api", now)
	d.CurrentImage, d.RollbackTarget = from, to
	return d
}
