package fakesignoz

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// index is one signal's records, indexed once so that a query looks only at
// the records it can match: their positions by time, and, for each
// comparison a filter makes (service.name = 'x', has_error = true), the set
// of records that satisfy it, computed the first time a filter makes it and
// reused by every later query. A query then intersects its comparisons' sets
// and evaluates only the rest of its filter (OR, NOT, free text) on what is
// left, in record order: answers, ties in sorting included, are those of a
// scan of every record.
type index struct {
	signal string
	recs   []record
	byTime []int32 // positions, stably sorted by timestamp

	mu      sync.Mutex
	matched map[string]bitset // by comparisonKey
}

// bitset holds one bit per record position.
type bitset []uint64

func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }

func newIndex(signal string, recs []record) *index {
	ix := &index{signal: signal, recs: recs, byTime: make([]int32, len(recs)), matched: map[string]bitset{}}
	for i := range ix.byTime {
		ix.byTime[i] = int32(i)
	}
	sort.SliceStable(ix.byTime, func(a, b int) bool { return recs[ix.byTime[a]].ts.Before(recs[ix.byTime[b]].ts) })
	return ix
}

// comparisonKey names what a comparison's outcome depends on.
func comparisonKey(c compareNode) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q %q %s %t", c.key.Name, c.key.FieldContext, c.op, c.negate)
	for _, l := range c.values {
		fmt.Fprintf(&b, " %d:%q", l.kind, l.text)
	}
	return b.String()
}

// matching returns the records satisfying c, computing them on first use.
func (ix *index) matching(c compareNode) bitset {
	key := comparisonKey(c)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if set, ok := ix.matched[key]; ok {
		return set
	}
	set := make(bitset, (len(ix.recs)+63)/64)
	for i := range ix.recs {
		if compare(c, &ix.recs[i], ix.signal) {
			set[i/64] |= 1 << (i % 64)
		}
	}
	ix.matched[key] = set
	return set
}

// window returns the positions of the records inside [start, end], in
// record order.
func (ix *index) window(start, end time.Time) []int32 {
	lo := sort.Search(len(ix.byTime), func(i int) bool { return !ix.recs[ix.byTime[i]].ts.Before(start) })
	hi := sort.Search(len(ix.byTime), func(i int) bool { return ix.recs[ix.byTime[i]].ts.After(end) })
	if lo >= hi {
		return nil
	}
	out := slices.Clone(ix.byTime[lo:hi])
	slices.Sort(out)
	return out
}

// selectRecords returns, in record order, the records inside [start, end]
// that match filter n.
func (ix *index) selectRecords(n node, start, end time.Time) []*record {
	var sets []bitset
	var rest []node
	for _, c := range conjuncts(n, nil) {
		if cmp, ok := c.(compareNode); ok {
			sets = append(sets, ix.matching(cmp))
		} else {
			rest = append(rest, c)
		}
	}
	var out []*record
	for _, i := range ix.window(start, end) {
		if !inAll(sets, int(i)) {
			continue
		}
		r := &ix.recs[i]
		if matchesAll(rest, r, ix.signal) {
			out = append(out, r)
		}
	}
	return out
}

func inAll(sets []bitset, i int) bool {
	for _, s := range sets {
		if !s.has(i) {
			return false
		}
	}
	return true
}

func matchesAll(nodes []node, r *record, signal string) bool {
	for _, n := range nodes {
		if !matches(n, r, signal) {
			return false
		}
	}
	return true
}

// conjuncts appends the parts of n every match must satisfy: n itself
// unless it is an AND. A nil filter has none.
func conjuncts(n node, out []node) []node {
	switch x := n.(type) {
	case nil:
		return out
	case andNode:
		return conjuncts(x.right, conjuncts(x.left, out))
	}
	return append(out, n)
}
