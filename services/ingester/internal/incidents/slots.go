package incidents

import (
	"context"
	"slices"
	"time"
)

// acquire takes an investigation slot for id at now if one is free. The
// slot counts as in flight until settle.
func (x *Index) acquire(ctx context.Context, id string, now time.Time) (bool, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.load(ctx); err != nil {
		return false, err
	}
	if !x.slots.Acquire(id, now) {
		return false, nil
	}
	x.inflight[id] = now
	x.taken(id, now)
	return true, nil
}

// taken notes a slot taken while a dispatch reads the bucket, which may not
// show it; the caller holds mu.
func (x *Index) taken(id string, at time.Time) {
	if x.scans > 0 {
		x.since = append(x.since, slot{id, at})
	}
}

type slot struct {
	id string
	at time.Time
}

// settle ends the in-flight opening of id: held says whether its record now
// holds the slot (written as investigating).
func (x *Index) settle(id string, held bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.inflight, id)
	if !held {
		x.free(id)
	}
}

// release gives back id's slot: decided or resolved.
func (x *Index) release(id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.free(id)
	x.freed = true
}

// free gives back id's slot; the caller holds mu.
func (x *Index) free(id string) {
	x.slots.Release(id)
	x.since = slices.DeleteFunc(x.since, func(s slot) bool { return s.id == id })
}

// load reads the held slots from the bucket, once; the caller holds mu.
func (x *Index) load(ctx context.Context) error {
	if x.loaded {
		return nil
	}
	recs, _, err := x.records(ctx)
	if err != nil {
		return err
	}
	x.reset(recs)
	return nil
}

// reset rebuilds the slots from recs, keeping the openings in flight; the
// caller holds mu. It returns how many in-flight slots recs do not show.
func (x *Index) reset(recs []Record) int {
	x.slots.Reset(recs)
	shown := map[string]bool{}
	for _, r := range recs {
		if r.State == StateInvestigating {
			shown[r.IncidentID] = true
		}
	}
	extra := 0
	for id, at := range x.inflight {
		x.slots.Hold(id, at)
		if !shown[id] {
			extra++
		}
	}
	for _, s := range x.since {
		if _, ok := x.inflight[s.id]; !ok && !shown[s.id] {
			x.slots.Hold(s.id, s.at)
			shown[s.id] = true
			extra++
		}
	}
	if x.scans == 0 {
		x.since = nil
	}
	x.loaded = true
	return extra
}

// maxFailed bounds the openings remembered as failed.
const maxFailed = 1024

// failed remembers that the opening of id, released at at, failed after its
// record was written, so that its retry reports the incident opened.
func (x *Index) failed(id string, at time.Time) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.unfinished) >= maxFailed {
		for k, t := range x.unfinished {
			if at.Sub(t) >= RedeliveryWindow {
				delete(x.unfinished, k)
			}
		}
	}
	if len(x.unfinished) < maxFailed {
		x.unfinished[id] = at
	}
}

// retried reports whether the opening of id had failed, and forgets it.
func (x *Index) retried(id string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	_, ok := x.unfinished[id]
	delete(x.unfinished, id)
	return ok
}

// queued counts an incident this process queued, whose record is stored,
// and moves QueuedKey for the other replicas.
func (x *Index) queued(ctx context.Context) {
	x.mu.Lock()
	x.queuing++
	x.mu.Unlock()
	x.moveMark(ctx)
}

// maxKnown bounds the open incidents remembered by rule key.
const maxKnown = 4096

// remember notes that id is the open incident of the rule key.
func (x *Index) remember(key, id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.known) >= maxKnown {
		clear(x.known)
	}
	x.known[key] = id
}

// openID is the incident this process last saw open for the rule key.
func (x *Index) openID(key string) (string, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	id, ok := x.known[key]
	return id, ok
}

// forget drops the rule key's incident if it is still id.
func (x *Index) forget(key, id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.known[key] == id {
		delete(x.known, key)
	}
}
