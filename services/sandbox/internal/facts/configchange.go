package facts

import (
	"math"
	"sort"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/signoz"
)

// A configuration that changes at runtime (e2e/incidents-heldout9's
// fb9-trap-flag-flip-no-release-loyalty-svc: a feature flag switched on in
// flagd three and a half minutes after loyalty-svc 6.0.3 had rolled out;
// 40% of accruals failed and the release was rolled back) is no release: a
// rollback of the image leaves the flag as it is. Nothing in the spans
// tells it from a release whose failure waited a few minutes (the flag's
// evaluations are span events, which the query API does not serve); the
// service's flag or configuration client says it in its own log. The
// sentence is the service's claim, so the gate reads it only to deny.

// ConfigChangeVocabulary is what a log record's body says when a running
// process's configuration changed: a feature flag changed, flipped or
// toggled (OpenFeature's PROVIDER_CONFIGURATION_CHANGED, flagd's "Flag
// configuration changed", LaunchDarkly's, Unleash's toggles), or a
// configuration changed or was reloaded (Spring Cloud's "Refresh keys
// changed"). It names changes, not loads: a process starting says it
// loaded or synced its flags. RE2 syntax, read the same way by SigNoz and
// by Go, with no backslash so that the filter's quoting cannot change it.
const ConfigChangeVocabulary = `(?i)(configuration[ _]changed|config(uration)? (was )?(changed|reloaded)|flags?[^;]{0,60}(changed|flipped|toggled)|toggles? (changed|updated)|refresh keys changed)`

// ConfigChangeBefore and ConfigChangeAfter bound the minutes ConfigChanges
// keeps around the onset.
const (
	ConfigChangeBefore = 10 * time.Minute
	ConfigChangeAfter  = 5 * time.Minute
)

// ConfigChanges reads the per-minute counts of the configuration-change
// logs (resp: aggregation 0, one group) and keeps the minutes with any from
// ConfigChangeBefore before the onset's minute to ConfigChangeAfter past
// it, in time order. It returns ErrBadResponse when resp is not a time
// series.
func ConfigChanges(resp signoz.Response, onset time.Time) ([]contracts.LogMinute, error) {
	on := onset.Truncate(time.Minute)
	var out []contracts.LogMinute
	err := Samples(resp, All, func(_ string, agg int, ts int64, n float64) {
		at := time.UnixMilli(ts).UTC()
		if agg != 0 || n < 0.5 || at.Before(on.Add(-ConfigChangeBefore)) || at.After(on.Add(ConfigChangeAfter)) {
			return
		}
		out = append(out, contracts.LogMinute{At: at, Logs: int64(math.Round(n))})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out, err
}
