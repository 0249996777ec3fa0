package facts

import (
	"math"

	"agentk/contracts"
)

// A regression that is not a release's fails whichever version serves the
// request; one the release brought fails only the version that brought it.
// While a rolling update keeps the previous version serving beside the
// running one, the previous version's failures since the onset tell the two
// apart in the one direction that is sound with sampled spans: a previous
// version failing beyond its history is a failure a rollback to it would not
// undo (an outside cause that began seconds after the marker and hits every
// version, read as the release's). The other direction — the previous
// version clean, so the release is the cause — is not drawn from it: where
// the previous version stopped serving when the new one started (a
// recreate) it says nothing, and a clean handful of its spans on other
// operations says nothing about the failing one.

// OtherVersions tallies contracts.OtherVersionErrors from the entry spans per
// minute by version (counts), the error spans per minute by version (rows,
// every signature), the running version v, its first minute first and the
// onset on (Unix milliseconds). Entry spans with no version (a sidecar's)
// are left out on both sides; rows never carry one (ErrorsBySignature drops
// them).
func OtherVersions(counts map[string]map[int64]float64, rows []VersionErrors, v string, first, on int64) *contracts.OtherVersionErrors {
	o := &contracts.OtherVersionErrors{}
	var req, hist float64
	for ver, byTs := range counts {
		if ver == "" {
			continue
		}
		for ts, c := range byTs {
			switch {
			case ts < first:
				hist += c
			case ts >= on && ver != v:
				req += c
			}
		}
	}
	var errs, histErrs float64
	for _, e := range rows {
		switch {
		case e.TS < first:
			histErrs += e.N
		case e.TS >= on && e.Version != v:
			errs += e.N
		}
	}
	o.Requests, o.Errors = int64(math.Round(req)), int64(math.Round(errs))
	o.HistoryRequests, o.HistoryErrors = int64(math.Round(hist)), int64(math.Round(histErrs))
	return o
}
