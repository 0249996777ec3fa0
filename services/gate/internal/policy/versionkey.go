package policy

import (
	"strings"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// ledgerAgreedReleases returns ev less the release comparisons read from a
// fallback version key (contracts.ReleaseErrors.VersionKey, one of
// contracts.FallbackVersionKeys: faas.version, container.image.tag) that
// the release ledger does not agree with: the running version the
// comparison names must be the ledger's running release, by its version or
// the last ':' part of its image (a tag, a Lambda version's ARN). A tag or
// a function version is what the platform says it runs; the ledger is what
// the deployer released: two sources, and where they differ (a mutable tag
// such as "latest", a sidecar's image, a version the ledger never
// released) the comparison says nothing of the release and the checks that
// need it fail closed (heldout10's Go services name no service.version:
// their releases are compared by tag; heldout11's Python and Java Lambda
// functions by faas.version; each agreeing with releases.yaml).
func ledgerAgreedReleases(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) []contracts.EvidenceV1 {
	var out []contracts.EvidenceV1
	for i, e := range ev {
		r := e.Facts.Release
		if e.Service != svc || r == nil || r.VersionKey == "" {
			continue
		}
		if contracts.IsFallbackVersionKey(r.VersionKey) && ledgerRuns(in.Ledger, svc, r.Version) {
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
// release: its version, or the whole last ':' part of its image (an image's
// tag, "shop-api:2.4.1"; a Lambda version's ARN, "…:function:locker-api:57").
func ledgerRuns(l LedgerState, svc, version string) bool {
	if l.Ledger.Service != svc || version == "" {
		return false
	}
	cur, ok := runningRelease(l)
	return ok && (cur.Version == version || imageNames(cur.Image, version))
}

// imageNames reports whether version is the whole of image's last ':' part:
// never a part of it ("7" is not ":57"'s) nor of what comes before.
func imageNames(image, version string) bool {
	if mutant.Off(mutant.GateLedgerWholeVersion) {
		return strings.HasSuffix(image, version)
	}
	i := strings.LastIndexByte(image, ':')
	return i >= 0 && image[i+1:] == version
}
