package incidents_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/ingester/internal/incidents"
	"agentk/services/ingester/webhook"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)

func alert(service, rule, fp string, startsAt time.Time, status string) contracts.AlertV1 {
	return contracts.AlertV1{
		IncidentID: webhook.IncidentID(service, rule, startsAt), Status: status, Service: service,
		RuleID: rule, StartsAt: startsAt, Fingerprint: fp, BurnRate: 2,
	}
}

func TestLifecycleOfOneIncident(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	kv, p := newKV(), newPub()
	x := incidents.New(kv, p, 4, 15*time.Minute)
	s1 := t0.Add(-5 * time.Minute)
	first := alert("shop-api", "r1", "fp1", s1, contracts.AlertFiring)

	steps := []struct {
		name string
		a    contracts.AlertV1
		want incidents.Outcome
	}{
		{"first alert opens", first, incidents.Opened},
		{"repeat delivery is a duplicate", first, incidents.Duplicate},
		{"second alert of the rule attaches", alert("shop-api", "r1", "fp2", s1.Add(time.Minute), contracts.AlertFiring), incidents.Attached},
		{"first resolves, second still fires", alert("shop-api", "r1", "fp1", s1, contracts.AlertResolved), incidents.PartlyResolved},
		{"second resolves: closed", alert("shop-api", "r1", "fp2", s1.Add(time.Minute), contracts.AlertResolved), incidents.Resolved},
		{"resolved again: nothing open", alert("shop-api", "r1", "fp2", s1.Add(time.Minute), contracts.AlertResolved), incidents.ResolvedUnknown},
		{"fires again later: a new incident", alert("shop-api", "r1", "fp1", t0.Add(time.Hour), contracts.AlertFiring), incidents.Opened},
	}
	var ids []string
	for _, s := range steps {
		r, err := x.Ingest(ctx, s.a, t0)
		require.NoError(t, err, s.name)
		require.Equal(t, s.want, r.Outcome, s.name)
		ids = append(ids, r.IncidentID)
	}
	for i := 1; i < 5; i++ {
		require.Equal(t, ids[0], ids[i], "steps 1-5 share the first incident")
	}
	require.NotEqual(t, ids[0], ids[6])

	msgs := p.published()
	require.Len(t, msgs, 4, "open, close, the resolved-unknown record, the second open")
	require.Equal(t, contracts.AlertFiring, msgs[0].Status)
	require.Equal(t, contracts.AlertResolved, msgs[1].Status)
	require.Equal(t, ids[0], msgs[1].IncidentID, "the closing alert carries the incident's id")
}

func TestTestAndNoDataAreNeverInvestigated(t *testing.T) {
	t.Parallel()
	kv, p := newKV(), newPub()
	x := incidents.New(kv, p, 4, time.Hour)
	test := alert("", "Test Alert (agentk)", "t", t0, contracts.AlertFiring)
	test.Test = true
	r, err := x.Ingest(context.Background(), test, t0)
	require.NoError(t, err)
	require.Equal(t, incidents.TestAck, r.Outcome)
	require.Empty(t, p.published())

	nodata := alert("shop-api", "31", "n", t0, contracts.AlertFiring)
	nodata.NoData = true
	r, err = x.Ingest(context.Background(), nodata, t0)
	require.NoError(t, err)
	require.Equal(t, incidents.NoData, r.Outcome)
	require.Len(t, p.published(), 1, "recorded on the bus")
	require.True(t, p.published()[0].NoData, "marked, so the investigator skips it")
	keys, err := kv.Keys(context.Background(), ">")
	require.NoError(t, err)
	require.Equal(t, []string{nodata.IncidentID}, keys, "listed (issue 19), but no incident opened: no index, no slot")
	e, err := kv.Get(context.Background(), nodata.IncidentID)
	require.NoError(t, err)
	require.Contains(t, string(e.Value), `"state":"no_data"`)
}

func TestBusFailureLeavesARetryableIncident(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	kv, p := newKV(), newPub()
	x := incidents.New(kv, p, 4, time.Hour)
	a := alert("shop-api", "r1", "fp1", t0, contracts.AlertFiring)

	p.fail = errDown
	_, err := x.Ingest(ctx, a, t0)
	require.ErrorIs(t, err, incidents.ErrStore)
	require.Empty(t, p.published())

	p.fail = nil
	r, err := x.Ingest(ctx, a, t0)
	require.NoError(t, err)
	require.Equal(t, incidents.Opened, r.Outcome, "the retry completes the same incident")
	r2, err := x.Ingest(ctx, a, t0)
	require.NoError(t, err)
	require.Equal(t, incidents.Duplicate, r2.Outcome)
	require.Len(t, p.published(), 1)
	require.Equal(t, r.IncidentID, p.published()[0].IncidentID)

	kv.fail = errDown
	_, err = x.Ingest(ctx, alert("payments", "r9", "x", t0, contracts.AlertFiring), t0)
	require.ErrorIs(t, err, incidents.ErrStore)
}

func TestInvestigationLimitQueuesTheRest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	kv, p := newKV(), newPub()
	x := incidents.New(kv, p, 2, 10*time.Minute)
	var outcomes []incidents.Outcome
	for i := range 4 {
		r, err := x.Ingest(ctx, alert(fmt.Sprintf("svc-%d", i), "r", "f", t0, contracts.AlertFiring), t0.Add(time.Duration(i)*time.Second))
		require.NoError(t, err)
		outcomes = append(outcomes, r.Outcome)
	}
	require.Equal(t, []incidents.Outcome{incidents.Opened, incidents.Opened, incidents.Queued, incidents.Queued}, outcomes)
	require.Len(t, p.published(), 2)

	released, err := x.Dispatch(ctx, t0.Add(time.Minute))
	require.NoError(t, err)
	require.Empty(t, released, "no slot free")

	_, err = x.Ingest(ctx, alert("svc-0", "r", "f", t0, contracts.AlertResolved), t0.Add(2*time.Minute))
	require.NoError(t, err)
	released, err = x.Dispatch(ctx, t0.Add(2*time.Minute))
	require.NoError(t, err)
	require.Equal(t, []string{webhook.IncidentID("svc-2", "r", t0)}, released, "oldest queued first")

	released, err = x.Dispatch(ctx, t0.Add(11*time.Minute))
	require.NoError(t, err)
	require.Equal(t, []string{webhook.IncidentID("svc-3", "r", t0)}, released, "an expired lease frees its slot")
}

func TestAdmit(t *testing.T) {
	t.Parallel()
	rec := func(id, state string, opened, released time.Time) incidents.Record {
		return incidents.Record{IncidentID: id, State: state, OpenedAt: opened, ReleasedAt: released}
	}
	tests := []struct {
		name string
		recs []incidents.Record
		max  int
		want []int
	}{
		{"nothing queued", []incidents.Record{rec("a", incidents.StateInvestigating, t0, t0)}, 2, nil},
		{"one slot, oldest first", []incidents.Record{
			rec("a", incidents.StateInvestigating, t0, t0),
			rec("b", incidents.StateQueued, t0.Add(2*time.Second), time.Time{}),
			rec("c", incidents.StateQueued, t0.Add(time.Second), time.Time{}),
		}, 2, []int{2}},
		{"full", []incidents.Record{rec("a", incidents.StateInvestigating, t0, t0), rec("b", incidents.StateQueued, t0, time.Time{})}, 1, nil},
		{"expired lease and resolved free slots", []incidents.Record{
			rec("a", incidents.StateInvestigating, t0, t0.Add(-time.Hour)),
			rec("b", incidents.StateResolved, t0, t0),
			rec("c", incidents.StateQueued, t0, time.Time{}),
			rec("d", incidents.StateQueued, t0, time.Time{}),
		}, 1, []int{2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, incidents.Admit(tc.recs, t0, tc.max, 10*time.Minute))
		})
	}
}

func TestConcurrentStormOpensOneIncidentPerServiceAndRule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	kv, p := newKV(), newPub()
	x := incidents.New(kv, p, 100, time.Hour)
	var wg sync.WaitGroup
	errs := make(chan error, 2000)
	for i := range 2000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			svc := fmt.Sprintf("svc-%d", i%20)
			a := alert(svc, "burn", fmt.Sprintf("fp%d", i), t0.Add(time.Duration(i)*time.Second), contracts.AlertFiring)
			if _, err := x.Ingest(ctx, a, t0); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Len(t, p.published(), 20)
	require.Len(t, kv.firing(), 2000, "every alert attached, none lost")
}

// counting is a KV that counts its calls.
type counting struct {
	*memKV
	mu    sync.Mutex
	calls map[string]int
}

func (c *counting) count(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[op]++
}

func (c *counting) Get(ctx context.Context, key string) (incidents.Entry, error) {
	c.count("get")
	return c.memKV.Get(ctx, key)
}

func (c *counting) Create(ctx context.Context, key string, v []byte) (uint64, error) {
	c.count("create")
	return c.memKV.Create(ctx, key, v)
}

func (c *counting) CreateAsync(ctx context.Context, key string, v []byte) incidents.Pending[uint64] {
	c.count("create")
	return c.memKV.CreateAsync(ctx, key, v)
}

func (c *counting) CreateNewAsync(ctx context.Context, key string, v []byte) incidents.Pending[uint64] {
	c.count("create")
	return c.memKV.CreateNewAsync(ctx, key, v)
}

func (c *counting) Recreate(ctx context.Context, key string, v []byte) (uint64, error) {
	c.count("recreate")
	return c.memKV.Recreate(ctx, key, v)
}

func (c *counting) Update(ctx context.Context, key string, v []byte, rev uint64) (uint64, error) {
	c.count("update")
	return c.memKV.Update(ctx, key, v, rev)
}

func (c *counting) Keys(ctx context.Context, filter string) ([]string, error) {
	c.count("keys")
	return c.memKV.Keys(ctx, filter)
}

// TestOpeningIsConstantWork: a new incident of a rule that never fired is
// the index key, then the record (standing for its alert's fp key) and the
// publication (two round trips, the second of concurrent calls; no read:
// its id cannot have a record), and admission lists the bucket only once per
// process, not on every alert. A rule that fired before also reads the record, beside
// re-creating its index key.
func TestOpeningIsConstantWork(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	kv := &counting{memKV: newKV(), calls: map[string]int{}}
	p := newPub()
	x := incidents.New(kv, p, 1000, time.Hour)
	const n = 200
	for i := range n {
		r, err := x.Ingest(ctx, alert(fmt.Sprintf("svc-%d", i), "r", "f", t0, contracts.AlertFiring), t0)
		require.NoError(t, err)
		require.Equal(t, incidents.Opened, r.Outcome)
	}
	require.Equal(t, map[string]int{"keys": 1, "create": 2 * n}, kv.calls)
	require.Len(t, p.published(), n)

	clear(kv.calls)
	for i := range n {
		for _, status := range []string{contracts.AlertResolved, contracts.AlertFiring} {
			_, err := x.Ingest(ctx, alert(fmt.Sprintf("svc-%d", i), "r", "f", t0.Add(time.Duration(i+1)*time.Second), status), t0)
			require.NoError(t, err)
		}
	}
	require.Equal(t, n, kv.calls["recreate"], "each rule's key re-created")
	require.Equal(t, 4*n, kv.calls["get"], "the resolve reads the key and the record (for its opening alert, then to close it); the opening reads the record")
	require.Len(t, p.published(), 3*n)
}

// TestARetryAfterARestartRepublishes: the record of an opening was written
// but its publication failed, and the ingester restarted. The sender's retry
// publishes the alert (under the same Nats-Msg-Id); a later re-delivery of
// the delivered alert is a duplicate and publishes nothing new.
func TestARetryAfterARestartRepublishes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	kv, p := newKV(), newPub()
	a := alert("shop-api", "r1", "fp1", t0, contracts.AlertFiring)
	p.fail = errDown
	_, err := incidents.New(kv, p, 4, time.Hour).Ingest(ctx, a, t0)
	require.ErrorIs(t, err, incidents.ErrStore)
	require.Equal(t, incidents.StateInvestigating, state(t, kv, a.IncidentID).State, "the record was written")
	require.Empty(t, p.published())

	p.fail = nil
	restarted := incidents.New(kv, p, 4, time.Hour)
	r, err := restarted.Ingest(ctx, a, t0.Add(10*time.Second))
	require.NoError(t, err)
	require.Equal(t, incidents.Opened, r.Outcome)
	require.Len(t, p.published(), 1)

	r, err = incidents.New(kv, p, 4, time.Hour).Ingest(ctx, a, t0.Add(20*time.Second))
	require.NoError(t, err)
	require.Equal(t, incidents.Duplicate, r.Outcome)
	require.Len(t, p.published(), 1)

	calls := p.calls
	r, err = restarted.Ingest(ctx, a, t0.Add(incidents.RedeliveryWindow+time.Second))
	require.NoError(t, err)
	require.Equal(t, incidents.Duplicate, r.Outcome)
	require.Equal(t, calls, p.calls, "past the window, a repeat notification is not published again")
}

// TestDispatchReadsTheBucketOnlyWhenItMayRelease: an idle tick (nothing
// queued that this process knows of, no slot freed) lists nothing; an
// incident another replica queued is released once a decision frees a slot,
// or at the latest RescanEvery later.
func TestDispatchReadsTheBucketOnlyWhenItMayRelease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	kv := &counting{memKV: newKV(), calls: map[string]int{}}
	p := newPub()
	x := incidents.New(kv, p, 1, time.Hour)
	first, err := x.Ingest(ctx, alert("a", "r", "f", t0, contracts.AlertFiring), t0)
	require.NoError(t, err)
	require.Equal(t, incidents.Opened, first.Outcome)
	_, err = x.Dispatch(ctx, t0.Add(time.Second))
	require.NoError(t, err)
	lists := kv.calls["keys"]
	_, err = x.Dispatch(ctx, t0.Add(2*time.Second))
	require.NoError(t, err)
	require.Equal(t, lists, kv.calls["keys"], "an idle tick reads nothing")

	other := incidents.New(kv, p, 1, time.Hour) // another replica, its slot taken
	queued, err := other.Ingest(ctx, alert("b", "r", "f", t0, contracts.AlertFiring), t0.Add(3*time.Second))
	require.NoError(t, err)
	require.Equal(t, incidents.Queued, queued.Outcome)
	released, err := x.Dispatch(ctx, t0.Add(4*time.Second))
	require.NoError(t, err)
	require.Empty(t, released, "no slot free")
	_, err = x.Decided(ctx, first.IncidentID, contracts.VerdictDeny, t0.Add(5*time.Second))
	require.NoError(t, err)
	released, err = x.Dispatch(ctx, t0.Add(6*time.Second))
	require.NoError(t, err)
	require.Equal(t, []string{queued.IncidentID}, released, "the freed slot makes the dispatch read the bucket")

	late := incidents.New(kv, p, 2, time.Hour)
	_, err = late.Dispatch(ctx, t0.Add(7*time.Second)) // reads the bucket: its first
	require.NoError(t, err)
	elsewhere, err := incidents.New(kv, p, 0, time.Hour).Ingest(ctx, alert("c", "r", "f", t0, contracts.AlertFiring), t0.Add(8*time.Second))
	require.NoError(t, err)
	require.Equal(t, incidents.Queued, elsewhere.Outcome)
	released, err = late.Dispatch(ctx, t0.Add(9*time.Second))
	require.NoError(t, err)
	require.Empty(t, released, "an idle replica reads the bucket once a minute")
	released, err = late.Dispatch(ctx, t0.Add(7*time.Second+incidents.RescanEvery))
	require.NoError(t, err)
	require.Equal(t, []string{elsewhere.IncidentID}, released)
}

// TestADecisionReadsOneKeyWhenNothingIsQueued: a decision that frees a slot
// while no replica has queued an incident reads QueuedKey alone, not every
// record; once another replica queues, the next freed slot reads the bucket
// and releases it.
func TestADecisionReadsOneKeyWhenNothingIsQueued(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	kv := &counting{memKV: newKV(), calls: map[string]int{}}
	p := newPub()
	x := incidents.New(kv, p, 2, time.Hour)
	var opened []string
	for i, rule := range []string{"r1", "r2"} {
		r, err := x.Ingest(ctx, alert("a", rule, "f", t0, contracts.AlertFiring), t0.Add(time.Duration(i)*time.Second))
		require.NoError(t, err)
		require.Equal(t, incidents.Opened, r.Outcome)
		opened = append(opened, r.IncidentID)
	}
	_, err := x.Dispatch(ctx, t0.Add(2*time.Second)) // its first reading
	require.NoError(t, err)
	lists := kv.calls["keys"]
	_, err = x.Decided(ctx, opened[0], contracts.VerdictDeny, t0.Add(3*time.Second))
	require.NoError(t, err)
	released, err := x.Dispatch(ctx, t0.Add(4*time.Second))
	require.NoError(t, err)
	require.Empty(t, released)
	require.Equal(t, lists, kv.calls["keys"], "nothing queued anywhere: the freed slot lists no keys")

	other := incidents.New(kv, p, 0, time.Hour) // another replica, no slot to give
	queued, err := other.Ingest(ctx, alert("b", "r", "f", t0, contracts.AlertFiring), t0.Add(5*time.Second))
	require.NoError(t, err)
	require.Equal(t, incidents.Queued, queued.Outcome)
	_, err = x.Decided(ctx, opened[1], contracts.VerdictDeny, t0.Add(6*time.Second))
	require.NoError(t, err)
	released, err = x.Dispatch(ctx, t0.Add(7*time.Second))
	require.NoError(t, err)
	require.Equal(t, []string{queued.IncidentID}, released, "QueuedKey moved: the freed slot reads the bucket")
}

// TestConcurrentOpeningsKeepTheLimit: many deliveries of each incident at
// once (one id, several fingerprints) never release more incidents than
// the limit, and a decision frees exactly one slot.
func TestConcurrentOpeningsKeepTheLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	kv, p := newKV(), newPub()
	x := incidents.New(kv, p, 3, time.Hour)
	var wg sync.WaitGroup
	for i := range 400 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := alert(fmt.Sprintf("svc-%d", i%10), "burn", fmt.Sprintf("fp%d", i), t0, contracts.AlertFiring)
			_, err := x.Ingest(ctx, a, t0)
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	require.Len(t, p.published(), 3)
	states := map[string]int{}
	var investigating []string
	for i := range 10 {
		rec := state(t, kv, webhook.IncidentID(fmt.Sprintf("svc-%d", i), "burn", t0))
		states[rec.State]++
		if rec.State == incidents.StateInvestigating {
			investigating = append(investigating, rec.IncidentID)
		}
	}
	require.Equal(t, map[string]int{incidents.StateInvestigating: 3, incidents.StateQueued: 7}, states)
	_, err := x.Decided(ctx, investigating[0], contracts.VerdictDeny, t0.Add(time.Second))
	require.NoError(t, err)
	released, err := x.Dispatch(ctx, t0.Add(2*time.Second))
	require.NoError(t, err)
	require.Len(t, released, 1)
	require.Len(t, p.published(), 4)
}

// TestAKnownIncidentResolvedElsewhereIsNotAttachedTo: this process attaches
// the alerts of an incident it saw open in one round trip; once another
// replica resolved it, the next alert of the rule opens a new incident and
// leaves nothing under the closed one.
func TestAKnownIncidentResolvedElsewhereIsNotAttachedTo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	kv, p := newKV(), newPub()
	x, other := incidents.New(kv, p, 4, time.Hour), incidents.New(kv, p, 4, time.Hour)
	first := alert("shop-api", "r1", "fp1", t0, contracts.AlertFiring)
	r, err := x.Ingest(ctx, first, t0)
	require.NoError(t, err)
	require.Equal(t, incidents.Opened, r.Outcome)
	r, err = x.Ingest(ctx, alert("shop-api", "r1", "fp2", t0.Add(time.Minute), contracts.AlertFiring), t0)
	require.NoError(t, err)
	require.Equal(t, incidents.Attached, r.Outcome)
	require.Equal(t, first.IncidentID, r.IncidentID)

	for _, fp := range []string{"fp1", "fp2"} {
		_, err = other.Ingest(ctx, alert("shop-api", "r1", fp, t0, contracts.AlertResolved), t0.Add(2*time.Minute))
		require.NoError(t, err)
	}
	require.Equal(t, incidents.StateResolved, state(t, kv, first.IncidentID).State)

	next := alert("shop-api", "r1", "fp3", t0.Add(3*time.Minute), contracts.AlertFiring)
	r, err = x.Ingest(ctx, next, t0.Add(3*time.Minute))
	require.NoError(t, err)
	require.Equal(t, incidents.Opened, r.Outcome)
	require.Equal(t, next.IncidentID, r.IncidentID)
	left, err := kv.Keys(ctx, "fp."+first.IncidentID+".*")
	require.NoError(t, err)
	require.Empty(t, left, "nothing attached to the closed incident")
}

// TestMsgIDIsStable pins the Nats-Msg-Id format: JetStream deduplicates a
// retried publication by it, so a change would republish across a restart.
func TestMsgIDIsStable(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)
	for _, tc := range []struct {
		a    contracts.AlertV1
		want string
	}{
		{contracts.AlertV1{IncidentID: "inc-shop-api-50e13499e2a452ad", Status: contracts.AlertFiring, StartsAt: at}, "alert.inc-shop-api-50e13499e2a452ad.firing.1796034000"},
		{contracts.AlertV1{IncidentID: "i", Status: contracts.AlertResolved, StartsAt: at}, "alert.i.resolved.1796034000"},
		{contracts.AlertV1{IncidentID: "i", Status: contracts.AlertFiring, NoData: true, StartsAt: at}, "alert.i.nodata.1796034000"},
		{contracts.AlertV1{IncidentID: "i", Status: contracts.AlertResolved, NoData: true, StartsAt: at}, "alert.i.nodata-resolved.1796034000"},
		{contracts.AlertV1{IncidentID: "i", Status: contracts.AlertFiring, StartsAt: time.Unix(-5, 0)}, "alert.i.firing.-5"},
	} {
		require.Equal(t, tc.want, incidents.MsgID(tc.a))
	}
}
