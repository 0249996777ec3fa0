package recovery

import (
	"fmt"

	"agentk/contracts"
)

// Rule is the recovery SLO: the error rate over the check's range must be at
// most MaxErrorRate, over at least MinRequests requests.
type Rule struct {
	MaxErrorRate float64
	MinRequests  int64
}

// Judge decides recovery from the sandbox's service_overview facts. Too little
// traffic to judge is not recovery; neither is a missing count.
func Judge(f contracts.Facts, r Rule) (bool, string) {
	if f.RequestCount == nil || f.ErrorCount == nil {
		return false, "the service overview has no request or error count: cannot judge"
	}
	reqs, errs := *f.RequestCount, *f.ErrorCount
	if reqs < r.MinRequests || reqs <= 0 {
		return false, fmt.Sprintf("not enough traffic to judge: %d requests (%d errors), at least %d needed", reqs, errs, r.MinRequests)
	}
	rate := float64(errs) / float64(reqs)
	detail := fmt.Sprintf("%d requests, %d errors, error rate %.2f%%, SLO max %.2f%%", reqs, errs, 100*rate, 100*r.MaxErrorRate)
	if rate > r.MaxErrorRate {
		return false, "error rate above the SLO: " + detail
	}
	return true, "error rate within the SLO: " + detail
}
