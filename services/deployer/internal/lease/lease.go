// Package lease keeps one deployer replica acting while the others stand
// by. The lease is one key in the agentk_leases bucket. Whoever finds it
// absent creates it (of racing creates, one wins); its holder renews it with
// compare-and-set at the revision it last wrote, every third of the lease; a
// standby takes it over, again with compare-and-set, only once it has seen
// the same revision for a whole lease on its own clock, so no two clocks need
// agree. The holder stops acting as soon as a renewal fails or is late (not
// done within two thirds of the lease since the last one began), which is
// before any standby may take over. The lease is the first line against two
// deployers acting at once; the decision-spent CAS and the cooldown, checked
// on every approval, stay the second.
package lease

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"agentk/platform/mutant"
	"agentk/services/deployer/internal/kvstore"
)

// Modes a replica reports (OnMode).
const (
	// ModeLeader holds the lease and runs its term: it acts.
	ModeLeader = "leader"
	// ModeStandby waits to take the lease over; it is ready, and acts on nothing.
	ModeStandby = "standby"
)

// ErrTermStopped wraps a term that returned while its lease still held: the
// replica no longer acts, and whoever runs it must say so and restart it.
var ErrTermStopped = errors.New("lease: term stopped on its own")

// Store is the lease's bucket (kvstore.Bucket). Get returns
// kvstore.ErrNotFound for a missing or deleted key; Put with rev 0 creates;
// Put and Delete return kvstore.ErrConflict when someone else wrote first.
type Store interface {
	Get(ctx context.Context, key string) (kvstore.Entry, error)
	Put(ctx context.Context, key string, value []byte, rev uint64) (uint64, error)
	Delete(ctx context.Context, key string, rev uint64) error
}

// Record is the lease's value: for people reading the bucket, and so that a
// standby configured with a shorter lease waits as long as the holder's.
type Record struct {
	Holder    string    `json:"holder"`
	TTLMs     int64     `json:"ttl_ms"`
	RenewedAt time.Time `json:"renewed_at"`
}

// Lease is one replica's side of the lease. Every field is required but
// Logger and OnMode.
type Lease struct {
	Store Store
	// Key is the lease's key: the role that runs active-standby.
	Key string
	// Holder names this replica, unique among the replicas of every run.
	Holder string
	// TTL is how long a lease holds without a renewal.
	TTL time.Duration
	// Now stamps the record's RenewedAt; lease timing reads the monotonic clock.
	Now func() time.Time
	// OnMode, when set, is told each change of mode and, for a standby, who
	// holds the lease (empty when nobody does).
	OnMode func(mode, holder string)
	Logger *slog.Logger

	// reported is the last mode and holder told to OnMode.
	reported [2]string
}

// Run holds the lease whenever it can and runs term while it holds it, with
// a context that ends when the lease is lost or ctx ends: term must stop
// acting once its context ends, and return once it has. When ctx ends, Run
// waits for term, releases the lease (a standby takes over at once) and
// returns nil. When term returns while its lease holds, Run releases the
// lease and returns term's error wrapped in ErrTermStopped.
func (l *Lease) Run(ctx context.Context, term func(ctx context.Context) error) error {
	for {
		rev, began, err := l.acquire(ctx)
		if err != nil {
			return nil // ctx ended while standing by
		}
		rev, lost, err := l.hold(ctx, rev, began, term)
		if lost {
			continue
		}
		l.release(ctx, rev)
		return err
	}
}

// acquire stands by until this replica holds the lease: it returns the
// revision it wrote and when the write began, or ctx's error.
func (l *Lease) acquire(ctx context.Context) (uint64, time.Time, error) {
	var seen sighting
	poll := time.NewTicker(l.TTL / 3)
	defer poll.Stop()
	for {
		began := time.Now()
		rev, err := l.try(ctx, &seen, began)
		if err == nil {
			return rev, began, nil
		}
		select {
		case <-ctx.Done():
			return 0, time.Time{}, ctx.Err()
		case <-poll.C:
		}
	}
}

// errHeld means somebody else holds the lease.
var errHeld = errors.New("lease: held")

// try reads the lease and writes it when it is absent, seen unchanged for a
// whole lease, or still names this replica: nobody took it over since this
// replica stopped acting under it (a renewal that failed or came back late,
// applied or not), and of the standbys that may try, the compare-and-set
// lets one win.
func (l *Lease) try(ctx context.Context, seen *sighting, now time.Time) (uint64, error) {
	var rev uint64
	e, err := l.Store.Get(ctx, l.Key)
	switch {
	case errors.Is(err, kvstore.ErrNotFound):
	case err != nil:
		l.log().Warn("lease unreadable; standing by", "key", l.Key, "err", err)
		l.mode(ModeStandby, seen.holder)
		return 0, err
	case l.ours(e):
		rev = e.Revision
	default:
		*seen = seen.next(e, now)
		if !seen.expired(l.TTL, now) {
			l.mode(ModeStandby, seen.holder)
			return 0, errHeld
		}
		rev = e.Revision
	}
	n, err := l.Store.Put(ctx, l.Key, l.record(), rev)
	if err != nil {
		l.mode(ModeStandby, seen.holder)
		return 0, err
	}
	if rev != 0 && seen.rev == rev {
		l.log().Warn("lease taken over: its holder stopped renewing it", "key", l.Key, "previous_holder", seen.holder, "ttl", l.TTL.String())
	}
	return n, nil
}

// hold runs term and renews the lease at rev every third of the lease until
// a renewal fails or is late (lost), term stops or ctx ends. It returns the
// revision last written, and term's error when term stopped on its own.
func (l *Lease) hold(ctx context.Context, rev uint64, renewed time.Time, term func(ctx context.Context) error) (last uint64, lost bool, err error) {
	tctx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- term(tctx) }()
	l.mode(ModeLeader, l.Holder)
	tick := time.NewTicker(l.TTL / 3)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			switch {
			case ctx.Err() != nil:
				return rev, false, nil
			case err == nil:
				return rev, false, ErrTermStopped
			}
			return rev, false, fmt.Errorf("%w: %w", ErrTermStopped, err)
		case <-ctx.Done():
			stop()
			<-done
			return rev, false, nil
		case <-tick.C:
		}
		began := time.Now()
		n, err := l.renew(ctx, rev, renewed.Add(l.TTL*2/3))
		if err == nil {
			rev, renewed = n, began
			continue
		}
		if mutant.Off(mutant.DeployerLeaseRenewal) {
			continue
		}
		// Stop acting now: a standby may take over one lease after it last
		// saw this revision, and that is later than renewed + TTL.
		stop()
		l.log().Error("LEASE LOST: renewal failed or late; stopped consuming, standing by", "key", l.Key, "err", err)
		<-done
		return rev, true, nil
	}
}

// renew writes the lease at rev, failing once deadline has passed.
func (l *Lease) renew(ctx context.Context, rev uint64, deadline time.Time) (uint64, error) {
	rctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	return l.Store.Put(rctx, l.Key, l.record(), rev)
}

// release deletes the lease at rev once term has returned, so that a
// standby takes over without waiting a lease.
func (l *Lease) release(ctx context.Context, rev uint64) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.TTL/3)
	defer cancel()
	if err := l.Store.Delete(rctx, l.Key, rev); err != nil {
		l.log().Warn("lease not released; a standby takes over once it expires", "key", l.Key, "err", err)
	}
}

// ours reports whether e names this replica as its holder.
func (l *Lease) ours(e kvstore.Entry) bool {
	var r Record
	return json.Unmarshal(e.Value, &r) == nil && r.Holder == l.Holder
}

func (l *Lease) record() []byte {
	b, _ := json.Marshal(Record{Holder: l.Holder, TTLMs: l.TTL.Milliseconds(), RenewedAt: l.Now().UTC()}) //nolint:errchkjson // plain fields
	return b
}

// mode tells OnMode of a change of mode or holder.
func (l *Lease) mode(mode, holder string) {
	if l.OnMode != nil && l.reported != [2]string{mode, holder} {
		l.reported = [2]string{mode, holder}
		l.OnMode(mode, holder)
	}
}

func (l *Lease) log() *slog.Logger {
	if l.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l.Logger
}

// sighting is what a standby last saw of the lease: the revision, since when
// (its own clock), who held it and for how long.
type sighting struct {
	rev    uint64
	since  time.Time
	holder string
	ttl    time.Duration
}

// next is s after seeing e at now: unchanged while the revision is the same.
func (s sighting) next(e kvstore.Entry, now time.Time) sighting {
	if e.Revision == s.rev && !s.since.IsZero() {
		return s
	}
	var r Record
	if json.Unmarshal(e.Value, &r) != nil {
		r = Record{Holder: "(unreadable lease)"}
	}
	return sighting{rev: e.Revision, since: now, holder: r.Holder, ttl: time.Duration(r.TTLMs) * time.Millisecond}
}

// expired reports whether the revision seen has stood unchanged for a whole
// lease: the longer of own and the holder's.
func (s sighting) expired(own time.Duration, now time.Time) bool {
	return !s.since.IsZero() && now.Sub(s.since) >= max(own, s.ttl)
}
