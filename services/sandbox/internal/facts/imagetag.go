package facts

import (
	"maps"

	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// ImageTagKey is the resource attribute that names the tag of the image a
// Kubernetes container runs (the collector's k8sattributes processor, an
// operator's injection): on services whose spans carry no service.version
// (Go services whose SDK sets none; heldout10's grpc-gateway services) it
// is what says which build served.
const ImageTagKey = "container.image.tag"

// VersionKeys are the resource attributes a series of entry spans by
// version is labelled with, first the one read: service.version, or the
// image tag on the series of a service that names no service.version
// (ImageTagVersions).
var VersionKeys = []string{"service.version", ImageTagKey}

// NamesVersion reports whether a series of resp (entry spans by
// service.version) names a version: whether any entry span of the
// service carried service.version.
func NamesVersion(resp signoz.Response) bool {
	found := false
	_ = EachSeries(resp, LabelOf("service.version"), func(string, int, signoz.Series) { found = true })
	return found
}

// ImageTagVersions reports whether the versions of a service are read from
// its image tags (tags: its entry spans that name no service.version, by
// ImageTagKey) instead of service.version (versions): only when no entry
// span names service.version and some name an image tag. A service whose
// spans name a service.version keeps it, whatever its sidecars' images
// (an envoy's tag is not the service's build). The gate trusts a release
// compared by image tag only where the release ledger's running release
// is that tag (gate.image_tag_ledger).
func ImageTagVersions(versions, tags signoz.Response) bool {
	if mutant.Off(mutant.SandboxImageTagVersions) || NamesVersion(versions) {
		return false
	}
	found := false
	_ = EachSeries(tags, LabelOf(ImageTagKey), func(string, int, signoz.Series) { found = true })
	return found
}

// TagAsVersion returns rows with each row that names no service.version
// given its image tag as one (ImageTagVersions), for the readings of raw
// spans by version (OnsetMarks); rows are not changed.
func TagAsVersion(rows []signoz.RawRow) []signoz.RawRow {
	out := make([]signoz.RawRow, len(rows))
	for i, r := range rows {
		out[i] = r
		if ResourceValue(r.Data, "service.version") != "" {
			continue
		}
		if tag := ResourceValue(r.Data, ImageTagKey); tag != "" {
			out[i].Data = maps.Clone(r.Data)
			out[i].Data["service.version"] = tag
		}
	}
	return out
}
