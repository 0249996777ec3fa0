// Package incidents turns normalised alerts into incidents: one incident per
// (service, rule) while it fires. It keeps the open-incident index in a KV
// bucket (agentk_incidents) behind the small KV interface, publishes the
// alert that opens an incident (and the one that closes it) through
// Publisher, and admits at most a configured number of incidents to
// investigation at once; the rest queue in the index until a slot frees.
//
// The lifecycle of an incident, state by state, is docs/lifecycle.md.
//
// Keys of the bucket:
//
//	open.<service slug>.<hash>   the id of the open incident of (service, rule)
//	<incident id>                the incident Record (JSON)
//	fp.<incident id>.<fp>        one firing alert attached to the incident
//
// Every step is idempotent, so a delivery that failed half-way (bus down
// between two writes) and is retried by the sender completes the same
// incident rather than opening a second one.
package incidents

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"agentk/contracts"
	"agentk/services/ingester/webhook"
)

// Errors a KV implementation returns, and the package's own.
var (
	ErrNotFound = errors.New("incidents: key not found")
	ErrExists   = errors.New("incidents: key exists")
	ErrConflict = errors.New("incidents: revision conflict")
	// ErrStore wraps a KV or bus failure: the delivery was not made durable.
	ErrStore = errors.New("incidents: store unavailable")
	// ErrRefused wraps a failure the alert's content caused (the bus
	// refused it as too large): retrying the same alert cannot succeed.
	ErrRefused = errors.New("incidents: alert refused")
)

// Entry is one KV value and its revision.
type Entry struct {
	Value    []byte
	Revision uint64
}

// KV is the part of a JetStream KV bucket the index needs.
type KV interface {
	// Get returns ErrNotFound for a missing or deleted key.
	Get(ctx context.Context, key string) (Entry, error)
	// Create writes key only if it does not exist (or was deleted); ErrExists otherwise.
	Create(ctx context.Context, key string, value []byte) (uint64, error)
	// Update writes key only at revision rev; ErrConflict otherwise.
	Update(ctx context.Context, key string, value []byte, rev uint64) (uint64, error)
	// Delete removes key; deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// Keys lists live keys matching a NATS subject filter ("*", "fp.<id>.*").
	Keys(ctx context.Context, filter string) ([]string, error)
}

// Publisher makes an alert durable on the bus. Publish returns only after
// JetStream acknowledged the message; msgID becomes Nats-Msg-Id.
type Publisher interface {
	Publish(ctx context.Context, a contracts.AlertV1, msgID string) error
}

// Incident states.
const (
	StatePending       = "pending"
	StateQueued        = "queued"
	StateInvestigating = "investigating"
	// StateDecided: the gate decided the incident's investigation; the
	// incident may still fire, but it holds no investigation slot.
	StateDecided  = "decided"
	StateResolved = "resolved"
	// StateNoData is a SigNoz "[No data]" alert: recorded and listed, never
	// investigated.
	StateNoData = "no_data"
	// StateRefused: the bus refused the incident's alert for its content
	// (ErrRefused). It is set aside with the reason, so that it never blocks
	// the incidents queued behind it.
	StateRefused = "refused"
)

// Record is one incident in the index.
type Record struct {
	IncidentID string    `json:"incident_id"`
	Service    string    `json:"service"`
	RuleID     string    `json:"rule_id"`
	State      string    `json:"state"`
	OpenedAt   time.Time `json:"opened_at"`
	ReleasedAt time.Time `json:"released_at,omitzero"`
	ResolvedAt time.Time `json:"resolved_at,omitzero"`
	DecidedAt  time.Time `json:"decided_at,omitzero"`
	// Verdict is the gate's verdict once decided.
	Verdict string `json:"verdict,omitempty"`
	// Refusal is why the bus refused the alert (StateRefused).
	Refusal string `json:"refusal,omitempty"`
	// Reopens names the resolved incident of the same (service, rule) and
	// startsAt this one follows: Alertmanager re-fired it after a resolve
	// (flapping), so it is a new episode with its own investigation.
	Reopens string `json:"reopens,omitempty"`
	// Alert is the alert that opened the incident, published when the
	// incident is released to investigation.
	Alert contracts.AlertV1 `json:"alert"`
}

// Outcome says what became of one alert.
type Outcome string

// Outcomes.
const (
	Opened          Outcome = "opened"           // a new incident, released to investigation
	Queued          Outcome = "queued"           // a new incident, waiting for a slot
	Attached        Outcome = "attached"         // another alert of an open incident
	Duplicate       Outcome = "duplicate"        // a re-delivery of an alert already attached
	Resolved        Outcome = "resolved"         // the last firing alert resolved: incident closed
	PartlyResolved  Outcome = "partly_resolved"  // one alert resolved, others still fire
	ResolvedUnknown Outcome = "resolved_unknown" // resolved with no open incident: recorded only
	TestAck         Outcome = "test"             // the channel's test notification: acknowledged only
	NoData          Outcome = "no_data"          // a [No data] alert: recorded, not investigated
)

// Result is the outcome of one alert and the incident it belongs to.
type Result struct {
	Outcome    Outcome
	IncidentID string
}

// Index is the incident index. It is safe for concurrent use.
type Index struct {
	kv    KV
	pub   Publisher
	max   int
	lease time.Duration
	// admit serialises admission decisions of this process, so concurrent
	// openings cannot overshoot the investigation limit. It guards busy.
	admit sync.Mutex
	// busy caches the release time of every investigating incident, so that
	// opening an incident costs no bucket scan; Dispatch rebuilds it from KV.
	busy map[string]time.Time
}

// New returns an index over kv that publishes through pub and lets at most
// maxInvestigations incidents be investigated at once; a released incident
// holds its slot until it resolves or lease passes.
func New(kv KV, pub Publisher, maxInvestigations int, lease time.Duration) *Index {
	return &Index{kv: kv, pub: pub, max: maxInvestigations, lease: lease}
}

// MsgID is the Nats-Msg-Id of an alert: alert.<incident>.<status>.<startsAt unix>.
func MsgID(a contracts.AlertV1) string {
	status := a.Status
	if a.NoData {
		status = "nodata"
		if a.Status == contracts.AlertResolved {
			status = "nodata-resolved"
		}
	}
	return fmt.Sprintf("alert.%s.%s.%d", a.IncidentID, status, a.StartsAt.Unix())
}

func storeErr(op string, err error) error {
	if errors.Is(err, ErrRefused) {
		return fmt.Errorf("%s: %w", op, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrStore, op, err)
}

// keyRune reports whether r may appear in a KV key as it is.
func keyRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_'
}

// fpKey is the key of one firing alert of an incident. Fingerprints outside
// the KV key alphabet are hashed.
func fpKey(incidentID, fp string) string {
	ok := fp != "" && len(fp) <= 64
	for _, r := range fp {
		if !keyRune(r) {
			ok = false
			break
		}
	}
	if !ok {
		s := sha256.Sum256([]byte(fp))
		fp = hex.EncodeToString(s[:8])
	}
	return "fp." + incidentID + "." + fp
}

// Ingest files one alert, stamping now on anything it writes. It returns
// ErrStore when the KV or the bus failed: nothing was acknowledged, and a
// retry of the same alert completes the same incident.
func (x *Index) Ingest(ctx context.Context, a contracts.AlertV1, now time.Time) (Result, error) {
	switch {
	case a.Test:
		return Result{Outcome: TestAck, IncidentID: a.IncidentID}, nil
	case a.NoData:
		if err := x.pub.Publish(ctx, a, MsgID(a)); err != nil {
			return Result{}, storeErr("publish no-data alert", err)
		}
		if err := x.recordNoData(ctx, a, now); err != nil {
			return Result{}, err
		}
		return Result{Outcome: NoData, IncidentID: a.IncidentID}, nil
	case a.Status == contracts.AlertResolved:
		return x.resolve(ctx, a, now)
	default:
		return x.fire(ctx, a, now)
	}
}

// openIndex returns the id of the open incident of a's (service, rule),
// opening a's own if there is none.
func (x *Index) openIndex(ctx context.Context, a contracts.AlertV1) (id string, created bool, err error) {
	key := webhook.RuleKey(a.Service, a.RuleID)
	for range 5 {
		if _, err := x.kv.Create(ctx, key, []byte(a.IncidentID)); err == nil {
			return a.IncidentID, true, nil
		} else if !errors.Is(err, ErrExists) {
			return "", false, storeErr("open index", err)
		}
		e, err := x.kv.Get(ctx, key)
		if errors.Is(err, ErrNotFound) {
			continue // closed between our Create and Get: try again
		}
		if err != nil {
			return "", false, storeErr("read index", err)
		}
		return string(e.Value), false, nil
	}
	return "", false, storeErr("open index", errors.New("index key keeps changing"))
}

// maxReopens bounds how many times one (service, rule, startsAt) reopens.
const maxReopens = 1000

// nextOpening is the id of the incident that follows the resolved incident
// id when the same episode fires again: <id>-r2, <id>-r3, …
func nextOpening(id string) string {
	if i := strings.LastIndex(id, "-r"); i > 0 {
		if n, err := strconv.Atoi(id[i+2:]); err == nil && n >= 2 {
			return id[:i] + "-r" + strconv.Itoa(n+1)
		}
	}
	return id + "-r2"
}

// openFor finds or opens the incident a fires into. The index may point at
// an incident that has resolved: Alertmanager re-sends a resolved alert as
// firing, with the same startsAt and fingerprint, when it flaps. That is a
// new episode: the stale pointer is dropped and a new incident is opened,
// <id>-r2 when a's own id is the resolved one, so it gets its own
// investigation instead of being attached to a closed incident for ever.
func (x *Index) openFor(ctx context.Context, a contracts.AlertV1) (id, reopens string, err error) {
	key := webhook.RuleKey(a.Service, a.RuleID)
	for range maxReopens {
		id, _, err := x.openIndex(ctx, a)
		if err != nil {
			return "", "", err
		}
		rec, _, err := x.record(ctx, id)
		switch {
		case errors.Is(err, ErrNotFound):
			return id, reopens, nil
		case err != nil:
			return "", "", err
		case rec.State != StateResolved:
			return id, reopens, nil
		}
		if err := x.kv.Delete(ctx, key); err != nil {
			return "", "", storeErr("drop stale index", err)
		}
		if id == a.IncidentID {
			reopens = id
			a.IncidentID = nextOpening(id)
		}
	}
	return "", "", storeErr("reopen", fmt.Errorf("%s reopened %d times", a.IncidentID, maxReopens))
}

func (x *Index) fire(ctx context.Context, a contracts.AlertV1, now time.Time) (Result, error) {
	id, reopens, err := x.openFor(ctx, a)
	if err != nil {
		return Result{}, err
	}
	a.IncidentID = id
	attached := true
	if _, err := x.kv.Create(ctx, fpKey(id, a.Fingerprint), []byte(strconv.FormatInt(a.StartsAt.Unix(), 10))); errors.Is(err, ErrExists) {
		attached = false
	} else if err != nil {
		return Result{}, storeErr("attach alert", err)
	}
	rec, rev, err := x.ensureRecord(ctx, a, now, reopens)
	if err != nil {
		return Result{}, err
	}
	opened := rec.State == StatePending
	if opened {
		if rec, err = x.admitPending(ctx, rec, rev, now); err != nil {
			return Result{}, err
		}
	}
	switch {
	case opened && rec.State == StateQueued:
		return Result{Outcome: Queued, IncidentID: id}, nil
	case opened:
		return Result{Outcome: Opened, IncidentID: id}, nil
	case attached:
		return Result{Outcome: Attached, IncidentID: id}, nil
	default:
		return Result{Outcome: Duplicate, IncidentID: id}, nil
	}
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

// save writes rec at rev; on a conflict it returns the current record and
// ErrConflict so the caller can decide again.
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

// admitPending moves a pending incident to investigating (publishing its
// alert) or to queued.
func (x *Index) admitPending(ctx context.Context, rec Record, rev uint64, now time.Time) (Record, error) {
	x.admit.Lock()
	defer x.admit.Unlock()
	for range 5 {
		if rec.State != StatePending {
			return rec, nil
		}
		busy, err := x.investigating(ctx, now)
		if err != nil {
			return Record{}, err
		}
		next := rec
		if busy < x.max {
			if err := x.pub.Publish(ctx, rec.Alert, MsgID(rec.Alert)); errors.Is(err, ErrRefused) {
				next.State, next.Refusal = StateRefused, err.Error()
				if _, serr := x.save(ctx, next, rev); serr != nil && !errors.Is(serr, ErrConflict) {
					return Record{}, serr
				}
				return Record{}, err
			} else if err != nil {
				return Record{}, storeErr("publish alert", err)
			}
			next.State, next.ReleasedAt = StateInvestigating, now
		} else {
			next.State = StateQueued
		}
		if _, err := x.save(ctx, next, rev); err == nil {
			if next.State == StateInvestigating {
				x.busy[next.IncidentID] = now
			}
			return next, nil
		} else if !errors.Is(err, ErrConflict) {
			return Record{}, err
		}
		if rec, rev, err = x.record(ctx, rec.IncidentID); err != nil {
			return Record{}, err
		}
	}
	return Record{}, storeErr("admit", errors.New("record keeps changing"))
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

// investigating counts held slots; the caller holds x.admit.
func (x *Index) investigating(ctx context.Context, now time.Time) (int, error) {
	if x.busy == nil {
		recs, _, err := x.records(ctx)
		if err != nil {
			return 0, err
		}
		x.refresh(recs)
	}
	n := 0
	for _, at := range x.busy {
		if now.Sub(at) < x.lease {
			n++
		}
	}
	return n, nil
}

// refresh rebuilds the busy cache from records; the caller holds x.admit.
func (x *Index) refresh(recs []Record) {
	x.busy = map[string]time.Time{}
	for _, r := range recs {
		if r.State == StateInvestigating {
			x.busy[r.IncidentID] = r.ReleasedAt
		}
	}
}

// Busy counts the incidents holding an investigation slot at now: released,
// not resolved, and within their lease.
func Busy(recs []Record, now time.Time, lease time.Duration) int {
	n := 0
	for _, r := range recs {
		if r.State == StateInvestigating && now.Sub(r.ReleasedAt) < lease {
			n++
		}
	}
	return n
}

// Admit returns the indexes of the queued records to release at now, oldest
// opened first, so that at most max incidents hold a slot.
func Admit(recs []Record, now time.Time, max int, lease time.Duration) []int {
	free := max - Busy(recs, now, lease)
	var queued []int
	for i, r := range recs {
		if r.State == StateQueued {
			queued = append(queued, i)
		}
	}
	sort.SliceStable(queued, func(a, b int) bool {
		ra, rb := recs[queued[a]], recs[queued[b]]
		if !ra.OpenedAt.Equal(rb.OpenedAt) {
			return ra.OpenedAt.Before(rb.OpenedAt)
		}
		return ra.IncidentID < rb.IncidentID
	})
	if free <= 0 {
		return nil
	}
	if len(queued) > free {
		queued = queued[:free]
	}
	return queued
}

// Dispatch releases queued incidents while slots are free. It returns the
// ids released. The ingester calls it on a ticker and after a resolution.
func (x *Index) Dispatch(ctx context.Context, now time.Time) ([]string, error) {
	x.admit.Lock()
	defer x.admit.Unlock()
	recs, revs, err := x.records(ctx)
	if err != nil {
		return nil, err
	}
	x.refresh(recs)
	var released []string
	for _, i := range Admit(recs, now, x.max, x.lease) {
		rec := recs[i]
		if err := x.pub.Publish(ctx, rec.Alert, MsgID(rec.Alert)); errors.Is(err, ErrRefused) {
			// Set aside, so the incidents queued behind it are released.
			rec.State, rec.Refusal = StateRefused, err.Error()
			if _, err := x.save(ctx, rec, revs[i]); err != nil && !errors.Is(err, ErrConflict) {
				return released, err
			}
			continue
		} else if err != nil {
			return released, storeErr("publish queued alert", err)
		}
		rec.State, rec.ReleasedAt = StateInvestigating, now
		if _, err := x.save(ctx, rec, revs[i]); err != nil && !errors.Is(err, ErrConflict) {
			return released, err
		}
		x.busy[rec.IncidentID] = now
		released = append(released, rec.IncidentID)
	}
	return released, nil
}

func (x *Index) resolve(ctx context.Context, a contracts.AlertV1, now time.Time) (Result, error) {
	key := webhook.RuleKey(a.Service, a.RuleID)
	e, err := x.kv.Get(ctx, key)
	if errors.Is(err, ErrNotFound) {
		// Nothing open (already closed, or opened before the index existed):
		// record the resolution on the bus so the trail is complete.
		if err := x.pub.Publish(ctx, a, MsgID(a)); err != nil {
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
	left, err := x.kv.Keys(ctx, "fp."+id+".*")
	if err != nil {
		return Result{}, storeErr("list firing alerts", err)
	}
	if len(left) > 0 {
		return Result{Outcome: PartlyResolved, IncidentID: id}, nil
	}
	a.IncidentID = id
	if err := x.pub.Publish(ctx, a, MsgID(a)); err != nil {
		return Result{}, storeErr("publish resolved alert", err)
	}
	for range 5 {
		rec, rev, err := x.record(ctx, id)
		if errors.Is(err, ErrNotFound) {
			break
		}
		if err != nil {
			return Result{}, err
		}
		if rec.State == StateResolved {
			break
		}
		rec.State, rec.ResolvedAt = StateResolved, now
		if _, err := x.save(ctx, rec, rev); err == nil {
			break
		} else if !errors.Is(err, ErrConflict) {
			return Result{}, err
		}
	}
	if err := x.kv.Delete(ctx, key); err != nil {
		return Result{}, storeErr("close index", err)
	}
	x.admit.Lock()
	delete(x.busy, id)
	x.admit.Unlock()
	return Result{Outcome: Resolved, IncidentID: id}, nil
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
		x.admit.Lock()
		delete(x.busy, id)
		x.admit.Unlock()
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
		rec, rev, err := x.record(ctx, a.IncidentID)
		if errors.Is(err, ErrNotFound) {
			rec = Record{IncidentID: a.IncidentID, Service: a.Service, RuleID: a.RuleID, State: state, OpenedAt: now, Alert: a}
			if state == StateResolved {
				rec.ResolvedAt = now
			}
			b, _ := json.Marshal(rec)
			if _, err := x.kv.Create(ctx, a.IncidentID, b); err == nil {
				return nil
			} else if !errors.Is(err, ErrExists) {
				return storeErr("record no-data alert", err)
			}
			continue
		}
		if err != nil {
			return err
		}
		if !rec.Alert.NoData || rec.State == state {
			return nil
		}
		rec.State = state
		if state == StateResolved {
			rec.ResolvedAt = now
		}
		if _, err := x.save(ctx, rec, rev); err == nil || !errors.Is(err, ErrConflict) {
			return err
		}
	}
	return storeErr("record no-data alert", errors.New("record keeps changing"))
}
