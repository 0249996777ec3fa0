package ledger

import (
	"agentk/contracts"
	"agentk/platform/mutant"
)

// Kinds of deployment an Announcement reports (the marker's deployment.kind).
const (
	// KindDeploy is a start on an image the ledger has not seen.
	KindDeploy = "deploy"
	// KindRollback is a start on an image the ledger knew before the one it
	// ends with: a rollback by hand.
	KindRollback = "rollback"
)

// Announcement is what Announce decided about one observation.
type Announcement struct {
	// Emit is true when the observation is a deployment to announce with a
	// deployment.marker.
	Emit bool
	// Kind is KindDeploy or KindRollback.
	Kind            string
	Version         string
	PreviousVersion string
	// Reason says why nothing is announced (Emit false).
	Reason string
}

// Announce decides whether the observation o, folded into the ledger prev
// (the ledger as it was before o), is a deployment the deployer announces.
// It is pure; the caller announces only when its own write of the folded
// ledger succeeded, so that of several watchers (replicas, a restarted
// deployer) one announces each start, and a ledger that already ends with
// the image (a restart, a deployer restarted after it announced) announces
// nothing.
//
// The choices, each a row of its table test:
//   - same image as the ledger's last release: nothing (a restart, a
//     recreate on the same image, the ledger learning an image id);
//   - no start time: nothing (the marker's time is Docker's start, never
//     the time the watcher noticed);
//   - an empty ledger and a container found by a listing: nothing (the
//     deployer meeting a stack that may have run for weeks, not a start it
//     saw); the same from a start event: a deploy with no previous version;
//   - an image found earlier in the ledger: a rollback, unless the
//     deployer's own rollback created the container (it emits its own
//     marker);
//   - anything else: a deploy, previous version = the ledger's last.
func Announce(prev contracts.ReleaseLedgerV1, o Observation) Announcement {
	rs := prev.Releases
	if len(rs) > 0 && same(rs[len(rs)-1], o) && !mutant.Off(mutant.DeployerMarkerRestart) {
		return Announcement{Reason: "same image as the release running before: a restart, not a deployment"}
	}
	if o.StartedAt.IsZero() {
		return Announcement{Reason: "container without a start time"}
	}
	if len(rs) == 0 {
		if !o.FromEvent {
			return Announcement{Reason: "first sight of the service, found running: not a start the deployer saw"}
		}
		return Announcement{Emit: true, Kind: KindDeploy, Version: versionOf(o)}
	}
	last := rs[len(rs)-1].Version
	for i := len(rs) - 2; i >= 0; i-- {
		if !same(rs[i], o) {
			continue
		}
		if o.Pinned {
			return Announcement{Reason: "the deployer's own rollback: it emits its own marker"}
		}
		return Announcement{Emit: true, Kind: KindRollback, Version: rs[i].Version, PreviousVersion: last}
	}
	return Announcement{Emit: true, Kind: KindDeploy, Version: versionOf(o), PreviousVersion: last}
}
