package rules

import (
	"slices"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
)

// FlagWindow is how long before the onset a setting's shift may explain it:
// a flag flipped at run time acts at once, unlike a release, whose fault may
// wait for the traffic that reaches it.
const FlagWindow = 5 * time.Minute

// MarkerTolerance is how far a release's version may have served before its
// deployment marker (the gate's AGENTK_GATE_MARKER_TOLERANCE default): a
// version that served longer before it was not started by that marker.
const MarkerTolerance = 5 * time.Minute

// NewPeerRatio is the call rate to one peer since the onset over its
// baseline (facts.peak_call_ratio) at or above which that peer is a new
// dependency, not more calls to an old one: retries multiply the calls a
// few times, a release that starts calling a new host multiplies them from
// almost none.
const NewPeerRatio = 10.0

// The window around the onset's minute whose configuration-change logs
// read as FeatConfigLogged (the gate's policy.ConfigChangeBeforeOnset and
// ConfigChangeAfterOnset), and how long after the latest deployment marker a
// minute must begin for its lines to count (ConfigChangeAfterRelease: a
// process starting may say its configuration changed as it loads it).
const (
	ConfigLogBeforeOnset  = 3 * time.Minute
	ConfigLogAfterOnset   = time.Minute
	ConfigLogAfterRelease = time.Minute
)

// configLogged returns the ids of the overviews of service whose
// facts.config_changes hold a minute, from ConfigLogBeforeOnset before the
// onset's minute to ConfigLogAfterOnset after it and at least
// ConfigLogAfterRelease after the latest deployment marker before the onset
// (latest, nil when none), in which the service's own logs said its
// configuration changed at run time (FeatConfigLogged).
func configLogged(service string, onset *time.Time, latest *contracts.DeploymentMarker, evidence []loop.Evidence) []string {
	if onset == nil {
		return nil
	}
	onMin := onset.Truncate(time.Minute)
	var ids []string
	for _, e := range evidence {
		if e.Tool != contracts.ToolServiceOverview || e.Service != "" && e.Service != service {
			continue
		}
		for _, m := range e.Facts.ConfigChanges {
			if m.Logs <= 0 || m.At.Before(onMin.Add(-ConfigLogBeforeOnset)) || m.At.After(onMin.Add(ConfigLogAfterOnset)) ||
				latest != nil && m.At.Before(latest.At.Add(ConfigLogAfterRelease)) {
				continue
			}
			ids = appendOnce(ids, e.ID)
		}
	}
	return ids
}

// flagFlip returns the ids of the overviews of service, or of the service
// where its failures begin (Facts.Origin), whose quality shifts show an
// attribute naming a setting, flag or variant (settingAttr: feature_flag.*,
// app.config.*, …) shifting from FlagWindow before the onset to the end of
// the onset's minute (OnsetBucket): a configuration changed at run time,
// with or without a release.
func flagFlip(service string, onset *time.Time, evidence []loop.Evidence) []string {
	if onset == nil {
		return nil
	}
	services := map[string]bool{service: true}
	if o, _ := alertedOrigin(service, evidence); o != nil {
		services[o.Service] = true
	}
	var ids []string
	for _, e := range evidence {
		if e.Tool != contracts.ToolServiceOverview || !services[e.Service] && e.Service != "" {
			continue
		}
		for _, q := range e.Facts.QualityShifts {
			if settingAttr.MatchString(q.Attribute) && !answerAttr.MatchString(q.Attribute) &&
				!q.At.Before(onset.Add(-FlagWindow)) && q.At.Before(onset.Add(OnsetBucket)) {
				ids = appendOnce(ids, e.ID)
			}
		}
	}
	return ids
}

// contradicted reports whether the service's own telemetry contradicts
// marker m: it names the version serving since the onset (facts.release),
// that version served from the recording's first minute with no other
// version before it (no history minutes), and it served more than
// MarkerTolerance before the marker. The recording then holds no release at
// all, so the marker did not start that version (one re-emitted, leaked by a
// test suite or forged). A version first seen after another one served may
// have rolled out before its marker was written, and a marker naming another
// version (a configuration release that kept service.version) says nothing
// about it: neither is contradicted.
func contradicted(m contracts.DeploymentMarker, rel *contracts.ReleaseErrors) bool {
	return rel != nil && rel.Version != "" && m.Version == rel.Version && rel.HistoryMinutes == 0 &&
		!rel.FirstSeen.IsZero() && rel.FirstSeen.Before(m.At.Add(-MarkerTolerance))
}

// newPeer returns the ids of the overviews of service whose busiest peer
// since the onset (facts.peak_call_ratio) was called NewPeerRatio times its
// baseline rate or more and is among the hosts of the failing client spans:
// the service began calling a host it hardly called before, and those calls
// fail.
func newPeer(service string, evidence []loop.Evidence, failingHosts map[string]bool) []string {
	var ids []string
	for _, e := range evidence {
		f := e.Facts
		if e.Tool == contracts.ToolServiceOverview && (e.Service == "" || e.Service == service) &&
			f.PeakCallRatio != nil && *f.PeakCallRatio >= NewPeerRatio && f.PeakCallPeer != "" && failingHosts[f.PeakCallPeer] {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

// slowFirst returns the ids of the overviews of service whose earliest
// departure (facts.departures, earliest first) is the p95 of a call out of
// the process, "… Client" or "… Producer" and not a model call (model),
// grown SlowRatio times: the dependency slowed before any error rate or
// endpoint left its baseline (FeatSlowFirst).
func slowFirst(service string, evidence []loop.Evidence, model map[string]bool) (first, lead []string) {
	for _, e := range evidence {
		if e.Tool != contracts.ToolServiceOverview || e.Service != "" && e.Service != service || len(e.Facts.Departures) == 0 {
			continue
		}
		d := e.Facts.Departures[0]
		name, out := strings.CutSuffix(d.Operation, " Client")
		if !out {
			name, out = strings.CutSuffix(d.Operation, " Producer")
		}
		if !out || model[name] || d.Signal != "p95" || d.Before <= 0 || d.Since < SlowRatio*d.Before {
			continue
		}
		first = appendOnce(first, e.ID)
		// FeatSlowLead: a whole bucket before the onset's minute.
		if on := e.Facts.Onset; on != nil && !d.At.After(on.Truncate(OnsetBucket).Add(-OnsetBucket)) {
			lead = appendOnce(lead, e.ID)
		}
	}
	return first, lead
}

// LatentErrors is the fewest errors with the release's new status since the
// onset that FeatLatentRelease reads: one or two are any version's noise.
const LatentErrors = 3

// latentRelease returns the ids of the overviews of service whose
// facts.release shows a version that replaced another during the recording
// and whose errors since the onset are mostly a new status that no other
// version shares (FeatLatentRelease).
func latentRelease(service string, evidence []loop.Evidence) []string {
	var ids []string
	for _, e := range evidence {
		r := e.Facts.Release
		if e.Tool != contracts.ToolServiceOverview || e.Service != "" && e.Service != service || r == nil {
			continue
		}
		if r.HistoryMinutes > 0 && r.NewErrors >= LatentErrors && 2*r.NewErrors > r.Errors && r.OtherNewErrors == 0 {
			ids = appendOnce(ids, e.ID)
		}
	}
	return ids
}

// usualRateDependency returns the ids of the overviews of service whose
// failing dependencies (facts.failing_dependencies) include a host of the
// failing client spans (FeatUsualRateDependency), when every retry is a
// client span of its own: no retry source (facts.retries) or OpenTelemetry's
// http.request.resend_count, set on each resend's span. Retries that only a
// log line (Go's retryablehttp: one span per call) or an attribute of one
// span counts are not in the call rate, which then says nothing of them.
func usualRateDependency(service string, evidence []loop.Evidence, failingHosts map[string]bool) []string {
	var ids []string
	for _, e := range evidence {
		if e.Tool != contracts.ToolServiceOverview || e.Service != "" && e.Service != service {
			continue
		}
		if r := e.Facts.Retries; r != nil && (r.Source != "attribute" || r.Key != resendKey) {
			continue
		}
		if slices.ContainsFunc(e.Facts.FailingDependencies, func(p string) bool { return failingHosts[p] }) {
			ids = appendOnce(ids, e.ID)
		}
	}
	return ids
}

// RetryCallRatio is the rise of the calls to a failing peer per inbound
// request at or above which the service's resends are the load (the
// gate's MinRetryCallRatio): a dependency that fails is called at about
// its usual rate (contracts.DependencyCallRatio).
const RetryCallRatio = 2.0

// retryLoad returns the ids of the overviews of service whose busiest peer
// since the onset (facts.peak_call_ratio), a host of the failing client
// spans, was called RetryCallRatio times its baseline or more per inbound
// request (FeatRetryLoad): the service multiplied its calls to the peer
// that fails.
func retryLoad(service string, evidence []loop.Evidence, failingHosts map[string]bool) []string {
	var ids []string
	for _, e := range evidence {
		f := e.Facts
		if e.Tool != contracts.ToolServiceOverview || e.Service != "" && e.Service != service ||
			f.PeakCallRatio == nil || f.PeakCallPeer == "" || !failingHosts[f.PeakCallPeer] {
			continue
		}
		perRequest := *f.PeakCallRatio
		if f.TrafficRatio != nil && *f.TrafficRatio > 1 {
			perRequest /= *f.TrafficRatio
		}
		if perRequest >= RetryCallRatio {
			ids = appendOnce(ids, e.ID)
		}
	}
	return ids
}

// resendKey is OpenTelemetry's HTTP resend counter, set on the client span
// of each resend.
const resendKey = "http.request.resend_count"
