package facts

import (
	"maps"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// NamesVersion reports whether a series of resp (entry spans by
// service.version) names a version: whether any entry span of the
// service carried service.version.
func NamesVersion(resp signoz.Response) bool {
	return namesKey(resp, contracts.ServiceVersionKey)
}

// namesKey reports whether a series of resp is labelled with key.
func namesKey(resp signoz.Response, key string) bool {
	found := false
	_ = EachSeries(resp, LabelOf(key), func(string, int, signoz.Series) { found = true })
	return found
}

// FallbackVersionKey returns the key a service's versions are read from
// where no entry span names service.version (versions): the first of
// contracts.FallbackVersionKeys whose series (fallbacks, one response per
// key, in that order: the entry spans that name no service.version, by
// that key) names a value, else "" (service.version, or nothing to read). A
// service whose spans name a service.version keeps it, whatever its
// sidecars' images or its platform's resource (an envoy's tag is not the
// service's build). The gate trusts a release compared by a fallback key
// only where the release ledger's running release is that version
// (gate.image_tag_ledger).
func FallbackVersionKey(versions signoz.Response, fallbacks []signoz.Response) string {
	if mutant.Off(mutant.SandboxImageTagVersions) || NamesVersion(versions) {
		return ""
	}
	for i, key := range contracts.FallbackVersionKeys() {
		if i < len(fallbacks) && namesKey(fallbacks[i], key) {
			return key
		}
	}
	return ""
}

// KeyAsVersion returns rows with each row that names no service.version
// given its key's value as one (FallbackVersionKey), for the readings of
// raw spans by version (OnsetMarks); rows are not changed.
func KeyAsVersion(rows []signoz.RawRow, key string) []signoz.RawRow {
	out := make([]signoz.RawRow, len(rows))
	for i, r := range rows {
		out[i] = r
		if ResourceValue(r.Data, contracts.ServiceVersionKey) != "" {
			continue
		}
		if v := ResourceValue(r.Data, key); v != "" {
			out[i].Data = maps.Clone(r.Data)
			out[i].Data[contracts.ServiceVersionKey] = v
		}
	}
	return out
}
