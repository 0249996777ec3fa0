package policy

import (
	"slices"
	"strconv"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// qualityOnsetReasons: when the earliest onset measured for svc was placed
// only by a shift of the service's span attributes
// (contracts.Facts.OnsetAttribute: token counts, a finish reason, a template
// version; HTTP 200 throughout), only changeClasses may lean on it: a
// release that changed the prompt or the configuration changes what the
// service answers by design. Every other class rests on errors, latency,
// calls or resources: a shift of what the service answers is no evidence of
// a crash, a multiplied call or a saturated resource, and the attributes
// also move with the mix of traffic, so they cannot place such a
// regression's start.
func qualityOnsetReasons(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	_, from, ok := onset(ev, svc)
	if !ok || in.Review.Best == nil || mutant.Off(mutant.GateQualityClasses) {
		return nil
	}
	for _, e := range ev {
		if e.ID != from || e.Facts.OnsetAttribute == "" {
			continue
		}
		inputs["onset_attribute"] = e.Facts.OnsetAttribute
		if !slices.Contains(changeClasses, in.Review.Best.Class) {
			return []string{"the onset of " + svc + " was placed only by a shift of " + strconv.Quote(e.Facts.OnsetAttribute) +
				" (no error or latency departure earlier): it may support a prompt or configuration regression, not " + in.Review.Best.Class}
		}
	}
	return nil
}

// statusClasses are the diagnoses an onset placed only by a server's gRPC
// rejections (contracts.Facts.OnsetStatus) may support.
var statusClasses = []string{"bad_release", "config_regression"}

// statusOnsetReasons: when the earliest onset measured for svc was placed
// only by its server spans' rejections (FAILED_PRECONDITION and the other
// codes the OpenTelemetry conventions leave unset on a server span: the
// service refused the request, it did not fail), only a release that changed
// what the service accepts may lean on it: a bad release or a configuration
// regression. A rejection is no evidence of a prompt's answers, of retries
// multiplying calls, or of any cause outside the service; and since a
// rejection is by convention the request's fault, the callers' own change
// can raise its share too (the release comparison and the marker before the
// onset still decide whether the release is to blame).
func statusOnsetReasons(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	_, from, ok := onset(ev, svc)
	if !ok || in.Review.Best == nil || mutant.Off(mutant.GateStatusClasses) {
		return nil
	}
	for _, e := range ev {
		if e.ID != from || e.Facts.OnsetStatus == "" {
			continue
		}
		inputs["onset_status"] = e.Facts.OnsetStatus
		if !slices.Contains(statusClasses, in.Review.Best.Class) {
			return []string{"the onset of " + svc + " was placed only by the rejections of its server spans (" + e.Facts.OnsetStatus +
				"; no error or latency departure earlier): it may support a bad release or a configuration regression, not " + in.Review.Best.Class}
		}
	}
	return nil
}
