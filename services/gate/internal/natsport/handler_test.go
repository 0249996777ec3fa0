package natsport_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/evidence"
	"agentk/services/gate/internal/natsport"
	"agentk/services/gate/internal/policy"
)

var (
	tMarker = time.Date(2026, 11, 30, 10, 2, 0, 0, time.UTC)
	tOnset  = time.Date(2026, 11, 30, 10, 5, 0, 0, time.UTC)
	tStarts = time.Date(2026, 11, 30, 10, 10, 0, 0, time.UTC)
	tNow    = time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)
)

const svc = "shop-api"

// keys holds one signer per role and the keyring that knows them all.
type keys struct {
	signers map[string]*envelope.Signer
	ring    *envelope.Keyring
}

func newKeys(t testing.TB) keys {
	t.Helper()
	k := keys{signers: map[string]*envelope.Signer{}}
	var entries []envelope.KeyEntry
	for _, role := range envelope.Roles {
		kp, err := nkeys.CreateUser()
		require.NoError(t, err)
		seed, err := kp.Seed()
		require.NoError(t, err)
		s, err := envelope.NewSigner(seed)
		require.NoError(t, err)
		k.signers[role] = s
		entries = append(entries, envelope.KeyEntry{KeyID: s.KeyID(), Role: role})
	}
	var err error
	k.ring, err = envelope.NewKeyring(entries...)
	require.NoError(t, err)
	return k
}

// seal seals v for subject as role, at issue time at.
func (k keys) seal(t testing.TB, role, subject string, v any, at time.Time) []byte {
	t.Helper()
	e, err := k.signers[role].SealJSON(subject, v, at, 0)
	require.NoError(t, err)
	return e.Marshal()
}

// entry is a jetstream.KeyValueEntry holding a value.
type entry struct{ v []byte }

func (e entry) Bucket() string                  { return "" }
func (e entry) Key() string                     { return "" }
func (e entry) Value() []byte                   { return e.v }
func (e entry) Revision() uint64                { return 1 }
func (e entry) Created() time.Time              { return time.Time{} }
func (e entry) Delta() uint64                   { return 0 }
func (e entry) Operation() jetstream.KeyValueOp { return jetstream.KeyValuePut }

// kv is a fake bucket: values by key, or one error for every read, or
// keyErr's error for its key.
type kv struct {
	vals   map[string][]byte
	err    error
	keyErr map[string]error
	// asked, when set, records every key read.
	asked *[]string
}

func (f kv) Get(_ context.Context, key string) (jetstream.KeyValueEntry, error) {
	if f.asked != nil {
		*f.asked = append(*f.asked, key)
	}
	if f.err != nil {
		return nil, f.err
	}
	if err := f.keyErr[key]; err != nil {
		return nil, err
	}
	v, ok := f.vals[key]
	if !ok {
		return nil, jetstream.ErrKeyNotFound
	}
	return entry{v}, nil
}

// world is one incident's signed messages and stores, every one valid.
type world struct {
	k         keys
	alert     contracts.AlertV1
	evidence  []contracts.EvidenceV1
	review    contracts.ReviewV1
	ledger    contracts.ReleaseLedgerV1
	cooldown  *contracts.CooldownV1
	alertAs   string
	evAs      []string
	reviewAs  string
	ledgerAs  string
	cooldErr  error
	freeze    *contracts.FreezeV1
	freezeAs  string
	freezeErr error
	telemetry *natsport.Telemetry
	asked     []string
	// byRef sends the evidence as references to envelopes stored in a fake
	// agentk_evidence (unreadable with evErr); tamper, when set, edits the
	// stored envelopes and the references before the review is sealed.
	byRef  bool
	evErr  error
	tamper func(w *world, stored map[string][]byte, refs []contracts.EvidenceRef)
	// noResolver leaves the handler without an evidence resolver.
	noResolver bool
	// delivery is the review's delivery count (1 when zero); deliveries is
	// the handler's Deliveries; ledgerErr makes the release ledgers
	// unreadable.
	delivery   int
	deliveries int
	ledgerErr  error
	// keyErr makes every store's read of its keys fail with its error.
	keyErr map[string]error
	// others are the deployer-signed ledgers of other services, and extra
	// sandbox services beside svc (a derived decision's origin).
	others  []contracts.ReleaseLedgerV1
	sandbox []string
}

var peakCalls = 1.0

func newWorld(t testing.TB) *world {
	best := contracts.Claim{ID: "c1", Class: "bad_release", Statement: "v2 returns 500 on /checkout", Confidence: 0.9, EvidenceIDs: []string{"ev-1", "ev-2"}}
	return &world{
		k: newKeys(t),
		alert: contracts.AlertV1{IncidentID: "inc-1", Status: contracts.AlertFiring, Service: svc, StartsAt: tStarts,
			BurnRate: 6, BurnRateSource: "labels.burn_rate", Labels: map[string]string{"burn_rate": "6"}},
		evidence: []contracts.EvidenceV1{
			{ID: "ev-1", InvestigationID: "inv-1", Service: svc, Tool: contracts.ToolServiceOverview, From: tStarts.Add(-2 * time.Hour), To: tNow,
				Facts: contracts.Facts{Onset: &tOnset, Release: &contracts.ReleaseErrors{Version: "v2", FirstSeen: tMarker, HistoryMinutes: 60,
					Requests: 200, Errors: 80, NewSignature: "panic: runtime error", NewErrors: 78,
					OtherVersions: &contracts.OtherVersionErrors{HistoryRequests: 2400, HistoryErrors: 3}}, PeakCallRatio: &peakCalls}},
			{ID: "ev-2", InvestigationID: "inv-1", Service: svc, Tool: contracts.ToolDeploymentMarkers, From: tStarts.Add(-2 * time.Hour), To: tNow,
				Facts: contracts.Facts{MarkerQuery: true, DeploymentMarkers: []contracts.DeploymentMarker{{Service: svc, Version: "v2", At: tMarker}}}},
		},
		review: contracts.ReviewV1{ReviewID: "review.inv-1", InvestigationID: "inv-1", IncidentID: "inc-1", Service: svc,
			Kept: []contracts.Claim{best}, Best: &best, InvestigationCompleted: true},
		ledger: contracts.ReleaseLedgerV1{Project: "shop", Service: svc, Releases: []contracts.Release{
			{Version: "v1", Image: "shop-api:v1", DeployedAt: tMarker.Add(-48 * time.Hour)}, {Version: "v2", Image: "shop-api:v2", DeployedAt: tMarker}}},
		alertAs: envelope.RoleIngester, evAs: []string{envelope.RoleSandbox, envelope.RoleSandbox},
		reviewAs: envelope.RoleReviewer, ledgerAs: envelope.RoleDeployer, freezeAs: envelope.RoleBridge,
	}
}

func (w *world) run(t *testing.T) ([]bus.Out, error) {
	t.Helper()
	at := tNow.Add(-time.Minute)
	r := w.review
	r.Alert = w.k.seal(t, w.alertAs, contracts.SubjectAlert, w.alert, at)
	r.Evidence = nil
	stored := map[string][]byte{}
	for i, e := range w.evidence {
		raw := w.k.seal(t, w.evAs[i], contracts.SubjectEvidence, e, at)
		if !w.byRef {
			r.Evidence = append(r.Evidence, raw)
			continue
		}
		env, err := envelope.Parse(raw)
		require.NoError(t, err)
		ref := contracts.RefTo(e.ID, env)
		stored[ref.Digest] = raw
		r.EvidenceRefs = append(r.EvidenceRefs, ref)
	}
	if w.tamper != nil {
		w.tamper(w, stored, r.EvidenceRefs)
	}
	var evs *evidence.Resolver
	if !w.noResolver {
		evs = evidence.NewResolver(w.k.ring, kv{vals: stored, err: w.evErr})
	}
	cool := kv{vals: map[string][]byte{}, err: w.cooldErr, keyErr: w.keyErr, asked: &w.asked}
	if w.cooldown != nil {
		cool.vals[svc] = w.k.seal(t, envelope.RoleDeployer, contracts.SubjectCooldown, w.cooldown, at)
	}
	frz := kv{vals: map[string][]byte{}, err: w.freezeErr, keyErr: w.keyErr, asked: &w.asked}
	if w.freeze != nil {
		frz.vals[w.freeze.Scope] = w.k.seal(t, w.freezeAs, contracts.SubjectFreeze, w.freeze, at)
	}
	cfg := policy.DefaultConfig()
	cfg.SandboxServices = append([]string{svc}, w.sandbox...)
	ledgers := map[string][]byte{svc: w.k.seal(t, w.ledgerAs, contracts.SubjectLedger, w.ledger, at)}
	for _, l := range w.others {
		ledgers[l.Service] = w.k.seal(t, envelope.RoleDeployer, contracts.SubjectLedger, l, at)
	}
	h := &natsport.Handler{
		Keyring: w.k.ring, Signer: w.k.signers[envelope.RoleGate], Now: func() time.Time { return tNow }, Config: cfg,
		Cooldowns: cool, Freezes: frz, Evidence: evs,
		Releases: kv{vals: ledgers, err: w.ledgerErr, keyErr: w.keyErr, asked: &w.asked}, Deliveries: w.deliveries,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Telemetry: w.telemetry,
	}
	return h.Handle(context.Background(), bus.Message{Subject: contracts.SubjectReview, Data: w.k.seal(t, w.reviewAs, contracts.SubjectReview, r, at), Delivery: max(w.delivery, 1)})
}

// decision opens the single published decision as the deployer would.
func (w *world) decision(t *testing.T, outs []bus.Out) (contracts.DecisionV1, envelope.Envelope) {
	t.Helper()
	require.Len(t, outs, 1)
	var d contracts.DecisionV1
	env, err := w.k.ring.Open(outs[0].Envelope.Marshal(), contracts.SubjectDecision, tNow, &d)
	require.NoError(t, err)
	require.Equal(t, d.DecisionID, outs[0].MsgID)
	return d, env
}

func TestHandleAllowsAndSigns(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	outs, err := w.run(t)
	require.NoError(t, err)
	d, env := w.decision(t, outs)
	require.Equal(t, contracts.VerdictAllow, d.Verdict, "%+v", d.Checks)
	require.Equal(t, "decision.review.inv-1", d.DecisionID)
	require.Equal(t, "shop-api:v1", d.RollbackTarget)
	require.Equal(t, tNow.Add(15*time.Minute), env.Expires())
	require.Equal(t, d.ExpiresAt, env.Expires())
	require.NotEmpty(t, env.Nonce)
	require.Equal(t, envelope.Digest(env.Payload), env.Digest())

	_, err = w.k.ring.Open(outs[0].Envelope.Marshal(), contracts.SubjectDecision, tNow.Add(15*time.Minute), &d)
	require.ErrorIs(t, err, envelope.ErrExpired, "an approval cannot act on an expired decision")

	again, err := w.run(t)
	require.NoError(t, err)
	require.Equal(t, outs[0].MsgID, again[0].MsgID, "a redelivered review dedups on the decision id")
}

func TestHandleDeniesUnverifiedInputs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		mutate func(w *world)
		failed []string
	}{
		{"alert signed by the investigator", func(w *world) { w.alertAs = envelope.RoleInvestigator },
			[]string{contracts.CheckSLOBreach, contracts.CheckCooldown, contracts.CheckDeploymentRelated, contracts.CheckSandboxScope}},
		{"marker evidence signed by the investigator", func(w *world) { w.evAs[1] = envelope.RoleInvestigator },
			[]string{contracts.CheckDeploymentRelated}},
		{"onset evidence signed by the reviewer", func(w *world) { w.evAs[0] = envelope.RoleReviewer },
			[]string{contracts.CheckDeploymentRelated}},
		{"real evidence of another investigation", func(w *world) { w.evidence[1].InvestigationID = "inv-0" },
			[]string{contracts.CheckDeploymentRelated}},
		{"cooldown store unreadable", func(w *world) { w.cooldErr = errors.New("nats: timeout") },
			[]string{contracts.CheckCooldown}},
		{"cooldown recent", func(w *world) {
			w.cooldown = &contracts.CooldownV1{Service: svc, ActionID: "a1", At: tNow.Add(-5 * time.Minute)}
		}, []string{contracts.CheckCooldown}},
		{"ledger signed by the gate itself", func(w *world) { w.ledgerAs = envelope.RoleGate },
			[]string{contracts.CheckDeploymentRelated}},
		{"service frozen by an approver", func(w *world) { w.freeze = frozen(svc, tNow.Add(time.Hour)) },
			[]string{contracts.CheckFreeze}},
		{"every service frozen", func(w *world) { w.freeze = frozen(contracts.FreezeGlobal, tNow.Add(time.Hour)) },
			[]string{contracts.CheckFreeze}},
		{"freeze forged with the gate's own key", func(w *world) {
			w.freeze, w.freezeAs = frozen(svc, tNow.Add(time.Hour)), envelope.RoleGate
			w.freeze.Active = false
		}, []string{contracts.CheckFreeze}},
		{"freeze store unreadable", func(w *world) { w.freezeErr = errors.New("nats: timeout") },
			[]string{contracts.CheckFreeze}},
		{"alert without a service", func(w *world) { w.alert.Service, w.review.Service = "", "" },
			[]string{contracts.CheckCooldown, contracts.CheckDeploymentRelated, contracts.CheckSandboxScope}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			tc.mutate(w)
			outs, err := w.run(t)
			require.NoError(t, err, "a denial is a decision, signed and published")
			d, _ := w.decision(t, outs)
			require.Equal(t, contracts.VerdictDeny, d.Verdict)
			require.Equal(t, tc.failed, d.FailedChecks, "%+v", d.Checks)
			require.NotEmpty(t, d.NextStep)
		})
	}
}

// TestUnreadableStateIsReadAgain: an action ledger, release ledger or freeze
// store that gives no answer (the partition of run 3, stop 42: "the action
// ledger could not be read (read shop-api: context deadline exceeded)")
// redelivers the review until its last delivery, which decides closed; an
// absent key, a bad signature or a key that cannot be one are answers, and
// decide at once.
func TestUnreadableStateIsReadAgain(t *testing.T) {
	t.Parallel()
	timeout := fmt.Errorf("bus: kv agentk_cooldown get shop-api from the stream leader: %w", context.DeadlineExceeded)
	cases := []struct {
		name   string
		mutate func(w *world)
		failed string
	}{
		{"action ledger", func(w *world) { w.cooldErr = timeout }, contracts.CheckCooldown},
		{"release ledger", func(w *world) { w.ledgerErr = nats.ErrNoResponders }, contracts.CheckDeploymentRelated},
		{"freezes", func(w *world) { w.freezeErr = nats.ErrTimeout }, contracts.CheckFreeze},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for delivery := 1; delivery < 5; delivery++ {
				w := newWorld(t)
				tc.mutate(w)
				w.deliveries, w.delivery = 5, delivery
				outs, err := w.run(t)
				require.Error(t, err, "delivery %d of 5 decides nothing on a store that did not answer", delivery)
				require.False(t, bus.IsPermanent(err), "redelivered, not dead-lettered: %v", err)
				require.Empty(t, outs)
			}
			w := newWorld(t)
			tc.mutate(w)
			w.deliveries, w.delivery = 5, 5
			outs, err := w.run(t)
			require.NoError(t, err, "the last delivery decides: a denial a human sees, not a dead letter")
			d, _ := w.decision(t, outs)
			require.Equal(t, contracts.VerdictDeny, d.Verdict)
			require.Contains(t, d.FailedChecks, tc.failed)

			w = newWorld(t)
			w.deliveries, w.delivery = 5, 2
			outs, err = w.run(t)
			require.NoError(t, err, "the store answers on a later delivery")
			d, _ = w.decision(t, outs)
			require.Equal(t, contracts.VerdictAllow, d.Verdict, "%+v", d.Checks)
		})
	}
	t.Run("answers decide at once", func(t *testing.T) {
		t.Parallel()
		for name, mutate := range map[string]func(w *world){
			"recent cooldown": func(w *world) {
				w.cooldown = &contracts.CooldownV1{Service: svc, ActionID: "a1", At: tNow.Add(-5 * time.Minute)}
			},
			"ledger signed by the gate": func(w *world) { w.ledgerAs = envelope.RoleGate },
			"invalid key":               func(w *world) { w.cooldErr = jetstream.ErrInvalidKey },
		} {
			w := newWorld(t)
			mutate(w)
			w.deliveries, w.delivery = 5, 1
			outs, err := w.run(t)
			require.NoError(t, err, name)
			d, _ := w.decision(t, outs)
			require.Equal(t, contracts.VerdictDeny, d.Verdict, name)
		}
	})
}

func TestHandleRejectsUnverifiedReview(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		mutate func(w *world)
	}{
		{"signed by the investigator", func(w *world) { w.reviewAs = envelope.RoleInvestigator }},
		{"no review id", func(w *world) { w.review.ReviewID = "" }},
		{"no investigation id", func(w *world) { w.review.InvestigationID = "" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			tc.mutate(w)
			outs, err := w.run(t)
			require.Empty(t, outs)
			require.ErrorIs(t, err, natsport.ErrReview)
			require.True(t, bus.IsPermanent(err), "redelivery cannot fix a forged review")
		})
	}
}

func TestTelemetryRecordsEveryCheck(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	tel, err := natsport.NewTelemetry(tp, mp)
	require.NoError(t, err)

	w := newWorld(t)
	w.telemetry = tel
	w.evidence[1].Facts.DeploymentMarkers = nil
	_, err = w.run(t)
	require.NoError(t, err)

	spans := rec.Ended()
	require.Len(t, spans, 1)
	attrs := map[attribute.Key]attribute.Value{}
	for _, a := range spans[0].Attributes() {
		attrs[a.Key] = a.Value
	}
	require.Equal(t, "deny", attrs["agentk.gate.verdict"].AsString())
	require.Equal(t, []string{"deployment_related"}, attrs["agentk.gate.failed_checks"].AsStringSlice())
	for _, c := range []string{"slo_breach", "allowlist", "cooldown", "confidence", "deployment_related", "sandbox_scope"} {
		_, ok := attrs[attribute.Key("agentk.gate.check."+c+".passed")]
		require.True(t, ok, c)
	}
	require.Equal(t, "2026-11-30T10:05:00Z", attrs["agentk.gate.check.deployment_related.input.onset"].AsString())
	require.Equal(t, "6", attrs["agentk.gate.check.slo_breach.input.burn_rate"].AsString())

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				for _, kv := range dp.Attributes.ToSlice() {
					got[m.Name+"/"+kv.Value.AsString()] += dp.Value
				}
			}
		}
	}
	require.Equal(t, map[string]int64{"agentk.gate.decisions/deny": 1, "agentk.gate.check_failures/deployment_related": 1}, got)
}

func frozen(scope string, until time.Time) *contracts.FreezeV1 {
	return &contracts.FreezeV1{FreezeID: "fz-1", Scope: scope, Active: true, Reason: "change freeze", By: "alice",
		Channel: contracts.ChannelCLI, At: tNow.Add(-time.Hour), ExpiresAt: until}
}

func TestHandleFreezeExpires(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.freeze = frozen(svc, tNow)
	outs, err := w.run(t)
	require.NoError(t, err)
	d, _ := w.decision(t, outs)
	require.Equal(t, contracts.VerdictAllow, d.Verdict, "a freeze that expired at the decision time no longer holds: %+v", d.Checks)
}

// The decision carries the ingester-signed alert byte for byte when it
// verified, and nothing when it did not.
func TestDecisionCarriesTheVerifiedAlert(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		alertAs string
		carried bool
	}{
		{name: "ingester-signed alert", alertAs: envelope.RoleIngester, carried: true},
		{name: "alert signed by the investigator", alertAs: envelope.RoleInvestigator},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w.alertAs = tc.alertAs
			outs, err := w.run(t)
			require.NoError(t, err)
			d, _ := w.decision(t, outs)
			if !tc.carried {
				require.Empty(t, d.Alert)
				return
			}
			var a contracts.AlertV1
			_, err = w.k.ring.Open(d.Alert, contracts.SubjectAlert, tNow, &a)
			require.NoError(t, err)
			require.Equal(t, "inc-1", a.IncidentID)
			require.Equal(t, svc, a.Service)
		})
	}
}

// TestHostileServiceNameNeverBecomesAKVKey is issue 19's critical defect: a
// 100 KB service.name became the gate's KV key, the server closed the gate's
// connection ("maximum control line exceeded") and the gate stopped. The
// name is refused before any KV read, the checks it feeds fail closed, and
// the review still gets its (denied) decision, so nothing is redelivered.
func TestHostileServiceNameNeverBecomesAKVKey(t *testing.T) {
	t.Parallel()
	for _, name := range []string{strings.Repeat("s", 100<<10), "shop\x00api", "shop.*"} {
		w := newWorld(t)
		w.alert.Service, w.review.Service = name, name
		outs, err := w.run(t)
		require.NoError(t, err, "a denial is a decision, not a poison message")
		d, _ := w.decision(t, outs)
		require.Equal(t, contracts.VerdictDeny, d.Verdict)
		require.Contains(t, d.FailedChecks, contracts.CheckCooldown)
		for _, k := range w.asked {
			require.NoError(t, bus.SafeKey(k), "the gate read an unsafe KV key of %d bytes", len(k))
		}
	}
}

// TestHandleResolvesEvidenceByReference: a review that names its evidence
// by {id, digest} is decided on the envelopes stored under those digests,
// and only on envelopes that match and verify; anything else fails the
// checks that need the evidence, and an unreadable store decides nothing.
func TestHandleResolvesEvidenceByReference(t *testing.T) {
	t.Parallel()
	noMarker := func(w *world) { w.evidence[1].Facts.DeploymentMarkers = nil }
	cases := []struct {
		name   string
		mutate func(w *world)
		failed []string
	}{
		{"stored and verified", func(w *world) {}, []string{}},
		{"marker evidence still missing from the store on the last tries", func(w *world) {
			w.delivery = evidence.MissingDeliveries
			w.tamper = func(_ *world, stored map[string][]byte, refs []contracts.EvidenceRef) { delete(stored, refs[1].Digest) }
		}, []string{contracts.CheckDeploymentRelated}},
		{"a sandbox-signed marker stored under the digest of evidence that had none", func(w *world) {
			noMarker(w)
			w.tamper = func(w *world, stored map[string][]byte, refs []contracts.EvidenceRef) {
				withMarker := newWorld(t).evidence[1]
				stored[refs[1].Digest] = w.k.seal(t, envelope.RoleSandbox, contracts.SubjectEvidence, withMarker, tNow.Add(-time.Minute))
			}
		}, []string{contracts.CheckDeploymentRelated}},
		{"reference names another evidence id", func(w *world) {
			w.tamper = func(_ *world, _ map[string][]byte, refs []contracts.EvidenceRef) { refs[1].ID = "ev-9" }
		}, []string{contracts.CheckDeploymentRelated}},
		{"stored marker evidence signed by the investigator", func(w *world) { w.evAs[1] = envelope.RoleInvestigator },
			[]string{contracts.CheckDeploymentRelated}},
		{"no evidence store", func(w *world) { w.noResolver = true },
			[]string{contracts.CheckDeploymentRelated}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w.byRef = true
			tc.mutate(w)
			outs, err := w.run(t)
			require.NoError(t, err)
			d, _ := w.decision(t, outs)
			require.Equal(t, tc.failed, d.FailedChecks, "%+v", d.Checks)
			if len(tc.failed) > 0 {
				require.Equal(t, contracts.VerdictDeny, d.Verdict)
			} else {
				require.Equal(t, contracts.VerdictAllow, d.Verdict)
			}
		})
	}

	retried := []struct {
		name   string
		mutate func(w *world)
		want   error
	}{
		{"store unreadable", func(w *world) { w.evErr = errors.New("nats: timeout") }, evidence.ErrStore},
		{"evidence missing on an early delivery (a replica behind the write)", func(w *world) {
			w.delivery = evidence.MissingDeliveries - 1
			w.tamper = func(_ *world, stored map[string][]byte, refs []contracts.EvidenceRef) { delete(stored, refs[1].Digest) }
		}, evidence.ErrMissing},
	}
	for _, tc := range retried {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w.byRef = true
			tc.mutate(w)
			outs, err := w.run(t)
			require.ErrorIs(t, err, tc.want)
			require.False(t, bus.IsPermanent(err), "redelivered, not dead-lettered at once")
			require.Empty(t, outs, "nothing is decided")
		})
	}
}
