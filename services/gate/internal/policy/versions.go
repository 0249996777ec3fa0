package policy

import (
	"strconv"

	"agentk/contracts"
	"agentk/platform/stats"
)

// OtherVersionsFailP is the chance under the history's error rate below
// which the other versions' errors since the onset are beyond it (one-sided
// binomial): the previous version fails too.
const OtherVersionsFailP = 0.01

// otherVersionReasons: a rollback returns to the previous version, so the
// regression must not fail that version too. While a rolling update keeps
// it serving beside the running one, its entry spans since the onset failing
// beyond the history's error rate (OtherVersionsFailP) and at
// OtherVersionShare of the running version's rate or more, at least
// MinReleaseErrors of them, show a failure that is not the release's: an
// outside cause that began seconds after the marker, which no timing read
// from sampled spans can place before or after the deploy (a platform
// dependency answering null handles 5 s after account-portal 8.4.0's marker:
// persona:liar's and persona:wrong's retry_storm was rolled back while the
// old version threw the same TypeError). Every status counts, not only the
// running version's new one (releaseReasons): the outside cause's errors
// may carry a status the history showed. A previous version that stopped
// serving at the deploy (fewer than MinOtherRequests entry spans since the
// onset) says nothing either way. Without the comparison (no release facts,
// or none of the other versions) the check fails closed.
func otherVersionReasons(svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	r := releaseFacts(svc, ev)
	if r == nil || r.OtherVersions == nil {
		return []string{"no evidence compared the errors of " + svc + "'s other versions since the onset with its history: a failure of every version cannot be told from the release's"}
	}
	o := r.OtherVersions
	inputs["other_versions_errors"] = strconv.FormatInt(o.Errors, 10) + "/" + strconv.FormatInt(o.Requests, 10)
	inputs["history_errors"] = strconv.FormatInt(o.HistoryErrors, 10) + "/" + strconv.FormatInt(o.HistoryRequests, 10)
	if o.Requests < MinOtherRequests || o.Errors < MinReleaseErrors || o.Errors > o.Requests {
		return nil
	}
	base := 0.0
	if o.HistoryRequests > 0 {
		base = min(1, float64(o.HistoryErrors)/float64(o.HistoryRequests))
	}
	share, running := float64(o.Errors)/float64(o.Requests), 0.0
	if r.Requests > 0 {
		running = float64(r.Errors) / float64(r.Requests)
	}
	p := stats.BinomTail(int(o.Errors), int(o.Requests), base)
	if p >= OtherVersionsFailP || share < OtherVersionShare*running {
		return nil
	}
	return []string{"the other versions of " + svc + " fail beside " + strconv.Quote(r.Version) + " since the onset (" + strconv.FormatInt(o.Errors, 10) + " of " + strconv.FormatInt(o.Requests, 10) +
		" requests, against " + strconv.FormatInt(o.HistoryErrors, 10) + " of " + strconv.FormatInt(o.HistoryRequests, 10) + " before the release; chance " + strconv.FormatFloat(p, 'g', 2, 64) + "): a rollback to them would not undo the failure"}
}
