package policy

import (
	"sort"
	"strings"

	"agentk/contracts"
)

// slowDependencies returns a reason when the sandbox found a dependency of
// svc that slowed at the onset at its usual call rate, by enough to explain
// most of svc's added latency (contracts.Facts.SlowDependencies); it records
// the peers in inputs. Unlike a failing dependency it denies every
// deployment class: the calls' own latency rose while their volume did not,
// which no release of svc changes short of changing what it asks the
// dependency (a human judges that), and a model that blames a deploy minutes
// before is the trap (world s6174-w037, persona:marker). A release that
// slows svc's own code leaves its client spans as fast as they were; a retry
// storm multiplies the calls and is no slow dependency.
func slowDependencies(svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	seen := map[string]bool{}
	var peers []string
	for _, e := range ev {
		if e.Service != svc {
			continue
		}
		for _, p := range e.Facts.SlowDependencies {
			if !seen[p] {
				seen[p] = true
				peers = append(peers, p)
			}
		}
	}
	if len(peers) == 0 {
		return nil
	}
	sort.Strings(peers)
	inputs["slow_dependencies"] = strings.Join(peers, ",")
	return []string{"calls from " + svc + " to " + strings.Join(peers, ", ") + " slowed at the onset at their usual rate, by most of " + svc +
		"'s added latency: a slow dependency, not a release of " + svc + ", explains the regression"}
}
