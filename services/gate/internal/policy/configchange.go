package policy

import (
	"strconv"
	"strings"
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

// runtimeWindow is what both runtime-change checks read: the running
// release and the onset of svc, and whether a minute at counts (it began at
// least ConfigChangeAfterRelease after the ledger's start of the running
// version and lies from ConfigChangeBeforeOnset before the onset's minute
// to ConfigChangeAfterOnset after it); false when the best claim is no
// deployment-class diagnosis or the release or onset is unknown.
func runtimeWindow(in Input, svc string, ev []contracts.EvidenceV1) (contracts.Release, time.Time, func(at time.Time) bool, bool) {
	if in.Review.Best == nil {
		return contracts.Release{}, time.Time{}, nil, false
	}
	if _, dep := deploymentClass(in.Config.Catalogue, in.Review.Best.Class); !dep {
		return contracts.Release{}, time.Time{}, nil, false
	}
	cur, ok := runningRelease(in.Ledger)
	on, _, onOK := onset(ev, svc)
	if !ok || !onOK || cur.DeployedAt.IsZero() {
		return contracts.Release{}, time.Time{}, nil, false
	}
	onMin := on.Truncate(time.Minute)
	inWindow := func(at time.Time) bool {
		return !at.Before(cur.DeployedAt.Add(ConfigChangeAfterRelease)) && !at.Before(onMin.Add(-ConfigChangeBeforeOnset)) && !at.After(onMin.Add(ConfigChangeAfterOnset))
	}
	return cur, on, inWindow, true
}

// runtimeChangeReasons denies a deployment-class diagnosis when the
// service logged a runtime configuration change
// (contracts.Facts.ConfigChanges) in a minute that began at least
// ConfigChangeAfterRelease after the ledger's start of the running version
// and lies from ConfigChangeBeforeOnset before the onset's minute to
// ConfigChangeAfterOnset after it.
func runtimeChangeReasons(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	if mutant.Off(mutant.GateRuntimeConfigChange) {
		return nil
	}
	cur, on, inWindow, ok := runtimeWindow(in, svc, ev)
	if !ok {
		return nil
	}
	var first time.Time
	var n int64
	for _, e := range ev {
		if e.Service != svc {
			continue
		}
		for _, m := range e.Facts.ConfigChanges {
			if m.Logs <= 0 || !inWindow(m.At) {
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

// A value of the service's spans that something outside its image chose
// changed at runtime (e2e/incidents-heldout14: product switched a Remote
// Config flag on for every user five minutes after lesson-api-00234-vor
// took its traffic, and the flag's new path asked a serving config prod
// never had; Vertex AI moved the gemini-2.0-flash alias to a newer model
// nine minutes after tutor-chat-00146-saz, and the answers left the
// learner's language). Each was rolled back by the rules, the oracle and
// persona:quality on main: the shift of the flag's variant or of the model
// answering was the very change evidence a prompt or configuration
// regression asks for (changeReasons), and nothing else tells the change
// from the release. Its timing does: a release changes what its own
// requests carry from their start, and these values moved under a version
// that had served with the old ones for minutes. The attribute is the
// service's claim, read only to deny, like the logs of runtimeChangeReasons
// and in the same minutes.
//
// runtimeAttributePrefixes name the attributes a runtime change sets: the
// OpenTelemetry feature-flag conventions (feature_flag.key,
// feature_flag.result.variant, feature_flag.result.value and the older
// feature_flag.variant). providerModel is the model the provider answered
// with (gen_ai.response.model), a dependency's choice when the model asked
// (requestedModel) did not shift with it.
var runtimeAttributePrefixes = []string{"feature_flag."}

const (
	providerModel  = "gen_ai.response.model"
	requestedModel = "gen_ai.request.model"
)

// runtimeAttributeReasons denies a deployment-class diagnosis when a shift
// of the service's own span attributes (contracts.Facts.QualityShifts) of a
// value a runtime change sets began in a minute at least
// ConfigChangeAfterRelease after the ledger's start of the running version,
// from ConfigChangeBeforeOnset before the onset's minute to
// ConfigChangeAfterOnset after it.
func runtimeAttributeReasons(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	if mutant.Off(mutant.GateRuntimeAttributeShift) {
		return nil
	}
	cur, on, inWindow, ok := runtimeWindow(in, svc, ev)
	if !ok {
		return nil
	}
	for _, e := range ev {
		if e.Service != svc {
			continue
		}
		asked := false
		for _, q := range e.Facts.QualityShifts {
			asked = asked || q.Attribute == requestedModel
		}
		for _, q := range e.Facts.QualityShifts {
			if !runtimeAttribute(q.Attribute, asked) || !inWindow(q.At) {
				continue
			}
			what := strconv.Quote(q.Attribute)
			if q.Value != "" {
				what += " = " + strconv.Quote(q.Value) + " share " + ftoa(q.Before) + " -> " + ftoa(q.Since)
			} else {
				what += " mean " + ftoa(q.Before) + " -> " + ftoa(q.Since)
			}
			inputs["runtime_attribute"] = q.Attribute + " from " + ttoa(q.At)
			return []string{"the spans of " + svc + " shifted " + what + " from the minute " + ttoa(q.At) + ", at the onset " + ttoa(on) + " and " +
				q.At.Sub(cur.DeployedAt).Round(time.Second).String() + " after " + strconv.Quote(cur.Version) + " started (the ledger: " + ttoa(cur.DeployedAt) +
				"): a value set outside the image (a feature flag's evaluation, the model a provider answered with) changed under a version that had served with the old one, which a rollback of the image would not undo"}
		}
	}
	return nil
}

// runtimeAttribute reports whether a shift of attr is one a runtime change
// makes: a feature flag's evaluation, or the model the provider answered
// with when the model asked did not shift (asked).
func runtimeAttribute(attr string, asked bool) bool {
	for _, p := range runtimeAttributePrefixes {
		if strings.HasPrefix(attr, p) {
			return true
		}
	}
	return attr == providerModel && !asked
}
