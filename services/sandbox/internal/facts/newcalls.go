package facts

import (
	"maps"
	"math"
	"slices"
	"time"

	"agentk/platform/mutant"
	"agentk/platform/stats"
)

// A release that sends its database a statement the database cannot run
// (a column whose migration has not run: SQL Server's error 207) makes the
// database "fail" on that statement alone: kf6-back-to-back-slots-warehouse-api's
// 4.0.1 wrote SlotReservations.CutoffUtc and its SqlClient spans failed, the
// database was a failing dependency at its usual call rate, and the right
// rollback was denied. A callee whose failures are confined to the calls
// the running version makes differently is the release's effect (the
// mirror of propagated); only a callee that fails on the calls the service
// did not change points elsewhere. NewCallFailures tells the two apart and
// fails closed: a peer leaves the failing dependencies only when both
// halves hold, and anything it cannot tell stays a failing dependency.

// PeerCall is what a peer's client spans of one kind of call (a statement
// text, db.query.text, db.statement, the span's name, rpc.method,
// http.route or url template: its call key) number on both sides of the
// onset.
type PeerCall struct {
	Key string
	// BaseCalls and BaseErrors are the spans of the key in the baseline
	// window sent by a version other than the running one: a key seen in
	// the baseline only from the running version (a release that rolled
	// out before the onset) has none, and is new.
	BaseCalls, BaseErrors float64
	// Calls and Errors are the spans of the key since the onset.
	Calls, Errors float64
	// OtherCalls and OtherErrors are those of Calls and Errors sent by a
	// version other than the running one (VersionConfined).
	OtherCalls, OtherErrors float64
}

// NewCallShare is the least share of a peer's failed calls since the onset
// that must be of keys no earlier version sent ("almost all": a stray
// failure of an old statement, a deadlock victim, does not keep the
// release's own statement a failing dependency, but more than one in
// twenty does).
const NewCallShare = 0.95

// MinOldCalls is the least number of kept (sampled) calls of the old keys
// since the onset that can say they are healthy. An outage that fails a
// share f of the old calls leaves n kept calls without a failure with
// probability (1-f)^n: at 30 calls, 4% for f = 0.10 and 0.2% for f = 0.19.
// At 1 in 20 sampled, 30 kept calls are about 600 sent; a service that
// keeps fewer since the onset keeps its failing dependency.
const MinOldCalls = 30

// OldCallLevel is the significance level at which the old keys' failures
// since the onset rose above their baseline share (binomial tail): a rise
// this unlikely keeps the peer a failing dependency.
const OldCallLevel = 0.05

// OldCallRatio is the least rate of the old keys' successful calls since
// the onset, per minute, as a share of the baseline's: calls that stopped
// being made cannot say they still succeed.
const OldCallRatio = 0.5

// NewCallFailures reports whether a failing dependency's failures since the
// onset are the release's own calls: at least MinFaultCalls failed calls
// since the onset, at least NewCallShare of them of new keys (no baseline
// call of an earlier version), while the old keys since the onset number
// at least MinOldCalls, succeed per minute at no less than OldCallRatio of
// their baseline rate, and fail no more than their baseline share allows
// (OldCallLevel, the baseline's share taken as (errors+1)/(calls+2) so a
// baseline without a failure still admits none by chance only rarely).
// baseMin and sinceMin are the minutes on each side. Anything else, and
// no calls, is false.
func NewCallFailures(calls []PeerCall, baseMin, sinceMin float64) bool {
	if baseMin <= 0 || sinceMin <= 0 {
		return false
	}
	var newErr, allErr, oldCalls, oldErr, baseCalls, baseErr float64
	for _, c := range calls {
		allErr += c.Errors
		if c.BaseCalls <= 0 {
			newErr += c.Errors
			continue
		}
		oldCalls, oldErr, baseCalls, baseErr = oldCalls+c.Calls, oldErr+c.Errors, baseCalls+c.BaseCalls, baseErr+c.BaseErrors
	}
	if allErr < MinFaultCalls || newErr < NewCallShare*allErr {
		return false
	}
	if mutant.Off(mutant.SandboxNewCallsOldHealthy) {
		return true
	}
	return oldCallsHealthy(oldCalls, oldErr, baseCalls, baseErr, baseMin, sinceMin)
}

// oldCallsHealthy is NewCallFailures' second half: the old keys' calls
// since the onset are enough to tell, succeed at their usual rate and did
// not fail more than their baseline share allows.
func oldCallsHealthy(calls, errs, baseCalls, baseErrs, baseMin, sinceMin float64) bool {
	if calls < MinOldCalls || baseCalls <= 0 {
		return false
	}
	if (calls-errs)/sinceMin < OldCallRatio*(baseCalls-baseErrs)/baseMin {
		return false
	}
	q := (baseErrs + 1) / (baseCalls + 2)
	return stats.BinomTail(int(math.Round(errs)), int(math.Round(calls)), q) > OldCallLevel
}

// WithoutNewCallFailures removes from failing the peers whose failures
// NewCallFailures names the release's own calls (byPeer's keyed calls),
// in order.
func WithoutNewCallFailures(failing []string, byPeer map[string][]PeerCall, baseMin, sinceMin float64) []string {
	return slices.DeleteFunc(slices.Clone(failing), func(p string) bool {
		return NewCallFailures(byPeer[p], baseMin, sinceMin)
	})
}

// WidestKey is a peer's calls under the call key (byKey: call key → key
// value → calls) that counts most calls since the onset, the first of
// order on a tie, sorted by key value: the key that covers most of what
// the service sends the peer (a statement, an RPC method, a route).
func WidestKey(byKey map[string]map[string]*PeerCall, order []string) []PeerCall {
	best, bestN := "", 0.0
	for _, ck := range order {
		n := 0.0
		for _, pc := range byKey[ck] {
			n += pc.Calls
		}
		if n > bestN {
			best, bestN = ck, n
		}
	}
	var out []PeerCall
	for _, k := range slices.Sorted(maps.Keys(byKey[best])) {
		out = append(out, *byKey[best][k])
	}
	return out
}

// ServedMinutes counts the minutes in [from, to) in which the service
// served a request: the rates NewCallFailures compares are a served
// minute's, so that a window reaching past the recording's end (the
// incident's, minutes after its last span) or over a pause does not read
// as calls that stopped.
func ServedMinutes(minutes []Minute, from, to time.Time) float64 {
	n := 0.0
	for _, m := range minutes {
		if !m.At.Before(from) && m.At.Before(to) && m.Requests > 0 {
			n++
		}
	}
	return n
}
