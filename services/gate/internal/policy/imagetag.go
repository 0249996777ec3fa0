package policy

import (
	"strings"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// imageTagKey is the resource attribute a release comparison of a service
// whose spans name no service.version is read from
// (contracts.ReleaseErrors.VersionKey).
const imageTagKey = "container.image.tag"

// ledgerAgreedReleases returns ev less the release comparisons read from
// image tags (contracts.ReleaseErrors.VersionKey) that the release ledger
// does not agree with: the running version the comparison names must be
// the ledger's running release, by its version or its image's tag. A tag is
// what the platform says the container runs; the ledger is what the
// deployer released: two sources, and where they differ (a mutable tag
// such as "latest", a sidecar's image, a tag the ledger never released)
// the comparison says nothing of the release and the checks that need it
// fail closed (heldout10's Go services name no service.version: their
// releases are compared by tag, each agreeing with releases.yaml).
func ledgerAgreedReleases(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) []contracts.EvidenceV1 {
	var out []contracts.EvidenceV1
	for i, e := range ev {
		r := e.Facts.Release
		if e.Service != svc || r == nil || r.VersionKey == "" {
			continue
		}
		if r.VersionKey == imageTagKey && ledgerRuns(in.Ledger, svc, r.Version) {
			inputs["release_version_key"] = r.VersionKey
			continue
		}
		if mutant.Off(mutant.GateImageTagLedger) {
			continue
		}
		if out == nil {
			out = append([]contracts.EvidenceV1(nil), ev...)
		}
		out[i].Facts.Release = nil
		inputs["release_version_key_refused"] = r.VersionKey + " " + r.Version
	}
	if out == nil {
		return ev
	}
	return out
}

// ledgerRuns reports whether the ledger of svc names version as its running
// release: its version, or the tag of its image.
func ledgerRuns(l LedgerState, svc, version string) bool {
	if l.Ledger.Service != svc || version == "" {
		return false
	}
	cur, ok := runningRelease(l)
	return ok && (cur.Version == version || strings.HasSuffix(cur.Image, ":"+version))
}
