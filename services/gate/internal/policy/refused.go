package policy

import (
	"slices"

	"agentk/contracts"
)

// refusedOriginReasons: the evidence names an origin of svc's failures that
// it also names downstream of svc (contracts.Facts.Downstream), not among
// the services that regressed with it. The sandbox does so only for a
// callee that refuses svc's requests as sent (4xx, gRPC INVALID_ARGUMENT
// and the like) while its other failures did not rise
// (services/sandbox/internal/facts/refused.go): svc's new requests are what
// it refuses. A callee that released a stricter validation refuses
// the same requests the same way, and rolling svc back would not fix that;
// so the origin's own release ledger, read by the adapter for it
// (in.Origin), must show no release of it from MarkerWindow before svc's
// onset on. A ledger that was not read, or not found, fails closed.
func refusedOriginReasons(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	o, _, ok := OriginOf(in)
	if !ok || o.Service == svc {
		return nil
	}
	downstream := false
	for _, e := range ev {
		if e.Service == svc && slices.Contains(e.Facts.CoRegressed, o.Service) {
			return nil
		}
		downstream = downstream || e.Service == svc && slices.Contains(e.Facts.Downstream, o.Service)
	}
	if !downstream {
		return nil
	}
	p := o.Service
	inputs["refused_origin"] = p
	on, _, haveOnset := onset(ev, svc)
	l := in.Origin.Ledger
	if !haveOnset || in.Origin.Service != p || l.Err != "" || !l.Found {
		return []string{"the failures of " + svc + " begin in " + p + ", which the evidence does not count as a shared cause (it refuses " + svc +
			"'s requests as sent), but " + p + "'s release ledger was not read: a release of " + p + " that refuses them cannot be ruled out"}
	}
	lo := on.Add(-in.Config.MarkerWindow)
	for _, r := range l.Ledger.Releases {
		if !r.DeployedAt.Before(lo) {
			inputs["refused_origin_release"] = r.Version + "@" + ttoa(r.DeployedAt)
			return []string{"the failures of " + svc + " begin in " + p + ", which refuses " + svc + "'s requests as sent, and " + p + " released " + r.Version + " at " + ttoa(r.DeployedAt) +
				" (within " + in.Config.MarkerWindow.String() + " before the onset " + ttoa(on) + ", or since): " + p + "'s release may be what refuses them"}
		}
	}
	return nil
}
