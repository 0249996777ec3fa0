package policy

import (
	"strconv"

	"agentk/contracts"
	"agentk/platform/stats"
)

// otherVersionReasons: a rollback returns to the previous version, so the
// regression must not fail that version too. While a rolling update keeps
// it serving beside the running one, its entry spans since the onset failing
// beyond the history's error rate, at half the running version's rate or
// more (stats.OtherVersionsFail, which the rules investigator reads too),
// show a failure that is not the release's: an outside cause that began
// seconds after the marker, which no timing read from sampled spans can
// place before or after the deploy (a platform dependency answering null
// handles 5 s after account-portal 8.4.0's marker: persona:liar's and
// persona:wrong's retry_storm was rolled back while the old version threw
// the same TypeError). Every status counts, not only the running version's
// new one (releaseReasons): the outside cause's errors may carry a status
// the history showed. A previous version that stopped serving at the deploy
// (too few entry spans since the onset) says nothing either way. Without
// the comparison (no release facts, or none of the other versions) the
// check fails closed.
func otherVersionReasons(svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	r := releaseFacts(svc, ev)
	p, fail, measured := stats.OtherVersionsFail(r)
	if !measured {
		return []string{"no evidence compared the errors of " + svc + "'s other versions since the onset with its history: a failure of every version cannot be told from the release's"}
	}
	o := r.OtherVersions
	inputs["other_versions_errors"] = strconv.FormatInt(o.Errors, 10) + "/" + strconv.FormatInt(o.Requests, 10)
	inputs["history_errors"] = strconv.FormatInt(o.HistoryErrors, 10) + "/" + strconv.FormatInt(o.HistoryRequests, 10)
	if !fail {
		return nil
	}
	return []string{"the other versions of " + svc + " fail beside " + strconv.Quote(r.Version) + " since the onset (" + strconv.FormatInt(o.Errors, 10) + " of " + strconv.FormatInt(o.Requests, 10) +
		" requests, against " + strconv.FormatInt(o.HistoryErrors, 10) + " of " + strconv.FormatInt(o.HistoryRequests, 10) + " before the release; chance " + strconv.FormatFloat(p, 'g', 2, 64) + "): a rollback to them would not undo the failure"}
}
