package incidents

import (
	"context"
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
	return true, nil
}

// settle ends the in-flight opening of id: held says whether its record now
// holds the slot (written as investigating).
func (x *Index) settle(id string, held bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.inflight, id)
	if !held {
		x.slots.Release(id)
	}
}

// release gives back id's slot: decided or resolved.
func (x *Index) release(id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.slots.Release(id)
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
