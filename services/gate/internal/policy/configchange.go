package policy

import (
	"strconv"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// A configuration changed at runtime (e2e/incidents-heldout9's
// fb9-trap-flag-flip-no-release-loyalty-svc: a feature flag switched on in
// flagd three and a half minutes after loyalty-svc 6.0.3 had rolled out,
// and the rules, the oracle, persona:marker and persona:quality rolled
// 6.0.3 back). By its timing such a change cannot be told from a release
// whose failure shows a few minutes after it (e2e/incidents' bad-release-01
// fails three minutes after its marker and is the release's); the flag
// client's own log line can. The line is the service's claim: it only ever
// denies, so a forged one blocks a rollback and never buys one. Lines in
// the release's first minute are left out (a process starting may say its
// configuration changed as it loads it).
const (
	// ConfigChangeBeforeOnset and ConfigChangeAfterOnset bound the minutes,
	// around the onset's, whose configuration-change logs deny.
	ConfigChangeBeforeOnset = 3 * time.Minute
	ConfigChangeAfterOnset  = time.Minute
	// ConfigChangeAfterRelease is how long after the ledger's start of the
	// running version a minute must begin for its lines to count.
	ConfigChangeAfterRelease = time.Minute
)

// runtimeChangeReasons denies a deployment-class diagnosis when the
// service logged a runtime configuration change
// (contracts.Facts.ConfigChanges) in a minute that began at least
// ConfigChangeAfterRelease after the ledger's start of the running version
// and lies from ConfigChangeBeforeOnset before the onset's minute to
// ConfigChangeAfterOnset after it.
func runtimeChangeReasons(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	if in.Review.Best == nil || mutant.Off(mutant.GateRuntimeConfigChange) {
		return nil
	}
	if _, dep := deploymentClass(in.Config.Catalogue, in.Review.Best.Class); !dep {
		return nil
	}
	cur, ok := runningRelease(in.Ledger)
	on, _, onOK := onset(ev, svc)
	if !ok || !onOK || cur.DeployedAt.IsZero() {
		return nil
	}
	onMin := on.Truncate(time.Minute)
	var first time.Time
	var n int64
	for _, e := range ev {
		if e.Service != svc {
			continue
		}
		for _, m := range e.Facts.ConfigChanges {
			if m.Logs <= 0 || m.At.Before(cur.DeployedAt.Add(ConfigChangeAfterRelease)) || m.At.Before(onMin.Add(-ConfigChangeBeforeOnset)) || m.At.After(onMin.Add(ConfigChangeAfterOnset)) {
				continue
			}
			if n == 0 || m.At.Before(first) {
				first = m.At
			}
			n += m.Logs
		}
		if n > 0 {
			break
		}
	}
	if n == 0 {
		return nil
	}
	inputs["config_changes"] = strconv.FormatInt(n, 10) + " from " + ttoa(first)
	return []string{svc + " logged " + strconv.FormatInt(n, 10) + " runtime configuration change(s) (a feature flag or its configuration changed, in its own logs) from the minute " + ttoa(first) +
		", at the onset " + ttoa(on) + " and " + first.Sub(cur.DeployedAt).Round(time.Second).String() + " after " + strconv.Quote(cur.Version) + " started (the ledger: " + ttoa(cur.DeployedAt) +
		"): a configuration changed at runtime, which a rollback of the image would not undo, cannot be told from a release of " + svc}
}
