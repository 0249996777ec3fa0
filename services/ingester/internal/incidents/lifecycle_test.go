package incidents_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/ingester/internal/incidents"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// state reads the record of id.
func state(t *testing.T, kv *memKV, id string) incidents.Record {
	t.Helper()
	e, err := kv.Get(context.Background(), id)
	require.NoError(t, err, id)
	var rec incidents.Record
	require.NoError(t, json.Unmarshal(e.Value, &rec))
	return rec
}

// TestLifecycleTransitions has one case per row of docs/lifecycle.md's
// table: the state before, the event, the outcome, the state after, and
// what was published.
func TestLifecycleTransitions(t *testing.T) {
	t.Parallel()
	s1 := t0.Add(-5 * time.Minute)
	fire := alert("shop-api", "r1", "fp1", s1, contracts.AlertFiring)
	resolved := alert("shop-api", "r1", "fp1", s1, contracts.AlertResolved)
	other := func(svc string) contracts.AlertV1 { return alert(svc, "r1", "fp1", s1, contracts.AlertFiring) }
	nodata := alert("shop-api", "nd", "n1", s1, contracts.AlertFiring)
	nodata.NoData = true
	nodataResolved := nodata
	nodataResolved.Status = contracts.AlertResolved

	type step struct {
		a   contracts.AlertV1
		dec string // when set: the gate decided this incident id ("" none)
	}
	tests := []struct {
		name      string
		max       int
		before    []step
		event     step
		dispatch  bool // the event is a Dispatch tick
		want      incidents.Outcome
		id        string // the incident whose state is checked (default fire's)
		wantState string
		published int // alerts published by the event
		check     func(t *testing.T, kv *memKV, r incidents.Result)
	}{
		{name: "none + firing, slot free -> investigating", max: 4, event: step{a: fire},
			want: incidents.Opened, wantState: incidents.StateInvestigating, published: 1},
		{name: "none + firing, no slot -> queued", max: 1, before: []step{{a: other("payments")}}, event: step{a: fire},
			want: incidents.Queued, wantState: incidents.StateQueued, published: 0},
		{name: "queued + slot freed by a decision -> investigating", max: 1,
			before: []step{{a: other("payments")}, {a: fire}, {dec: other("payments").IncidentID}}, dispatch: true,
			wantState: incidents.StateInvestigating, published: 1},
		{name: "investigating + same alert again -> duplicate", max: 4, before: []step{{a: fire}}, event: step{a: fire},
			want: incidents.Duplicate, wantState: incidents.StateInvestigating, published: 0},
		{name: "investigating + another alert of the rule -> attached", max: 4, before: []step{{a: fire}},
			event: step{a: alert("shop-api", "r1", "fp2", s1.Add(time.Minute), contracts.AlertFiring)},
			want:  incidents.Attached, wantState: incidents.StateInvestigating, published: 0},
		{name: "investigating + decision -> decided, slot released", max: 1, before: []step{{a: fire}},
			event: step{dec: fire.IncidentID}, wantState: incidents.StateDecided, published: 0,
			check: func(t *testing.T, kv *memKV, _ incidents.Result) {
				require.Equal(t, contracts.VerdictDeny, state(t, kv, fire.IncidentID).Verdict)
			}},
		{name: "decided + firing again (same episode) -> attached, no new investigation", max: 4,
			before: []step{{a: fire}, {dec: fire.IncidentID}},
			event:  step{a: alert("shop-api", "r1", "fp2", s1.Add(time.Minute), contracts.AlertFiring)},
			want:   incidents.Attached, wantState: incidents.StateDecided, published: 0},
		{name: "investigating + last alert resolved -> resolved", max: 4, before: []step{{a: fire}}, event: step{a: resolved},
			want: incidents.Resolved, wantState: incidents.StateResolved, published: 1},
		{name: "decided + resolved -> resolved", max: 4, before: []step{{a: fire}, {dec: fire.IncidentID}}, event: step{a: resolved},
			want: incidents.Resolved, wantState: incidents.StateResolved, published: 1},
		{name: "queued + resolved -> resolved, never investigated", max: 1, before: []step{{a: other("payments")}, {a: fire}},
			event: step{a: resolved}, want: incidents.Resolved, wantState: incidents.StateResolved, published: 1},
		{name: "one of two alerts resolved -> partly resolved", max: 4,
			before: []step{{a: fire}, {a: alert("shop-api", "r1", "fp2", s1.Add(time.Minute), contracts.AlertFiring)}},
			event:  step{a: resolved}, want: incidents.PartlyResolved, wantState: incidents.StateInvestigating, published: 0},
		{name: "none + resolved -> resolved_unknown, recorded on the bus", max: 4, event: step{a: resolved},
			want: incidents.ResolvedUnknown, id: "-", published: 1},
		{name: "resolved + re-fire with the same startsAt (flapping) -> a new incident, investigated", max: 4,
			before: []step{{a: fire}, {a: resolved}}, event: step{a: fire},
			want: incidents.Opened, id: fire.IncidentID + "-r2", wantState: incidents.StateInvestigating, published: 1,
			check: func(t *testing.T, kv *memKV, r incidents.Result) {
				require.Equal(t, fire.IncidentID+"-r2", r.IncidentID)
				require.Equal(t, fire.IncidentID, state(t, kv, r.IncidentID).Reopens)
				require.Equal(t, incidents.StateResolved, state(t, kv, fire.IncidentID).State, "the old incident stays closed")
			}},
		{name: "second flap -> -r3", max: 4,
			before: []step{{a: fire}, {a: resolved}, {a: fire}, {a: resolved}}, event: step{a: fire},
			want: incidents.Opened, id: fire.IncidentID + "-r3", wantState: incidents.StateInvestigating, published: 1},
		{name: "resolved + the flap's own resolve -> resolved", max: 4,
			before: []step{{a: fire}, {a: resolved}, {a: fire}}, event: step{a: resolved},
			want: incidents.Resolved, id: fire.IncidentID + "-r2", wantState: incidents.StateResolved, published: 1},
		{name: "investigating + lease over -> slot free for the queue", max: 1,
			before: []step{{a: other("payments")}, {a: fire}}, dispatch: true,
			wantState: incidents.StateInvestigating, published: 1},
		{name: "none + no-data firing -> no_data, listed, not investigated", max: 4, event: step{a: nodata},
			want: incidents.NoData, id: nodata.IncidentID, wantState: incidents.StateNoData, published: 1},
		{name: "no_data + no-data resolved -> resolved", max: 4, before: []step{{a: nodata}}, event: step{a: nodataResolved},
			want: incidents.NoData, id: nodata.IncidentID, wantState: incidents.StateResolved, published: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			kv, p := newKV(), newPub()
			x := incidents.New(kv, p, tc.max, 10*time.Minute)
			now := t0
			apply := func(s step) incidents.Result {
				now = now.Add(time.Second)
				if s.dec != "" {
					_, err := x.Decided(ctx, s.dec, contracts.VerdictDeny, now)
					require.NoError(t, err)
					return incidents.Result{}
				}
				r, err := x.Ingest(ctx, s.a, now)
				require.NoError(t, err)
				return r
			}
			for _, s := range tc.before {
				apply(s)
			}
			before := len(p.published())
			var r incidents.Result
			switch {
			case tc.dispatch && tc.name == "investigating + lease over -> slot free for the queue":
				_, err := x.Dispatch(ctx, now.Add(11*time.Minute))
				require.NoError(t, err)
			case tc.dispatch:
				_, err := x.Dispatch(ctx, now.Add(time.Second))
				require.NoError(t, err)
			default:
				r = apply(tc.event)
				require.Equal(t, tc.want, r.Outcome)
			}
			require.Len(t, p.published(), before+tc.published)
			id := tc.id
			if id == "" {
				id = fire.IncidentID
			}
			if id != "-" {
				require.Equal(t, tc.wantState, state(t, kv, id).State)
			}
			if tc.check != nil {
				tc.check(t, kv, r)
			}
		})
	}
}

// TestADecidedIncidentReleasesItsSlot is issue 19's "finished incidents keep
// holding investigation slots": with the default four slots all taken, a
// fifth incident queues; the gate's decision on one of the four lets it
// through at the next dispatch, long before any lease runs out.
func TestADecidedIncidentReleasesItsSlot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	kv, p := newKV(), newPub()
	x := incidents.New(kv, p, 4, 15*time.Minute)
	var ids []string
	for _, svc := range []string{"a", "b", "c", "d", "e"} {
		r, err := x.Ingest(ctx, alert(svc, "r", "f", t0, contracts.AlertFiring), t0)
		require.NoError(t, err)
		ids = append(ids, r.IncidentID)
	}
	require.Len(t, p.published(), 4)
	released, err := x.Dispatch(ctx, t0.Add(time.Second))
	require.NoError(t, err)
	require.Empty(t, released)

	changed, err := x.Decided(ctx, ids[0], contracts.VerdictAllow, t0.Add(2*time.Second))
	require.NoError(t, err)
	require.True(t, changed)
	released, err = x.Dispatch(ctx, t0.Add(3*time.Second))
	require.NoError(t, err)
	require.Equal(t, []string{ids[4]}, released)

	changed, err = x.Decided(ctx, ids[0], contracts.VerdictAllow, t0.Add(4*time.Second))
	require.NoError(t, err)
	require.False(t, changed, "a second decision changes nothing")
	changed, err = x.Decided(ctx, "inc-unknown", contracts.VerdictAllow, t0)
	require.NoError(t, err)
	require.False(t, changed)
}

// refusing is a publisher whose bus refuses the alerts of one service for
// their content, as NATS refuses a payload over its maximum.
type refusing struct {
	next    incidents.Publisher
	service string
}

func (r refusing) Publish(ctx context.Context, a incidents.Alert, id string) incidents.Pending[bool] {
	if a.Service == r.service {
		return failed[bool](fmt.Errorf("publish: %w: nats: maximum payload exceeded", incidents.ErrRefused))
	}
	return r.next.Publish(ctx, a, id)
}

// TestARefusedAlertNeverBlocksTheQueue is issue 19's 300 KB alertname: its
// alert was queued, refused by the bus every 5 s, and every incident queued
// behind it waited. Now it is set aside as refused, with the reason, and the
// next queued incident is released.
func TestARefusedAlertNeverBlocksTheQueue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	kv, p := newKV(), newPub()
	x := incidents.New(kv, refusing{next: p, service: "poison"}, 1, 10*time.Minute)
	first := alert("busy", "r", "f", t0, contracts.AlertFiring)
	poison := alert("poison", "r", "f", t0, contracts.AlertFiring)
	behind := alert("behind", "r", "f", t0, contracts.AlertFiring)
	for i, a := range []contracts.AlertV1{first, poison, behind} {
		_, err := x.Ingest(ctx, a, t0.Add(time.Duration(i)*time.Second))
		require.NoError(t, err)
	}
	_, err := x.Decided(ctx, first.IncidentID, contracts.VerdictDeny, t0.Add(time.Minute))
	require.NoError(t, err)
	var released []string
	for i := range 2 { // the refused one costs the tick its slot; the next tick releases
		r, err := x.Dispatch(ctx, t0.Add(time.Minute+time.Duration(i)*time.Second))
		require.NoError(t, err, "a refusal is not a dispatch failure")
		released = append(released, r...)
	}
	require.Equal(t, []string{behind.IncidentID}, released)
	rec := state(t, kv, poison.IncidentID)
	require.Equal(t, incidents.StateRefused, rec.State)
	require.Contains(t, rec.Refusal, "maximum payload exceeded")
}

// TestAReFireNeverRepublishesTheResolvedEpisode: a rule's incident resolved,
// and the same alert fires again (flapping). The rule's index key had a
// value, so the new opening reads the record of its id, finds the resolved
// episode, and publishes the re-fire once, as <id>-r2; the resolved
// episode's alert is never published again under its id (past JetStream's
// de-duplication window it would be stored, and investigated, twice).
func TestAReFireNeverRepublishesTheResolvedEpisode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, restart := range []bool{false, true} {
		kv, p := newKV(), newPub()
		x := incidents.New(kv, p, 4, 10*time.Minute)
		fire := alert("shop-api", "r1", "fp1", t0, contracts.AlertFiring)
		for i, a := range []contracts.AlertV1{fire, alert("shop-api", "r1", "fp1", t0, contracts.AlertResolved)} {
			_, err := x.Ingest(ctx, a, t0.Add(time.Duration(i)*time.Second))
			require.NoError(t, err)
		}
		if restart {
			x = incidents.New(kv, p, 4, 10*time.Minute)
		}
		calls := p.calls
		r, err := x.Ingest(ctx, fire, t0.Add(time.Hour))
		require.NoError(t, err)
		require.Equal(t, incidents.Opened, r.Outcome)
		require.Equal(t, fire.IncidentID+"-r2", r.IncidentID)
		require.Equal(t, 1, p.calls-calls, "one publication: the re-fire's, under its own id (restart %v)", restart)
		require.Equal(t, incidents.StateResolved, state(t, kv, fire.IncidentID).State)
	}
}

// TestTheOpeningAlertCountsAsFiring: a new incident writes no fp key for
// its opening alert (its record stands for it), yet the incident resolves
// only when every alert resolved, whichever resolves first, and a re-fire of
// the resolved opening alert fires again.
func TestTheOpeningAlertCountsAsFiring(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	open := alert("shop-api", "r1", "fp1", t0, contracts.AlertFiring)
	other := alert("shop-api", "r1", "fp2", t0.Add(time.Second), contracts.AlertFiring)
	resolve := func(a contracts.AlertV1) contracts.AlertV1 {
		a.Status = contracts.AlertResolved
		return a
	}
	for _, tc := range []struct {
		name  string
		steps []contracts.AlertV1
		want  []incidents.Outcome
	}{
		{"the opening alert resolves first", []contracts.AlertV1{open, other, resolve(open), resolve(other)},
			[]incidents.Outcome{incidents.Opened, incidents.Attached, incidents.PartlyResolved, incidents.Resolved}},
		{"the other alert resolves first", []contracts.AlertV1{open, other, resolve(other), resolve(open)},
			[]incidents.Outcome{incidents.Opened, incidents.Attached, incidents.PartlyResolved, incidents.Resolved}},
		{"the opening alert again is a duplicate", []contracts.AlertV1{open, open, resolve(open)},
			[]incidents.Outcome{incidents.Opened, incidents.Duplicate, incidents.Resolved}},
		{"the resolved opening alert fires again", []contracts.AlertV1{open, other, resolve(open), open, resolve(other), resolve(open)},
			[]incidents.Outcome{incidents.Opened, incidents.Attached, incidents.PartlyResolved, incidents.Attached, incidents.PartlyResolved, incidents.Resolved}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, restart := range []bool{false, true} {
				kv, p := newKV(), newPub()
				x := incidents.New(kv, p, 4, 10*time.Minute)
				var got []incidents.Outcome
				for i, a := range tc.steps {
					if restart {
						x = incidents.New(kv, p, 4, 10*time.Minute)
					}
					r, err := x.Ingest(ctx, a, t0.Add(time.Duration(i)*time.Second))
					require.NoError(t, err)
					require.Equal(t, open.IncidentID, r.IncidentID)
					got = append(got, r.Outcome)
				}
				require.Equal(t, tc.want, got, "restart before each alert: %v", restart)
				require.Equal(t, incidents.StateResolved, state(t, kv, open.IncidentID).State)
				require.Empty(t, kv.firing())
			}
		})
	}
}

// TestConcurrentResolvesCloseTheIncident: the opening alert and another
// resolve at once, many times over: the incident always resolves (the
// later of the two to look sees the other resolved).
func TestConcurrentResolvesCloseTheIncident(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for i := range 200 {
		kv, p := newKV(), newPub()
		x := incidents.New(kv, p, 4, 10*time.Minute)
		open := alert(fmt.Sprintf("svc-%d", i), "r1", "fp1", t0, contracts.AlertFiring)
		other := alert(fmt.Sprintf("svc-%d", i), "r1", "fp2", t0.Add(time.Second), contracts.AlertFiring)
		for _, a := range []contracts.AlertV1{open, other} {
			_, err := x.Ingest(ctx, a, t0)
			require.NoError(t, err)
		}
		var wg sync.WaitGroup
		for _, a := range []contracts.AlertV1{open, other} {
			a.Status = contracts.AlertResolved
			wg.Go(func() {
				_, err := x.Ingest(ctx, a, t0.Add(time.Minute))
				assert.NoError(t, err)
			})
		}
		wg.Wait()
		require.Equal(t, incidents.StateResolved, state(t, kv, open.IncidentID).State, "run %d", i)
	}
}
