// Package incidents turns normalised alerts into incidents: one incident per
// (service, rule) while it fires. It is the KV adapter of the admission core
// (package admission): it keeps the open-incident index in a KV bucket
// (agentk_incidents) behind the small KV interface, publishes the alert that
// opens an incident (and the one that closes it) through Publisher, and
// admits at most a configured number of incidents to investigation at once;
// the rest queue in the index until a slot frees.
//
// The lifecycle of an incident, state by state, is docs/lifecycle.md.
//
// Keys of the bucket:
//
//	open.<service slug>.<hash>   the id of the open incident of (service, rule)
//	<incident id>                the incident Record (JSON)
//	fp.<incident id>.<fp>        one firing alert attached to the incident
//
// The alert that opened an incident has no fp key: its record stands for it
// until it resolves (Record.AlertResolved).
//
// A new incident costs two round trips (open.go). Every step is idempotent,
// so a delivery that failed half-way (bus down between two writes) and is
// retried by the sender completes the same incident rather than opening a
// second one: the retry republishes the alert under the same Nats-Msg-Id.
package incidents

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"agentk/contracts"
	"agentk/services/ingester/internal/admission"
)

// Errors a KV implementation returns, and the package's own.
var (
	ErrNotFound = errors.New("incidents: key not found")
	ErrExists   = errors.New("incidents: key exists")
	ErrConflict = errors.New("incidents: revision conflict")
	// ErrUsed: CreateNewAsync did not write the key (it had a value, or
	// the outcome of the write is unknown).
	ErrUsed = errors.New("incidents: key had a value")
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

// KV is the part of a JetStream KV bucket the index needs. The index calls
// it from several goroutines at once.
type KV interface {
	// Get returns ErrNotFound for a missing or deleted key.
	Get(ctx context.Context, key string) (Entry, error)
	// Create writes key only if it does not exist (or was deleted); ErrExists otherwise.
	Create(ctx context.Context, key string, value []byte) (uint64, error)
	// CreateAsync sends Create and returns at once; the Pending returns
	// what Create would have.
	CreateAsync(ctx context.Context, key string, value []byte) Pending[uint64]
	// CreateNewAsync is CreateAsync's first send alone: the write of a key
	// that never had a value. Its Pending returns ErrUsed when that write
	// was not made: the key had a value (it is live, or was deleted), or the
	// send was not acknowledged. Recreate then decides.
	CreateNewAsync(ctx context.Context, key string, value []byte) Pending[uint64]
	// Recreate is Create after CreateNewAsync returned ErrUsed: it does the
	// rest of Create's steps (a live key is ErrExists, a deleted one is
	// written over its delete marker).
	Recreate(ctx context.Context, key string, value []byte) (uint64, error)
	// Update writes key only at revision rev; ErrConflict otherwise.
	Update(ctx context.Context, key string, value []byte, rev uint64) (uint64, error)
	// Delete removes key; deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// Keys lists live keys matching a NATS subject filter ("*", "fp.<id>.*").
	Keys(ctx context.Context, filter string) ([]string, error)
}

// Pending is a write sent without waiting for its acknowledgement: calling
// it waits for that and returns what the blocking call would have. Writes
// sent before any is awaited cost one round trip between them. Call a
// Pending once.
type Pending[T any] func() (T, error)

// Publisher makes an alert durable on the bus. Publish sends the message
// (msgID becomes Nats-Msg-Id) and returns at once; its Pending returns after
// JetStream acknowledged it. fresh is false when JetStream dropped the
// message as a duplicate of msgID inside its de-duplication window: it was
// stored before.
type Publisher interface {
	Publish(ctx context.Context, a Alert, msgID string) Pending[bool]
}

// Preparer is a Publisher that can do ahead of time the work Publish does
// before it sends (sealing), so that a new incident's alert is sealed while
// its first round trip is in flight. Prepare sends nothing; it returns a for
// a later Publish under the same msgID.
type Preparer interface {
	Prepare(a Alert, msgID string) (Alert, error)
}

// Alert is an alert and, when the index has it, its JSON encoding: a new
// incident's alert is encoded once, and its record and the sealed
// publication carry the same bytes.
type Alert struct {
	contracts.AlertV1
	// JSON is AlertV1 encoded, or nil: the publisher encodes it.
	JSON []byte
	// Sealed is the publisher's own sealed form of the alert, made by its
	// Prepare, or nil.
	Sealed any
}

// publish publishes a under its message id.
func (x *Index) publish(ctx context.Context, a contracts.AlertV1) (bool, error) {
	return x.pub.Publish(ctx, Alert{AlertV1: a}, MsgID(a))()
}

// Record is one incident in the index (admission.Record).
type Record = admission.Record

// Incident states (admission's).
const (
	StatePending       = admission.StatePending
	StateQueued        = admission.StateQueued
	StateInvestigating = admission.StateInvestigating
	StateDecided       = admission.StateDecided
	StateResolved      = admission.StateResolved
	StateNoData        = admission.StateNoData
	StateRefused       = admission.StateRefused
)

// Admit and Busy are admission's, over records of the index.
var (
	Admit = admission.Admit
	Busy  = admission.Busy
)

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

// RedeliveryWindow is how long after its release a re-delivered opening
// alert is published again (under the same Nats-Msg-Id, so JetStream drops
// it if the first publish was stored). It does not exceed the stream's
// de-duplication window (platform/bus Provision, 2 minutes by default), so
// that a later repeat notification is never stored twice.
const RedeliveryWindow = 2 * time.Minute

// RescanEvery is how often a dispatch reads the bucket when this process
// knows of no queued incident.
const RescanEvery = time.Minute

// Index is the incident index. It is safe for concurrent use.
type Index struct {
	kv    KV
	pub   Publisher
	max   int
	lease time.Duration
	// mu serialises admission decisions of this process, so concurrent
	// openings cannot overshoot the investigation limit. It guards slots
	// and inflight.
	mu    sync.Mutex
	slots *admission.Slots
	// inflight holds the slots taken by openings whose record is still
	// being written, so that a dispatch rebuilding slots from the bucket
	// keeps them.
	inflight map[string]time.Time
	// loaded is set once slots reflect the bucket.
	loaded bool
	// scans counts the dispatches reading the bucket; since holds the slots
	// taken meanwhile, which their reading may have missed.
	scans int
	since []slot
	// queuing counts the queued incidents this process knows of; scanned
	// is when a dispatch last read the bucket.
	queuing int
	scanned time.Time
	// freed is set when a decision or a resolve frees a slot: the next
	// dispatch reads the bucket if another replica may have queued since
	// (QueuedKey moved from markSeen, its revision at the last reading).
	freed    bool
	markSeen uint64
	// unfinished holds the openings whose record was written but whose
	// delivery failed, so that the retry reports "opened" even when the bus
	// had stored the alert after all (a publish the client buffered while it
	// reconnected). After a restart the retry still republishes, and says
	// "opened" only if JetStream had not stored the alert.
	unfinished map[string]time.Time
	// known maps a rule's open key to the incident this process last saw
	// open for it, so that the next alert of the rule attaches in one
	// round trip; the record read with it says whether it is still open.
	known map[string]string
}

// New returns an index over kv that publishes through pub and lets at most
// maxInvestigations incidents be investigated at once; a released incident
// holds its slot until it is decided, resolves or lease passes.
func New(kv KV, pub Publisher, maxInvestigations int, lease time.Duration) *Index {
	return &Index{kv: kv, pub: pub, max: maxInvestigations, lease: lease,
		slots: admission.NewSlots(maxInvestigations, lease), inflight: map[string]time.Time{}, unfinished: map[string]time.Time{},
		known: map[string]string{}}
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
	return "alert." + a.IncidentID + "." + status + "." + strconv.FormatInt(a.StartsAt.Unix(), 10)
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
		if _, err := x.publish(ctx, a); err != nil {
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
