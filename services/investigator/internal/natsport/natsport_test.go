package natsport_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/services/investigator/internal/loop"
	"agentk/services/investigator/internal/loop/looptest"
	"agentk/services/investigator/internal/natsport"
	"agentk/services/investigator/internal/rules"

	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/require"
)

type keys struct {
	ingester, sandbox, investigator, rogue *envelope.Signer
	ring                                   *envelope.Keyring
}

func newKeys(t *testing.T) keys {
	t.Helper()
	mk := func() *envelope.Signer {
		kp, err := nkeys.CreateUser()
		require.NoError(t, err)
		seed, err := kp.Seed()
		require.NoError(t, err)
		s, err := envelope.NewSigner(seed)
		require.NoError(t, err)
		return s
	}
	k := keys{ingester: mk(), sandbox: mk(), investigator: mk(), rogue: mk()}
	ring, err := envelope.NewKeyring(
		envelope.KeyEntry{KeyID: k.ingester.KeyID(), Role: envelope.RoleIngester},
		envelope.KeyEntry{KeyID: k.sandbox.KeyID(), Role: envelope.RoleSandbox},
		envelope.KeyEntry{KeyID: k.investigator.KeyID(), Role: envelope.RoleInvestigator},
		envelope.KeyEntry{KeyID: k.rogue.KeyID(), Role: envelope.RoleBridge},
	)
	require.NoError(t, err)
	k.ring = ring
	return k
}

func now() time.Time { return looptest.Base }

// requester is a fake bus that answers tool calls with a signed sandbox reply.
type requester struct {
	k      keys
	sb     *looptest.Sandbox
	signer *envelope.Signer // who signs replies and evidence
	err    error
}

func (r *requester) Request(ctx context.Context, subject string, env envelope.Envelope) (envelope.Envelope, error) {
	if r.err != nil {
		return envelope.Envelope{}, r.err
	}
	var call contracts.ToolCallV1
	if _, err := r.k.ring.Open(env.Marshal(), subject, now(), &call); err != nil {
		return envelope.Envelope{}, bus.Permanent(err)
	}
	reply, err := r.sb.SignedReply(ctx, r.signer, now(), call)
	if err != nil {
		return envelope.Envelope{}, err
	}
	return r.signer.SealJSON(contracts.SubjectToolReply, reply, now(), 0)
}

func alertMsg(t *testing.T, signer *envelope.Signer, a contracts.AlertV1) bus.Message {
	t.Helper()
	env, err := signer.SealJSON(contracts.SubjectAlert, a, now(), 0)
	require.NoError(t, err)
	return bus.Message{Subject: contracts.SubjectAlert, Data: env.Marshal(), Envelope: env, Delivery: 1}
}

func firing(id string) contracts.AlertV1 {
	return contracts.AlertV1{IncidentID: id, Status: contracts.AlertFiring, Service: "shop-api", StartsAt: now().Add(-5 * time.Minute), BurnRate: 3}
}

func handler(k keys, rq *requester) *natsport.Handler {
	return natsport.NewHandler(natsport.Config{Keyring: k.ring, Signer: k.investigator, Now: now,
		Tools: natsport.Tools{Bus: rq, Signer: k.investigator, Keyring: k.ring, Now: now}, Model: rules.Investigator{},
		Investigator: rules.Name, Catalogue: contracts.DefaultCatalogue(), Budget: loop.DefaultBudget(), Parallel: 1})
}

func TestHandle(t *testing.T) {
	t.Parallel()
	k := newKeys(t)
	tests := []struct {
		name      string
		signer    func(keys) *envelope.Signer
		alert     func(a *contracts.AlertV1)
		reply     func(keys) *envelope.Signer
		busErr    error
		reports   int
		permanent bool
		transient bool
		completed bool
	}{
		{name: "firing alert is investigated", reports: 1, completed: true},
		{name: "test alert is skipped", alert: func(a *contracts.AlertV1) { a.Test = true }},
		{name: "no-data alert is skipped", alert: func(a *contracts.AlertV1) { a.NoData = true }},
		{name: "resolved alert is skipped", alert: func(a *contracts.AlertV1) { a.Status = contracts.AlertResolved }},
		{name: "alert without a service is skipped", alert: func(a *contracts.AlertV1) { a.Service = "" }},
		{name: "alert not signed by the ingester is dead-lettered", signer: func(k keys) *envelope.Signer { return k.rogue }, permanent: true},
		{name: "evidence not signed by the sandbox is never reported", reply: func(k keys) *envelope.Signer { return k.rogue }, transient: true},
		{name: "sandbox down is redelivered", busErr: bus.ErrNoResponders, transient: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := firing("inc-" + tc.name)
			if tc.alert != nil {
				tc.alert(&a)
			}
			signer := k.ingester
			if tc.signer != nil {
				signer = tc.signer(k)
			}
			rq := &requester{k: k, sb: &looptest.Sandbox{Scenario: looptest.RetryStorm(), Now: now()}, signer: k.sandbox, err: tc.busErr}
			if tc.reply != nil {
				rq.signer = tc.reply(k)
			}
			outs, err := handler(k, rq).Handle(context.Background(), alertMsg(t, signer, a))
			switch {
			case tc.permanent:
				require.True(t, bus.IsPermanent(err), err)
				return
			case tc.transient:
				require.Error(t, err)
				require.False(t, bus.IsPermanent(err))
				require.ErrorIs(t, err, loop.ErrToolUnavailable)
				return
			}
			require.NoError(t, err)
			require.Len(t, outs, tc.reports)
			if tc.reports == 0 {
				require.Zero(t, rq.sb.Count(), "a skipped alert calls no tool")
				return
			}
			var rep contracts.ReportV1
			_, err = k.ring.Open(outs[0].Envelope.Marshal(), contracts.SubjectReport, now(), &rep)
			require.NoError(t, err)
			require.Equal(t, natsport.InvestigationID(a.IncidentID), outs[0].MsgID)
			require.Equal(t, outs[0].MsgID, rep.InvestigationID)
			require.Equal(t, tc.completed, rep.Completed)
			require.Equal(t, "retry_storm", rep.Claims[0].Class)
			require.Equal(t, "rules", rep.Investigator)
			var back contracts.AlertV1
			_, err = k.ring.Open(rep.Alert, contracts.SubjectAlert, now(), &back)
			require.NoError(t, err, "the alert envelope travels unchanged")
			require.Empty(t, rep.Evidence, "evidence travels by reference")
			require.Len(t, rep.EvidenceRefs, rep.ToolCalls)
			digests := map[string]bool{}
			for _, ref := range rep.EvidenceRefs {
				require.NotEmpty(t, ref.ID)
				require.Len(t, ref.Digest, 64, "the hex sha256 of the sandbox-signed payload")
				digests[ref.Digest] = true
			}
			require.Len(t, digests, len(rep.EvidenceRefs))
		})
	}
}

func TestRedeliveryReturnsTheSameReport(t *testing.T) {
	t.Parallel()
	k := newKeys(t)
	rq := &requester{k: k, sb: &looptest.Sandbox{Scenario: looptest.DBPool(), Now: now()}, signer: k.sandbox}
	h := handler(k, rq)
	msg := alertMsg(t, k.ingester, firing("inc-redeliver"))
	first, err := h.Handle(context.Background(), msg)
	require.NoError(t, err)
	calls := rq.sb.Count()
	msg.Delivery = 2
	second, err := h.Handle(context.Background(), msg)
	require.NoError(t, err)
	require.Equal(t, calls, rq.sb.Count(), "no second investigation")
	require.Equal(t, first[0].MsgID, second[0].MsgID)
	require.Equal(t, first[0].Envelope.Marshal(), second[0].Envelope.Marshal())
}

func TestInvestigationIDIsDeterministic(t *testing.T) {
	t.Parallel()
	require.Equal(t, natsport.InvestigationID("a"), natsport.InvestigationID("a"))
	require.NotEqual(t, natsport.InvestigationID("a"), natsport.InvestigationID("b"))
	require.Regexp(t, `^inv-[0-9a-f]{20}$`, natsport.InvestigationID("a"))
}

func TestToolsRefusalIsAToolError(t *testing.T) {
	t.Parallel()
	k := newKeys(t)
	rq := &requester{k: k, sb: &looptest.Sandbox{Now: now()}, signer: k.sandbox, err: bus.Permanent(errors.New("bus: remote: tool not allowlisted"))}
	tools := natsport.Tools{Bus: rq, Signer: k.investigator, Keyring: k.ring, Now: now}
	r, err := tools.Call(context.Background(), contracts.ToolCallV1{CallID: "c", Tool: "x", Arguments: json.RawMessage(`{}`)})
	require.NoError(t, err)
	require.False(t, r.OK)
	require.Contains(t, r.Error, "not allowlisted")
}
