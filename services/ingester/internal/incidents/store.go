package incidents

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/ingester/webhook"
)

func (x *Index) record(ctx context.Context, id string) (Record, uint64, error) {
	e, err := x.kv.Get(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return Record{}, 0, ErrNotFound
	}
	if err != nil {
		return Record{}, 0, storeErr("read record", err)
	}
	var rec Record
	if err := json.Unmarshal(e.Value, &rec); err != nil {
		return Record{}, 0, storeErr("decode record "+id, err)
	}
	return rec, e.Revision, nil
}

// save writes rec at rev; on a conflict it returns ErrConflict so the caller
// can decide again.
func (x *Index) save(ctx context.Context, rec Record, rev uint64) (uint64, error) {
	b, err := json.Marshal(rec)
	if err != nil {
		return 0, storeErr("encode record", err)
	}
	n, err := x.kv.Update(ctx, rec.IncidentID, b, rev)
	if errors.Is(err, ErrConflict) {
		return 0, ErrConflict
	}
	if err != nil {
		return 0, storeErr("update record", err)
	}
	return n, nil
}

// records lists every incident record.
func (x *Index) records(ctx context.Context) ([]Record, []uint64, error) {
	keys, err := x.kv.Keys(ctx, "*")
	if err != nil {
		return nil, nil, storeErr("list records", err)
	}
	var recs []Record
	var revs []uint64
	for _, k := range keys {
		if !strings.HasPrefix(k, "inc-") {
			continue
		}
		rec, rev, err := x.record(ctx, k)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		recs = append(recs, rec)
		revs = append(revs, rev)
	}
	return recs, revs, nil
}

// Dispatch releases queued incidents while slots are free. It returns the
// ids released. The ingester calls it on a ticker and after a decision.
// The bucket is read without holding up admission; slots taken meanwhile
// are kept.
//
// While this process knows of no queued incident, it reads the bucket only
// every RescanEvery (for incidents another replica, or an earlier run,
// queued), so that an idle tick costs nothing, and after a freed slot only
// when QueuedKey moved since its last reading: a decision then costs one
// read, not a read of every record.
func (x *Index) Dispatch(ctx context.Context, now time.Time) ([]string, error) {
	mark, skip := x.skip(ctx, now)
	if skip {
		return nil, nil
	}
	x.mu.Lock()
	x.scans++
	x.freed = false
	queuing := x.queuing
	x.mu.Unlock()
	recs, revs, err := x.records(ctx)
	x.mu.Lock()
	defer x.mu.Unlock()
	x.scans--
	if err != nil {
		return nil, err
	}
	extra := x.reset(recs)
	admit := Admit(recs, now, x.max-extra, x.lease)
	x.scanned = now
	if mark.read {
		x.markSeen = mark.rev
	}
	x.queuing += countQueued(recs) - len(admit) - queuing
	var released []string
	for _, i := range admit {
		rec := recs[i]
		if _, err := x.publish(ctx, rec.Alert); errors.Is(err, ErrRefused) {
			// Set aside, so the incidents queued behind it are released.
			if err := x.refuse(ctx, rec, revs[i], err); !errors.Is(err, ErrRefused) {
				return released, err
			}
			continue
		} else if err != nil {
			return released, storeErr("publish queued alert", err)
		}
		rec = rec.Release(now)
		if _, err := x.save(ctx, rec, revs[i]); err != nil && !errors.Is(err, ErrConflict) {
			return released, err
		}
		x.slots.Hold(rec.IncidentID, now)
		x.taken(rec.IncidentID, now)
		released = append(released, rec.IncidentID)
	}
	return released, nil
}

// QueuedKey is the key whose revision moves each time a replica queues an
// incident (after the queued record is stored). A dispatch after a freed
// slot reads it, and reads every record only when it moved: otherwise no
// incident is queued that the slot could release. A mark that could not be
// written, or one read before it moved, delays a release only until the
// queuing replica's next tick (it knows its queued incidents) or the next
// RescanEvery. It is not an incident id ("inc-…"), a rule's open key
// ("open.…") or a firing alert's key ("fp.…").
const QueuedKey = "queued"

// queuedMark is QueuedKey's revision as a dispatch read it: rev is 0 when
// the key was never written; read is false when the read failed.
type queuedMark struct {
	rev  uint64
	read bool
}

// skip reports whether a dispatch at now need not read the bucket, and the
// queued mark it read before it does.
func (x *Index) skip(ctx context.Context, now time.Time) (queuedMark, bool) {
	x.mu.Lock()
	idle := x.loaded && x.queuing == 0 && now.Sub(x.scanned) < RescanEvery && !now.Before(x.scanned)
	freed, seen := x.freed, x.markSeen
	x.mu.Unlock()
	if idle && !freed {
		return queuedMark{}, true
	}
	mark := x.mark(ctx)
	if !idle || !mark.read || mark.rev != seen {
		return mark, false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.freed = false
	return mark, true
}

// mark reads QueuedKey.
func (x *Index) mark(ctx context.Context) queuedMark {
	e, err := x.kv.Get(ctx, QueuedKey)
	switch {
	case errors.Is(err, ErrNotFound):
		return queuedMark{read: true}
	case err != nil:
		return queuedMark{}
	}
	return queuedMark{rev: e.Revision, read: true}
}

// moveMark moves QueuedKey after this process queued an incident. A write
// that loses to another replica's leaves the key moved all the same; a
// failed one is ignored (see QueuedKey).
func (x *Index) moveMark(ctx context.Context) {
	e, err := x.kv.Get(ctx, QueuedKey)
	switch {
	case errors.Is(err, ErrNotFound):
		_, _ = x.kv.Create(ctx, QueuedKey, []byte("1"))
	case err == nil:
		_, _ = x.kv.Update(ctx, QueuedKey, []byte("1"), e.Revision)
	}
}

// countQueued is the number of queued records.
func countQueued(recs []Record) int {
	n := 0
	for _, r := range recs {
		if r.State == StateQueued {
			n++
		}
	}
	return n
}

func (x *Index) resolve(ctx context.Context, a contracts.AlertV1, now time.Time) (Result, error) {
	key := webhook.RuleKey(a.Service, a.RuleID)
	e, err := x.kv.Get(ctx, key)
	if errors.Is(err, ErrNotFound) {
		// Nothing open (already closed, or opened before the index existed):
		// record the resolution on the bus so the trail is complete.
		if _, err := x.publish(ctx, a); err != nil {
			return Result{}, storeErr("publish resolved alert", err)
		}
		return Result{Outcome: ResolvedUnknown, IncidentID: a.IncidentID}, nil
	}
	if err != nil {
		return Result{}, storeErr("read index", err)
	}
	id := string(e.Value)
	if err := x.kv.Delete(ctx, fpKey(id, a.Fingerprint)); err != nil {
		return Result{}, storeErr("detach alert", err)
	}
	// The record is read after the key is deleted and the keys listed
	// after both, as a's key alone was before: of two alerts resolving at
	// once, the later to look sees the other resolved.
	opening, err := x.resolveOpening(ctx, id, a)
	if err != nil {
		return Result{}, err
	}
	left, err := x.kv.Keys(ctx, "fp."+id+".*")
	if err != nil {
		return Result{}, storeErr("list firing alerts", err)
	}
	if len(left) > 0 || opening {
		return Result{Outcome: PartlyResolved, IncidentID: id}, nil
	}
	a.IncidentID = id
	if _, err := x.publish(ctx, a); err != nil {
		return Result{}, storeErr("publish resolved alert", err)
	}
	if err := x.update(ctx, id, func(rec *Record) bool {
		if rec.State == StateResolved {
			return false
		}
		rec.State, rec.ResolvedAt = StateResolved, now
		return true
	}); err != nil {
		return Result{}, err
	}
	if err := x.kv.Delete(ctx, key); err != nil {
		return Result{}, storeErr("close index", err)
	}
	x.forget(key, id)
	x.release(id)
	return Result{Outcome: Resolved, IncidentID: id}, nil
}

// resolveOpening marks the opening alert of incident id resolved when a is
// it, and reports whether the opening alert still fires. A missing record
// has no opening alert firing.
func (x *Index) resolveOpening(ctx context.Context, id string, a contracts.AlertV1) (bool, error) {
	for range 5 {
		rec, rev, err := x.record(ctx, id)
		switch {
		case errors.Is(err, ErrNotFound):
			return false, nil
		case err != nil:
			return false, err
		case !opens(rec, a):
			return !rec.AlertResolved, nil
		}
		rec.AlertResolved = true
		if _, err := x.save(ctx, rec, rev); !errors.Is(err, ErrConflict) {
			return false, err
		}
	}
	return false, storeErr("resolve alert", errors.New("record keeps changing"))
}

// update applies change to the record of id until it is saved at the
// revision it read; change returns false to leave the record as it is. A
// missing record is left missing.
func (x *Index) update(ctx context.Context, id string, change func(*Record) bool) error {
	for range 5 {
		rec, rev, err := x.record(ctx, id)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if !change(&rec) {
			return nil
		}
		if _, err := x.save(ctx, rec, rev); err == nil {
			return nil
		} else if !errors.Is(err, ErrConflict) {
			return err
		}
	}
	return nil
}

// Decided records the gate's verdict on incident id: an investigating
// incident becomes decided and releases its investigation slot (the caller
// then dispatches the queue). It reports whether anything changed: an
// unknown, queued, already decided or resolved incident is left as it is.
func (x *Index) Decided(ctx context.Context, id, verdict string, now time.Time) (bool, error) {
	for range 5 {
		rec, rev, err := x.record(ctx, id)
		if errors.Is(err, ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if rec.State != StateInvestigating {
			return false, nil
		}
		rec.State, rec.DecidedAt, rec.Verdict = StateDecided, now, verdict
		if _, err := x.save(ctx, rec, rev); errors.Is(err, ErrConflict) {
			continue
		} else if err != nil {
			return false, err
		}
		x.release(id)
		return true, nil
	}
	return false, storeErr("decide", errors.New("record keeps changing"))
}

// recordNoData lists a no-data alert in the index (state no_data while it
// fires, resolved once it resolves) without opening an investigation. A
// record of a real incident under the same id is left alone.
func (x *Index) recordNoData(ctx context.Context, a contracts.AlertV1, now time.Time) error {
	state := StateNoData
	if a.Status == contracts.AlertResolved {
		state = StateResolved
	}
	for range 5 {
		rec := Record{IncidentID: a.IncidentID, Service: a.Service, RuleID: a.RuleID, State: state, OpenedAt: now, Alert: a}
		if state == StateResolved {
			rec.ResolvedAt = now
		}
		b, _ := json.Marshal(rec)
		if _, err := x.kv.Create(ctx, a.IncidentID, b); err == nil {
			return nil
		} else if !errors.Is(err, ErrExists) {
			return storeErr("record no-data alert", err)
		}
		cur, rev, err := x.record(ctx, a.IncidentID)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil || !cur.Alert.NoData || cur.State == state {
			return err
		}
		cur.State = state
		if state == StateResolved {
			cur.ResolvedAt = now
		}
		if _, err := x.save(ctx, cur, rev); err == nil || !errors.Is(err, ErrConflict) {
			return err
		}
	}
	return storeErr("record no-data alert", errors.New("record keeps changing"))
}
