package policy

import (
	"slices"
	"strings"

	"agentk/contracts"
)

// slowDependencies returns a reason when the sandbox found a dependency of
// svc that slowed at the onset at its usual call rate, by enough to explain
// most of svc's added latency (contracts.Facts.SlowDependencies), and the
// diagnosis is not one such a slowing fits; it records the peers in inputs.
// A model that blames a deploy minutes before is the trap (world
// s6174-w037, persona:marker's bad_release). Such a slowing fits
// changeClasses: a release of prompts or of configuration changes what the
// service asks the dependency (longer answers from a model, more neighbours
// from an index) without changing how often it asks
// (hw-prompt-verbose-faq-bot: a verbose prompt doubles the model calls'
// latency); its change must then show otherwise than by the service's new
// timeouts on them (changeReasons, waitedOn). A bad release's own code and a retry storm's multiplied calls
// do not slow the calls they leave as they were.
func slowDependencies(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	peers := dependencyPeers(svc, ev, func(f contracts.Facts) []string { return f.SlowDependencies })
	if len(peers) == 0 {
		return nil
	}
	inputs["slow_dependencies"] = strings.Join(peers, ",")
	if in.Review.Best != nil && slices.Contains(changeClasses, in.Review.Best.Class) {
		return nil
	}
	return []string{"calls from " + svc + " to " + strings.Join(peers, ", ") + " slowed at the onset at their usual rate, by most of " + svc +
		"'s added latency: a slow dependency, not a release of " + svc + ", explains the regression"}
}
