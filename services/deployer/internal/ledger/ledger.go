// Package ledger keeps a service's release history as the deployer saw Docker
// run it. It is pure: observations come in as values, a new ledger goes out.
package ledger

import (
	"strings"
	"time"

	"agentk/contracts"
)

// Observation is one container of a compose service seen starting.
type Observation struct {
	Project string
	Service string
	// Image is the reference the container was created from (its Config.Image).
	Image string
	// ImageID is the content-addressed id the container runs (sha256:…).
	ImageID string
	// Version is the image's version label when it has one.
	Version string
	// StartedAt is Docker's start time of the container (State.StartedAt).
	StartedAt time.Time
	// ContainerID is the container's id: a restart keeps it, a recreate
	// (compose up on a new image) makes a new one.
	ContainerID string
	// FromEvent is true for a container seen through Docker's start event,
	// false for one found running by a listing (the deployer's start, a
	// resubscription).
	FromEvent bool
	// Pinned is true when the deployer's own rollback created the container:
	// its pin label names the image it runs (dockerrt.LabelPin).
	Pinned bool
}

// Observe folds one observation into l and reports whether l changed.
//
// An image the ledger already ends with changes nothing (a restart or a
// recreate on the same image). An image found earlier in the ledger is a
// rollback, by us or by hand: the ledger is cut back to that release, so the
// releases rolled back from are never a rollback target again. Anything else
// is a new release, appended.
func Observe(l contracts.ReleaseLedgerV1, o Observation, now time.Time) (contracts.ReleaseLedgerV1, bool) {
	out := l
	out.Project, out.Service = o.Project, o.Service
	out.Releases = append([]contracts.Release(nil), l.Releases...)
	for i := len(out.Releases) - 1; i >= 0; i-- {
		if !same(out.Releases[i], o) {
			continue
		}
		if i == len(out.Releases)-1 {
			if out.Releases[i].ImageID == "" && o.ImageID != "" {
				out.Releases[i].ImageID = o.ImageID
				out.UpdatedAt = now
				return out, true
			}
			return l, false
		}
		out.Releases = out.Releases[:i+1]
		out.UpdatedAt = now
		return out, true
	}
	out.Releases = append(out.Releases, contracts.Release{
		Version:    versionOf(o),
		Image:      o.Image,
		ImageID:    o.ImageID,
		DeployedAt: o.StartedAt.UTC(),
	})
	out.UpdatedAt = now
	return out, true
}

// same matches by image id when both sides know it, else by reference.
func same(r contracts.Release, o Observation) bool {
	if r.ImageID != "" && o.ImageID != "" {
		return r.ImageID == o.ImageID
	}
	return r.Image == o.Image
}

// versionOf is the version label, else the image tag, else a short image id.
func versionOf(o Observation) string {
	if o.Version != "" {
		return o.Version
	}
	ref := o.Image
	if strings.HasPrefix(ref, "sha256:") {
		ref = ""
	}
	if i := strings.LastIndex(ref, "@"); i >= 0 {
		ref = ref[:i]
	}
	if i := strings.LastIndex(ref, ":"); i >= 0 && !strings.Contains(ref[i:], "/") {
		return ref[i+1:]
	}
	id := strings.TrimPrefix(o.ImageID, "sha256:")
	if len(id) > 12 {
		id = id[:12]
	}
	if id != "" {
		return id
	}
	return "latest"
}

// Seed builds a ledger from a recorded release history (releases.yaml), oldest
// first, for dry runs of recorded incidents.
func Seed(project, service string, releases []contracts.Release, now time.Time) contracts.ReleaseLedgerV1 {
	return contracts.ReleaseLedgerV1{
		Project:   project,
		Service:   service,
		Releases:  append([]contracts.Release(nil), releases...),
		UpdatedAt: now,
	}
}
