package contracts

import "slices"

// The resource attributes that say which build of a service served a span.
const (
	// ServiceVersionKey is OpenTelemetry's service.version: the version the
	// service says it is (an SDK's setting, a package's version).
	ServiceVersionKey = "service.version"
	// FaaSVersionKey is faas.version: the version of a function as its FaaS
	// platform numbers it (AWS Lambda's published version, "58"), set by the
	// platform's resource detector on runtimes whose SDK names no
	// service.version (heldout11's Python and Java functions).
	FaaSVersionKey = "faas.version"
	// ImageTagKey is container.image.tag: the tag of the image a container
	// runs (the collector's k8sattributes processor, an operator's
	// injection), on services whose spans name no service.version
	// (heldout10's Go services).
	ImageTagKey = "container.image.tag"
)

// VersionKeys are the resource attributes a service's versions are read
// from, in order of preference; ReleaseErrors.VersionKey names the one read
// where it is not the first. service.version first: it is what the service
// says it is, and a service whose spans name one keeps it whatever else its
// resource carries (an envoy sidecar's image tag is not the service's
// build). Then faas.version before container.image.tag: a function version
// is immutable and names the whole deployed unit, code and configuration (a
// configuration-only Lambda release is a new version, heldout11's
// env-holds-table), while an image tag names the code only and may be
// mutable ("latest") or a sidecar's; where a span carried both, the version
// tells apart the releases the tag cannot. The fallbacks (every key after
// the first) say what the platform runs, not what the deployer released:
// the gate trusts a comparison read from one only where the release ledger
// runs that version (gate.image_tag_ledger).
var VersionKeys = []string{ServiceVersionKey, FaaSVersionKey, ImageTagKey}

// FallbackVersionKeys are VersionKeys after service.version, in order.
func FallbackVersionKeys() []string { return slices.Clone(VersionKeys[1:]) }

// IsFallbackVersionKey reports whether key is one of FallbackVersionKeys: a
// ReleaseErrors.VersionKey the gate may trust where the ledger agrees.
func IsFallbackVersionKey(key string) bool {
	return key != ServiceVersionKey && slices.Contains(VersionKeys, key)
}
