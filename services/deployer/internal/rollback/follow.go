package rollback

import (
	"context"
	"slices"

	"agentk/services/deployer/internal/ledger"
)

// ActorDeployer is the deployment.actor of the markers of the deployer's
// own rollbacks.
const ActorDeployer = "agentk-deployer"

// Follow is what the ledger watcher calls for each container it sees
// start: it folds o into the service's ledger (Observe) and, when this
// call's write changed the ledger, ledger.Announce calls it a deployment
// and the service is in the deployer's allowlist, announces it through
// Announcer at Docker's start time.
//
// The ledger in KV is the record of what was announced: a restart on the
// same image, a second replica's watcher that lost the compare-and-set, or
// a restarted deployer listing a container it announced before all find
// the ledger already holding it, and announce nothing. The announcement is
// at most once: a marker lost to a crash between the ledger write and the
// export is not re-sent. It returns what was decided (Reason says why
// nothing was announced) and Observe's error.
func (d *Deployer) Follow(ctx context.Context, o ledger.Observation) (ledger.Announcement, error) {
	prev, changed, err := d.observe(ctx, o)
	switch {
	case err != nil:
		return ledger.Announcement{Reason: "ledger not updated"}, err
	case !changed:
		return ledger.Announcement{Reason: "the ledger already holds this release"}, nil
	}
	a := ledger.Announce(prev, o)
	switch {
	case a.Emit && d.Announcer == nil:
		return ledger.Announcement{Reason: "watch markers are off"}, nil
	case a.Emit && !slices.Contains(d.Rules.Allowlist, o.Service):
		// The project may hold more than the services agentk answers for
		// (agentk's own, in the compose stack): their compose names are
		// not the service.name of their telemetry.
		return ledger.Announcement{Reason: "not in the deployer's allowlist (AGENTK_DEPLOYER_SERVICES)"}, nil
	}
	if !a.Emit {
		return a, nil
	}
	d.Announcer.Mark(ctx, Mark{
		Project: o.Project, Service: o.Service, Version: a.Version, PreviousVersion: a.PreviousVersion,
		Image: o.Image, ImageID: o.ImageID, DeploymentID: o.ContainerID, ContainerID: o.ContainerID,
		Kind: a.Kind, At: o.StartedAt,
	})
	return a, nil
}
