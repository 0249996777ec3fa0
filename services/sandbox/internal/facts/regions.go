package facts

import (
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/signoz"
)

// A region failing over (e2e/incidents-heldout9's
// fb9-trap-region-failover-booking-api: eu-west-1 was impaired two minutes
// after booking-api 12.1.2 finished its multiregion deploy, Route 53 sent
// every request to eu-central-1, whose allocations ran out of database
// connections; persona:marker's and persona:quality's rollbacks were
// allowed). The service's inbound traffic as a whole did not move, so no
// surge shows; per region it did: one region lost its requests and another
// took them over. RegionTraffic measures each region's requests on both
// sides of the onset; the gate judges the shift.

// RegionTrafficKey is the resource attribute that names a span's region
// (OpenTelemetry's cloud resource conventions).
const RegionTrafficKey = "cloud.region"

// RegionTraffic reads the entry spans per minute by region (resp:
// aggregation 0, grouped by RegionTrafficKey) and returns each region's
// rate in the baseline (from baselineFrom to the onset) and since the onset
// (to the end of the last minute with an entry span of any region), when
// two regions or more served in the baseline; nil otherwise. Regions are in
// name order; a region with no baseline is left out. It returns ErrBadResponse when resp is not a time series.
func RegionTraffic(resp signoz.Response, baselineFrom, onset time.Time) ([]contracts.RegionTraffic, error) {
	base, after := map[string]float64{}, map[string]float64{}
	var last time.Time
	err := Samples(resp, LabelOf(RegionTrafficKey), func(region string, agg int, ts int64, n float64) {
		at := time.UnixMilli(ts).UTC()
		switch {
		case agg != 0 || region == "" || at.Before(baselineFrom):
		case at.Before(onset.Truncate(time.Minute)):
			base[region] += n
		default:
			after[region] += n
			if n > 0 && at.After(last) {
				last = at
			}
		}
	})
	if err != nil || len(base) < 2 || baselineFrom.IsZero() {
		return nil, err
	}
	baseMin := onset.Truncate(time.Minute).Sub(baselineFrom).Minutes()
	afterMin := last.Sub(onset.Truncate(time.Minute)).Minutes() + 1
	if baseMin < 1 || afterMin < 1 {
		return nil, nil
	}
	var out []contracts.RegionTraffic
	for _, r := range sortedKeys(base) {
		b, a := base[r]/baseMin, after[r]/afterMin
		if b <= 0 {
			continue
		}
		out = append(out, contracts.RegionTraffic{Region: r, BaselinePerMin: round(b), PerMin: round(a), Ratio: round(a / b)})
	}
	if len(out) < 2 {
		return nil, nil
	}
	return out, nil
}
