package facts

import (
	"slices"
	"sort"
	"time"

	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// Impatient calls (issue 35, e2e/incidents-heldout2's
// ho2-storm-after-slow-episode-delivery-slots): a release that cuts its
// client's timeout on a peer makes its calls to that peer fail although the
// peer answers them, at a call rate that can stay under
// contracts.DependencyCallRatio (the failed attempts are retried, a few
// times). FailingDependencies reads that as a dependency failing under
// ordinary use. Two readings of the service's own traces (the origin's
// rows: every span of its failing traces since the onset and in the
// baseline) tell the service's giving up from the peer's failing:
//
//   - answered: most of the service's failed calls to the peer since the
//     onset have the peer's server span beneath them, without an error, and
//     that span ended after the call did (the peer answered; the caller had
//     already given up). A call the peer never saw (refused connection, a
//     connect timeout, a host that is down) has no span of the peer and does
//     not count;
//   - waited: before the onset the service waited, on at least MinWaited
//     calls to the peer that the peer answered without an error, at least
//     WaitedRatio times as long as the longest of those answered failed
//     calls lasted.
//
// An unchanged client cannot do both: a call it gives up on lasts its whole
// timeout (every attempt, when it retries inside one span), and no call it
// completes lasts longer, so its completed calls in the baseline are no
// longer than its answered failed calls since the onset. A peer that slows,
// or a network that drops the answers, under an unchanged client, leaves
// the peer failing (the traps in tools' TestImpatientCallsAreNoFailingDependency).
// What is left open: a patience cut at the onset by something other than
// the service's release (a shorter deadline propagated by a caller's own
// change at the same minute), which the gate's marker timing bounds but
// cannot exclude.
const (
	// MinWaited is the least number of the baseline's answered calls that
	// must outlast the answered failed calls since the onset.
	MinWaited = 3
	// WaitedRatio is how much longer than the longest answered failed call
	// since the onset those baseline calls must have lasted.
	WaitedRatio = 1.5
)

// ImpatientPeers returns the peers among peers (service names: a peer named
// by a host name has no span of its own to read) whose failed calls from
// svc since the onset the peer answered, and on which svc waited before the
// onset much longer than it does now (see above). rows are every span of
// svc's failing traces, since the onset and in the baseline.
func ImpatientPeers(rows []signoz.RawRow, svc string, onset time.Time, peers []string) []string {
	if len(peers) == 0 || len(rows) == 0 {
		return nil
	}
	per := map[string]*patience{}
	for _, p := range peers {
		per[p] = &patience{}
	}
	byTrace, client := clientTraces(rows)
	for tid, trace := range byTrace {
		for _, c := range trace {
			if c.service == svc && client[tid+"/"+c.id] && c.dur > 0 {
				tallyCall(trace, c, svc, !c.start.Before(onset), per)
			}
		}
	}
	var out []string
	for _, p := range peers {
		if per[p].gaveUpSooner() {
			out = append(out, p)
		}
	}
	return out
}

// patience is what the service's client spans to one peer show: its failed
// calls since the onset, how long those the peer answered lasted, and how
// long the calls before the onset that the peer answered without an error
// lasted.
type patience struct {
	failed   int
	answered []time.Duration
	waited   []time.Duration
}

// clientTraces indexes rows by trace and span id, and marks the client
// spans (by trace/span id).
func clientTraces(rows []signoz.RawRow) (map[string]map[string]traceSpan, map[string]bool) {
	byTrace := map[string]map[string]traceSpan{}
	client := map[string]bool{}
	for _, r := range rows {
		tid, s, ok := readSpan(r)
		if !ok {
			continue
		}
		if outboundKind(r.Data) {
			client[tid+"/"+s.id] = true
		}
		if byTrace[tid] == nil {
			byTrace[tid] = map[string]traceSpan{}
		}
		byTrace[tid][s.id] = s
	}
	return byTrace, client
}

// tallyCall counts the client span c of svc against the peer whose span
// lies beneath it: since the onset a failed call (answered when the peer's
// span has no error and ended after c), before it a call both sides
// completed without an error.
func tallyCall(trace map[string]traceSpan, c traceSpan, svc string, since bool, per map[string]*patience) {
	for _, k := range trace {
		t := per[k.service]
		if k.parent != c.id || t == nil || k.service == svc {
			continue
		}
		switch {
		case since && c.err:
			t.failed++
			if !k.err && k.start.Add(k.dur).After(c.start.Add(c.dur)) {
				t.answered = append(t.answered, c.dur)
			}
		case !since && !c.err && !k.err:
			t.waited = append(t.waited, c.dur)
		}
	}
}

// gaveUpSooner reports whether at least MinFaultCalls calls failed, more
// than half of them answered, and at least MinWaited calls before the onset
// lasted WaitedRatio times the longest answered failed call.
func (t *patience) gaveUpSooner() bool {
	if t.failed < MinFaultCalls || 2*len(t.answered) <= t.failed {
		return false
	}
	if mutant.Off(mutant.SandboxImpatientWaited) {
		return true
	}
	longest := slices.Max(t.answered)
	sort.Slice(t.waited, func(i, j int) bool { return t.waited[i] > t.waited[j] })
	return len(t.waited) >= MinWaited && float64(t.waited[MinWaited-1]) >= WaitedRatio*float64(longest)
}
