package tools

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"sync"

	"agentk/services/sandbox/internal/signoz"
)

// overviewMemoSize bounds the overview states kept. One service_overview
// derives its state at every follow-up stage and again when it builds
// (three times a call), and every investigator replaying an incident asks
// for the same overview of the same answers: a replay's CPU profile put
// overviewBase at 13% of an eval's CPU and a third of its allocations.
// An eval runs two replays at once, incident by incident, each with a few
// overviews (one a service). A running sandbox keeps the answers of its
// last overviewMemoSize overviews in memory (a few MB each at most: the
// sample is the largest).
const overviewMemoSize = 16

// overviewMemo keeps overviewBase's answers by their whole input: the call
// (its JSON, less the rule read, compared apart) and the bytes of every
// answer it reads, compared in full on a hit (the hash only picks the
// candidates). An entry holds those answers; they are never written to
// once decoded. A state handed out is shared by every caller with the same
// input, which only reads it (Then and Build copy what they change). Safe
// for concurrent use; a caller that finds the same input under way waits
// for it rather than deriving it again.
var overviewMemo struct {
	mu      sync.Mutex
	entries []*overviewMemoEntry // oldest first
}

// overviewSeed seeds the hash that picks an entry's candidates.
var overviewSeed = maphash.MakeSeed()

type overviewMemoEntry struct {
	sum   uint64
	in    overviewInput
	ready chan struct{} // closed once st and ok are set
	st    overviewState
	ok    bool // overviewBase succeeded; an error is not kept
}

// overviewInput is what overviewBase reads: the call and its answers.
type overviewInput struct {
	call  []byte // the call as JSON, without Rule
	rule  *RuleRead
	resps []signoz.Response
	qual  []signoz.Response
}

func newOverviewInput(c Call, resps, qual []signoz.Response) (overviewInput, bool) {
	in := overviewInput{resps: resps, qual: qual, rule: c.Rule}
	c.Rule = nil
	b, err := json.Marshal(c)
	if err != nil {
		return in, false
	}
	in.call = b
	return in, true
}

func (in *overviewInput) sum(seed maphash.Seed) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	_, _ = h.Write(in.call)
	if in.rule != nil {
		r := in.rule
		_, _ = h.WriteString(r.Rule.ID + "\x00" + r.Rule.Name + "\x00" + r.Rule.Expr + "\x00" + r.Unread)
		hashResponses(&h, r.Resps)
	}
	hashResponses(&h, in.resps)
	hashResponses(&h, in.qual)
	return h.Sum64()
}

func hashResponses(h *maphash.Hash, rs []signoz.Response) {
	for _, r := range rs {
		_, _ = h.WriteString(r.Type + "\x00" + r.Refused + "\x00")
		for _, x := range r.Data.Results {
			_, _ = h.Write(x)
			_ = h.WriteByte(0)
		}
		_ = h.WriteByte(1)
	}
	_ = h.WriteByte(2)
}

// same reports whether in and o are the same input, byte for byte.
func (in *overviewInput) same(o *overviewInput) bool {
	if !bytes.Equal(in.call, o.call) || (in.rule == nil) != (o.rule == nil) {
		return false
	}
	if in.rule != nil && (in.rule.Rule != o.rule.Rule || in.rule.Unread != o.rule.Unread || !sameResponses(in.rule.Resps, o.rule.Resps)) {
		return false
	}
	return sameResponses(in.resps, o.resps) && sameResponses(in.qual, o.qual)
}

func sameResponses(a, b []signoz.Response) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Type != y.Type || x.Refused != y.Refused || len(x.Data.Results) != len(y.Data.Results) {
			return false
		}
		for k := range x.Data.Results {
			if !bytes.Equal(x.Data.Results[k], y.Data.Results[k]) {
				return false
			}
		}
	}
	return true
}

// sharedOverviewBase is overviewBase(c, resps, qual), kept by overviewMemo.
// Callers must not modify the state returned, nor anything it points to.
func sharedOverviewBase(c Call, resps, qual []signoz.Response) (overviewState, error) {
	in, ok := newOverviewInput(c, resps, qual)
	if !ok {
		return overviewBase(c, resps, qual)
	}
	sum := in.sum(overviewSeed)
	overviewMemo.mu.Lock()
	for _, e := range overviewMemo.entries {
		if e.sum == sum && e.in.same(&in) {
			overviewMemo.mu.Unlock()
			<-e.ready
			if e.ok {
				return e.st, nil
			}
			return overviewBase(c, resps, qual)
		}
	}
	e := &overviewMemoEntry{sum: sum, in: in, ready: make(chan struct{})}
	if len(overviewMemo.entries) >= overviewMemoSize {
		overviewMemo.entries = append(overviewMemo.entries[:0], overviewMemo.entries[1:]...)
	}
	overviewMemo.entries = append(overviewMemo.entries, e)
	overviewMemo.mu.Unlock()
	defer close(e.ready)
	st, err := overviewBase(c, resps, qual)
	e.st, e.ok = st, err == nil
	return st, err
}
