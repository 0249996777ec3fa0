package stats

import "agentk/contracts"

// Thresholds of OtherVersionsFail, the gate's and the rules investigator's.
const (
	// OtherVersionsFailP is the chance under the history's error rate below
	// which the other versions' errors since the onset are beyond it
	// (one-sided binomial).
	OtherVersionsFailP = 0.01
	// OtherVersionsMinRequests and OtherVersionsMinErrors are the fewest
	// entry spans and error spans of the other versions since the onset
	// that say anything: a previous version that stopped serving at the
	// deploy says nothing either way.
	OtherVersionsMinRequests = 10
	OtherVersionsMinErrors   = 3
	// OtherVersionsShare is the share of the running version's error rate
	// the other versions must reach: failing beyond their history but far
	// less than the release is the release's failure leaking, not theirs.
	OtherVersionsShare = 0.5
)

// OtherVersionsFail reads r.OtherVersions: the versions serving beside the
// running one since the onset fail beyond the history's error rate (every
// status counted; chance p under OtherVersionsFailP) at OtherVersionsShare
// of the running version's rate or more, so the version a rollback returns
// to fails as much. measured is false when r holds no comparison (nil, or
// no OtherVersions); p is 1 when too few requests or errors say anything.
func OtherVersionsFail(r *contracts.ReleaseErrors) (p float64, fail, measured bool) {
	if r == nil || r.OtherVersions == nil {
		return 1, false, false
	}
	o := r.OtherVersions
	if o.Requests < OtherVersionsMinRequests || o.Errors < OtherVersionsMinErrors || o.Errors > o.Requests {
		return 1, false, true
	}
	base := 0.0
	if o.HistoryRequests > 0 {
		base = min(1, float64(o.HistoryErrors)/float64(o.HistoryRequests))
	}
	share, running := float64(o.Errors)/float64(o.Requests), 0.0
	if r.Requests > 0 {
		running = float64(r.Errors) / float64(r.Requests)
	}
	p = BinomTail(int(o.Errors), int(o.Requests), base)
	return p, p < OtherVersionsFailP && share >= OtherVersionsShare*running, true
}
