package incidents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/ingester/internal/admission"
	"agentk/services/ingester/webhook"
)

func (x *Index) fire(ctx context.Context, a contracts.AlertV1, now time.Time) (Result, error) {
	key := webhook.RuleKey(a.Service, a.RuleID)
	if res, done, err := x.attachKnown(ctx, key, a, now); done || err != nil {
		return res, err
	}
	res, done, taken, err := x.open(ctx, key, a, now)
	if done || err != nil {
		return res, err
	}
	return x.attach(ctx, a, now, taken)
}

// attachKnown files a into the incident this process last saw open for a's
// rule in one round trip: its record and a's key, concurrently (the storm
// path). done is false when it knows of none, or that incident has no record
// or has resolved: then fire takes the full path. key is a's rule's index
// key (webhook.RuleKey).
func (x *Index) attachKnown(ctx context.Context, key string, a contracts.AlertV1, now time.Time) (Result, bool, error) {
	id, ok := x.openID(key)
	if !ok {
		return Result{}, false, nil
	}
	o, err := x.attachTo(ctx, id, a)
	if err != nil {
		return Result{}, false, err
	}
	if !o.found || o.rec.State == StateResolved {
		x.forget(key, id)
		if o.created {
			if err := x.kv.Delete(ctx, fpKey(id, a.Fingerprint)); err != nil {
				return Result{}, false, storeErr("detach alert", err)
			}
		}
		return Result{}, false, nil
	}
	own := a.IncidentID
	a.IncidentID = id
	res, err := x.attached(ctx, a, own, o, now)
	return res, true, err
}

// startsAt is the value of a firing alert's key.
func startsAt(a contracts.AlertV1) []byte { return []byte(strconv.FormatInt(a.StartsAt.Unix(), 10)) }

// open files a as a new incident in two round trips: first the index key
// (with, when the key had a value before, a read of a's record); then, if
// the key was a's and its id unused, the record (already released or
// queued, and standing for a's fp key) and the alert's publication,
// concurrently, both acknowledged before it returns. The alert is encoded and sealed while the
// first round trip is in flight.
// done is false when the general path (attach) must file a: the rule has an
// open incident, or a's id belongs to a resolved episode.
// taken reports that the index key was found taken (attach need not try to
// create it first). key is a's rule's index key (webhook.RuleKey).
func (x *Index) open(ctx context.Context, key string, a contracts.AlertV1, now time.Time) (res Result, done, taken bool, err error) {
	wopen := x.kv.CreateNewAsync(ctx, key, []byte(a.IncidentID))
	pa, encErr := x.prepare(a)
	queued := Record{IncidentID: a.IncidentID, Service: a.Service, RuleID: a.RuleID, State: StateQueued, OpenedAt: now, Alert: a}
	// The record as it is written when admitted, the usual case, is
	// encoded while the first round trip is in flight too.
	var released []byte
	if encErr == nil {
		released, encErr = encode(queued.Release(now), pa.JSON)
	}
	_, createErr := wopen()
	// A key that never had a value means that no incident of the rule was
	// ever opened, so that a's id has no record: records are written only
	// under a key pointing at them, and the bucket keeps every key's last
	// message (its delete marker) as long as the records written before it.
	getErr := ErrNotFound
	if errors.Is(createErr, ErrUsed) {
		createErr, getErr = x.reopenKey(ctx, key, a.IncidentID)
	}
	switch {
	case errors.Is(createErr, ErrExists):
		return Result{}, false, true, nil
	case createErr != nil:
		return Result{}, false, false, storeErr("open index", createErr)
	case getErr == nil:
		return Result{}, false, false, nil // a's id was used: attach sees to it
	case !errors.Is(getErr, ErrNotFound):
		return Result{}, false, false, getErr
	}
	admitted, err := x.acquire(ctx, a.IncidentID, now)
	if err != nil {
		return Result{}, false, false, err
	}
	rec, b := queued, []byte(nil)
	if admitted {
		rec, b = queued.Release(now), released
	}
	res, done, err = x.write(ctx, rec, b, pa, encErr)
	if done {
		x.remember(key, a.IncidentID)
	}
	return res, done, false, err
}

// reopenKey writes the index key of a rule whose key had a value before, as
// Create does, and reads the record of id beside it: id may be a resolved
// episode's.
func (x *Index) reopenKey(ctx context.Context, key, id string) (createErr, getErr error) {
	if mutant.Off(mutant.IngestReusedID) {
		_, createErr = x.kv.Recreate(ctx, key, []byte(id))
		return createErr, ErrNotFound
	}
	got := make(chan error, 1)
	go func() {
		_, _, err := x.record(ctx, id)
		got <- err
	}()
	_, createErr = x.kv.Recreate(ctx, key, []byte(id))
	return createErr, <-got
}

// prepare encodes a, and seals it when the publisher can seal ahead (Preparer).
func (x *Index) prepare(a contracts.AlertV1) (Alert, error) {
	b, err := MarshalAlert(a)
	if err != nil {
		return Alert{}, err
	}
	pa := Alert{AlertV1: a, JSON: b}
	if p, ok := x.pub.(Preparer); ok {
		return p.Prepare(pa, MsgID(a))
	}
	return pa, nil
}

// write is open's second round trip; pa is rec's alert as prepare made it,
// or encErr; b is rec encoded, or nil: write encodes it.
func (x *Index) write(ctx context.Context, rec Record, b []byte, pa Alert, encErr error) (Result, bool, error) {
	a := rec.Alert
	admitted := rec.State == StateInvestigating
	var err error
	if b == nil && encErr == nil {
		b, err = encode(rec, pa.JSON)
	}
	if err = errors.Join(encErr, err); err != nil {
		x.settle(a.IncidentID, false)
		return Result{}, false, storeErr("encode record", err)
	}
	// The record and the publication are sent together and awaited
	// together: one round trip, both acknowledged before the caller
	// answers. The record stands for a's fp key (AlertResolved).
	wrec := x.kv.CreateAsync(ctx, a.IncidentID, b)
	var pubErr error
	if admitted {
		_, pubErr = x.pub.Publish(ctx, pa, MsgID(a))()
	}
	rev, recErr := wrec()
	// A record another delivery wrote first keeps the slot: attach reads
	// what it says. So does one whose acknowledgement was lost: it may be
	// stored as investigating (counting a slot too many until the next
	// dispatch reads the bucket, never one too few).
	x.settle(a.IncidentID, errors.Is(recErr, ErrExists) || admitted && !errors.Is(pubErr, ErrRefused))
	switch {
	case errors.Is(recErr, ErrExists):
		return Result{}, false, nil // a concurrent delivery wrote it first: attach reads it
	case recErr != nil:
		x.failed(a.IncidentID, rec.OpenedAt) // it may be stored: the retry says opened
		return Result{}, false, storeErr("create record", recErr)
	case errors.Is(pubErr, ErrRefused):
		return Result{}, false, x.refuse(ctx, rec, rev, pubErr)
	case pubErr != nil:
		x.failed(a.IncidentID, rec.OpenedAt)
		return Result{}, false, storeErr("publish alert", pubErr)
	case admitted:
		return Result{Outcome: Opened, IncidentID: a.IncidentID}, true, nil
	default:
		x.queued(ctx)
		return Result{Outcome: Queued, IncidentID: a.IncidentID}, true, nil
	}
}

// encode is rec encoded around alert, its alert's JSON encoding (as
// json.Marshal makes it), so that a new incident's alert is encoded once for
// its record and its publication. The bytes are json.Marshal(rec)'s: the
// record's other fields are written without reflection (appendRecordHead,
// as MarshalAlert writes an alert: a tenth of json.Marshal's CPU), and the
// alert's bytes are appended as they are, where its field comes, last but
// for alert_resolved; a json.RawMessage would have been scanned and
// compacted again. TestEncodeIsMarshalBytes, FuzzEncode and
// TestEncodeKnowsEveryField hold it to json.Marshal.
func encode(rec Record, alert []byte) ([]byte, error) {
	out := make([]byte, 0, 256+len(rec.Reopens)+len(rec.Refusal)+len(alert))
	out, err := appendRecordHead(out, rec)
	if err != nil { // a time json.Marshal refuses: its error
		return json.Marshal(rec)
	}
	out = append(out, `,"alert":`...)
	out = append(out, alert...)
	if rec.AlertResolved {
		out = append(out, `,"alert_resolved":true`...)
	}
	return append(out, '}'), nil
}

// appendRecordHead appends json.Marshal(rec)'s bytes up to its alert: an
// open brace and every field before "alert".
func appendRecordHead(b []byte, rec Record) ([]byte, error) {
	b = append(b, `{"incident_id":`...)
	b = appendString(b, rec.IncidentID)
	b = append(b, `,"service":`...)
	b = appendString(b, rec.Service)
	b = append(b, `,"rule_id":`...)
	b = appendString(b, rec.RuleID)
	b = append(b, `,"state":`...)
	b = appendString(b, rec.State)
	var err error
	b = append(b, `,"opened_at":`...)
	if b, err = appendTime(b, rec.OpenedAt); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name string
		t    time.Time
	}{{`,"released_at":`, rec.ReleasedAt}, {`,"resolved_at":`, rec.ResolvedAt}, {`,"decided_at":`, rec.DecidedAt}} {
		if f.t.IsZero() { // omitzero
			continue
		}
		b = append(b, f.name...)
		if b, err = appendTime(b, f.t); err != nil {
			return nil, err
		}
	}
	for _, f := range []struct{ name, v string }{
		{`,"verdict":`, rec.Verdict}, {`,"refusal":`, rec.Refusal}, {`,"reopens":`, rec.Reopens},
	} {
		if f.v != "" { // omitempty
			b = append(b, f.name...)
			b = appendString(b, f.v)
		}
	}
	return b, nil
}

// refuse sets rec aside as refused for the bus's reason err (ErrRefused),
// which it returns.
func (x *Index) refuse(ctx context.Context, rec Record, rev uint64, err error) error {
	rec.State, rec.Refusal = StateRefused, err.Error()
	if _, serr := x.save(ctx, rec, rev); serr != nil && !errors.Is(serr, ErrConflict) {
		return serr
	}
	return err
}

// attach files a into the incident open for its rule (opening one if there
// is none): the general path, for every alert open did not file.
func (x *Index) attach(ctx context.Context, a contracts.AlertV1, now time.Time, taken bool) (Result, error) {
	own := a.IncidentID
	o, err := x.openFor(ctx, a, taken)
	if err != nil {
		return Result{}, err
	}
	a.IncidentID = o.id
	if o.found {
		x.remember(webhook.RuleKey(a.Service, a.RuleID), o.id)
	}
	return x.attached(ctx, a, own, o, now)
}

// attached is the outcome of a (renamed into o's incident; own is its own
// id) attached to o: an incident still pending is admitted, and a retried
// opening alert republished.
func (x *Index) attached(ctx context.Context, a contracts.AlertV1, own string, o opening, now time.Time) (Result, error) {
	var err error
	res := Result{Outcome: Duplicate, IncidentID: o.id}
	if o.attached {
		res.Outcome = Attached
	}
	if !o.found && o.id != own && o.reopens == "" {
		// The incident is being opened by another delivery, which writes
		// its record (or, had it failed, its sender's retry will): this
		// alert is attached, and must not open it with a second alert.
		return res, nil
	}
	if !o.found {
		if o.rec, o.rev, err = x.ensureRecord(ctx, a, now, o.reopens); err != nil {
			return Result{}, err
		}
	}
	switch {
	case o.rec.State == StatePending:
		rec, err := x.admitPending(ctx, o.rec, o.rev, now)
		if err != nil {
			return Result{}, err
		}
		res.Outcome = Opened
		if rec.State == StateQueued {
			res.Outcome = Queued
		}
	case own == o.id && redelivered(o.rec, a, now):
		fresh, err := x.publish(ctx, o.rec.Alert)
		if err != nil {
			return Result{}, storeErr("publish alert", err)
		}
		if x.retried(own) || fresh { // the first delivery failed
			res.Outcome = Opened
		}
	}
	return res, nil
}

// redelivered reports whether a is a re-delivery of the alert that released
// rec, early enough that its publication may have been what failed.
func redelivered(rec Record, a contracts.AlertV1, now time.Time) bool {
	return rec.State == StateInvestigating && rec.Alert.Fingerprint == a.Fingerprint &&
		rec.Alert.StartsAt.Equal(a.StartsAt) && now.Sub(rec.ReleasedAt) < RedeliveryWindow
}

// openIndex returns the id of the open incident of a's (service, rule),
// opening a's own if there is none.
// taken skips the first attempt to create the key.
func (x *Index) openIndex(ctx context.Context, a contracts.AlertV1, taken bool) (id string, err error) {
	key := webhook.RuleKey(a.Service, a.RuleID)
	for i := range 5 {
		if i > 0 || !taken {
			if _, err := x.kv.Create(ctx, key, []byte(a.IncidentID)); err == nil {
				return a.IncidentID, nil
			} else if !errors.Is(err, ErrExists) {
				return "", storeErr("open index", err)
			}
		}
		e, err := x.kv.Get(ctx, key)
		if errors.Is(err, ErrNotFound) {
			continue // closed between our Create and Get: try again
		}
		if err != nil {
			return "", storeErr("read index", err)
		}
		return string(e.Value), nil
	}
	return "", storeErr("open index", errors.New("index key keeps changing"))
}

// opening is the incident an alert fires into.
type opening struct {
	id, reopens string
	rec         Record
	rev         uint64
	found       bool // rec was read
	created     bool // the alert's key was new
	attached    bool // the alert is new to the incident: its key was new, and it is not rec's firing opening alert
}

// openFor finds or opens the incident a fires into, and attaches a to it.
// The index may point at an incident that has resolved: Alertmanager
// re-sends a resolved alert as firing, with the same startsAt and
// fingerprint, when it flaps. That is a new episode: the stale pointer is
// dropped and a new incident is opened, <id>-r2 when a's own id is the
// resolved one, so it gets its own investigation instead of being attached
// to a closed incident for ever.
func (x *Index) openFor(ctx context.Context, a contracts.AlertV1, taken bool) (opening, error) {
	key := webhook.RuleKey(a.Service, a.RuleID)
	var o opening
	for range admission.MaxReopens {
		id, err := x.openIndex(ctx, a, taken)
		if err != nil {
			return opening{}, err
		}
		taken = false
		reopens := o.reopens
		if o, err = x.attachTo(ctx, id, a); err != nil {
			return opening{}, err
		}
		o.reopens = reopens
		if !o.found || o.rec.State != StateResolved {
			return o, nil
		}
		x.forget(key, id)
		if err := x.drop(ctx, key, id, a, o.created); err != nil {
			return opening{}, err
		}
		if id == a.IncidentID {
			o.reopens = id
			a.IncidentID = admission.NextOpening(id)
		}
	}
	return opening{}, storeErr("reopen", fmt.Errorf("%s reopened %d times", a.IncidentID, admission.MaxReopens))
}

// attachTo reads the record of incident id and creates a's key under it,
// concurrently.
func (x *Index) attachTo(ctx context.Context, id string, a contracts.AlertV1) (opening, error) {
	o := opening{id: id}
	wfp := x.kv.CreateAsync(ctx, fpKey(id, a.Fingerprint), startsAt(a))
	var getErr error
	o.rec, o.rev, getErr = x.record(ctx, id)
	_, fpErr := wfp()
	o.found, o.created = getErr == nil, fpErr == nil
	o.attached = o.created && !(o.found && opens(o.rec, a))
	switch {
	case fpErr != nil && !errors.Is(fpErr, ErrExists):
		return opening{}, storeErr("attach alert", fpErr)
	case getErr != nil && !errors.Is(getErr, ErrNotFound):
		return opening{}, getErr
	}
	return o, nil
}

// opens reports whether a is the opening alert of rec, still firing: the
// record stands for its fp key, so a has been attached already.
func opens(rec Record, a contracts.AlertV1) bool {
	return !rec.AlertResolved && rec.Alert.Fingerprint == a.Fingerprint
}

// drop removes the index key that points at the resolved incident id, and
// a's key under it if openFor just created it.
func (x *Index) drop(ctx context.Context, key, id string, a contracts.AlertV1, created bool) error {
	if created {
		if err := x.kv.Delete(ctx, fpKey(id, a.Fingerprint)); err != nil {
			return storeErr("detach alert", err)
		}
	}
	if err := x.kv.Delete(ctx, key); err != nil {
		return storeErr("drop stale index", err)
	}
	return nil
}

// ensureRecord reads the incident's record, creating it (pending) if absent.
func (x *Index) ensureRecord(ctx context.Context, a contracts.AlertV1, now time.Time, reopens string) (Record, uint64, error) {
	for range 5 {
		rec, rev, err := x.record(ctx, a.IncidentID)
		if err == nil {
			return rec, rev, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return Record{}, 0, err
		}
		rec = Record{IncidentID: a.IncidentID, Service: a.Service, RuleID: a.RuleID, State: StatePending, OpenedAt: now, Alert: a, Reopens: reopens}
		b, _ := json.Marshal(rec)
		rev, err = x.kv.Create(ctx, a.IncidentID, b)
		if err == nil {
			return rec, rev, nil
		}
		if !errors.Is(err, ErrExists) {
			return Record{}, 0, storeErr("create record", err)
		}
	}
	return Record{}, 0, storeErr("create record", errors.New("record keeps changing"))
}

// admitPending moves a pending incident to investigating (publishing its
// alert) or to queued.
func (x *Index) admitPending(ctx context.Context, rec Record, rev uint64, now time.Time) (Record, error) {
	id := rec.IncidentID
	for range 5 {
		if rec.State != StatePending {
			return rec, nil
		}
		next, err := x.decide(ctx, rec, rev, now)
		if err != nil {
			return Record{}, err
		}
		// settle ends the slot decide took, if it took one.
		settle := func(held bool) {
			if next.State == StateInvestigating {
				x.settle(id, held)
			}
		}
		_, err = x.save(ctx, next, rev)
		switch {
		case err == nil:
			settle(true)
			if next.State == StateQueued {
				x.queued(ctx)
			}
			return next, nil
		case !errors.Is(err, ErrConflict):
			settle(false)
			return Record{}, err
		}
		// Another delivery admitted it first: the slot is as its record says.
		if rec, rev, err = x.record(ctx, id); err != nil {
			settle(false)
			return Record{}, err
		}
		settle(rec.State == StateInvestigating)
	}
	return Record{}, storeErr("admit", errors.New("record keeps changing"))
}

// decide is rec released (its alert published, its slot in flight) or
// queued.
func (x *Index) decide(ctx context.Context, rec Record, rev uint64, now time.Time) (Record, error) {
	ok, err := x.acquire(ctx, rec.IncidentID, now)
	if err != nil || !ok {
		rec.State = StateQueued
		return rec, err
	}
	if _, err := x.publish(ctx, rec.Alert); err != nil {
		x.settle(rec.IncidentID, false)
		if errors.Is(err, ErrRefused) {
			return Record{}, x.refuse(ctx, rec, rev, err)
		}
		return Record{}, storeErr("publish alert", err)
	}
	return rec.Release(now), nil
}
