package admission

import (
	"slices"
	"sort"
	"time"
)

// Slots counts the investigation slots this process knows to be held, so
// that admitting an incident costs no scan of the open incidents: Acquire
// and Release are O(1) amortised (a slot is dropped once, when its lease
// runs out). It is not safe for concurrent use; the caller serialises.
type Slots struct {
	max   int
	lease time.Duration
	// held is the release time of every slot held, by incident id.
	held map[string]time.Time
	// order is held by release time, oldest first, with released or
	// re-acquired entries left in place until they reach the front.
	order []slot
}

type slot struct {
	id string
	at time.Time
}

// NewSlots returns an empty set of max slots, each held for at most lease.
func NewSlots(max int, lease time.Duration) *Slots {
	return &Slots{max: max, lease: lease, held: map[string]time.Time{}}
}

// Reset replaces what is held with recs' investigating incidents (the
// bucket's truth, read by a dispatch).
func (s *Slots) Reset(recs []Record) {
	s.held, s.order = map[string]time.Time{}, nil
	for _, r := range recs {
		if r.State == StateInvestigating {
			s.held[r.IncidentID] = r.ReleasedAt
			s.order = append(s.order, slot{r.IncidentID, r.ReleasedAt})
		}
	}
	sort.SliceStable(s.order, func(i, j int) bool { return s.order[i].at.Before(s.order[j].at) })
}

// Busy is the number of slots held at now.
func (s *Slots) Busy(now time.Time) int {
	for len(s.order) > 0 {
		f := s.order[0]
		at, ok := s.held[f.id]
		switch {
		case ok && at.Equal(f.at) && now.Sub(at) < s.lease:
			return len(s.held)
		case ok && at.Equal(f.at):
			delete(s.held, f.id) // the lease ran out
		}
		s.order = s.order[1:]
	}
	return len(s.held)
}

// Free reports whether a slot is free at now.
func (s *Slots) Free(now time.Time) bool { return s.Busy(now) < s.max }

// Acquire takes a slot for id at now if one is free (or id holds one
// already) and reports whether it did.
func (s *Slots) Acquire(id string, now time.Time) bool {
	if _, ok := s.held[id]; !ok && !s.Free(now) {
		return false
	}
	s.Hold(id, now)
	return true
}

// Hold records that id holds a slot released at at.
func (s *Slots) Hold(id string, at time.Time) {
	s.held[id] = at
	i := len(s.order)
	if i > 0 && at.Before(s.order[i-1].at) {
		i = sort.Search(len(s.order), func(k int) bool { return at.Before(s.order[k].at) })
	}
	s.order = slices.Insert(s.order, i, slot{id, at})
}

// Release gives id's slot back; releasing a slot not held does nothing.
func (s *Slots) Release(id string) { delete(s.held, id) }
