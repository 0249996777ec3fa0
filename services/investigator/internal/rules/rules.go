// Package rules is the offline investigator: the same loop and tools as the
// model, no model. It diagnoses only from what the sandbox recorded: evidence
// facts (deployment markers, error rate, p95, onset, inbound traffic) and the
// span rows the sandbox returned, read as OpenTelemetry features (Feature:
// status class in either semantic-convention version, exception.* and
// error.type, service.version, pool, resends, peer and database client
// spans), plus explicit patterns of message text. It never reads the incident
// folder or the alert's text. Every rule is one row of Table, and its claim
// names the features it read.
package rules

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
)

// Name is the investigator name reports carry.
const Name = "rules"

// MarkerWindow is how long before the onset a deployment may explain it (the
// gate's deployment_related window).
const MarkerWindow = 30 * time.Minute

// Thresholds the rules use.
const (
	HighErrorRate = 0.05
	// SurgeRatio is the inbound traffic over its baseline that counts as a surge.
	SurgeRatio   = 2.0
	HighP95Ms    = 1000.0
	LowErrorRate = 0.02
	// ReleaseErrorRate is the error rate that, after a deployment of the
	// service and without exceptions or a crash, reads as a bad release.
	ReleaseErrorRate = 0.10
)

// Signal is a named family of patterns searched in trace and log data.
type Signal string

// Signals.
const (
	SigPool       Signal = "pool"
	SigDependency Signal = "dependency"
	SigResource   Signal = "resource"
	SigRetry      Signal = "retry"
	SigPrompt     Signal = "prompt"
	SigConfig     Signal = "config"
	SigCrash      Signal = "crash"
	SigRetrieval  Signal = "retrieval"
)

// Patterns are the lower-case substrings of each signal. They are matched in
// the sandbox's compact data of error traces, error logs, traces and aggregates.
var Patterns = map[Signal][]string{
	SigPool:       {"pool exhausted", "pool checkout", "checkout timed out", "queuepool", "too many connections", "connection pool", "pool timeout", "acquire connection"},
	SigDependency: {"connection refused", "econnrefused", "service unavailable", "no route to host", "name resolution", "connection reset", "bad gateway", "upstream unavailable", "dial tcp"},
	SigResource:   {"out of memory", "oomkilled", "oom", "gc pause", "memory limit", "cpu throttl", "heap exhausted"},
	SigRetry:      {"retry", "retries", "retrying", "attempt "},
	SigPrompt:     {"prompt", "template", "guardrail", "answer quality", "hallucinat"},
	SigConfig:     {"config", "configuration", "feature flag", "missing setting", "env var", "invalid setting"},
	SigCrash:      {"panic", "exception", "nil pointer", "internal server error", "traceback", "segfault"},
	SigRetrieval:  {"retriev", "vector", "embedding", "pgvector", "search"},
}

// Observations are what the rules read, all from evidence.
type Observations struct {
	// Deploy is a deployment marker of the service within MarkerWindow before the onset.
	Deploy bool
	// MarkerQueried is true when a deployment-marker query ran.
	MarkerQueried     bool
	ErrorRate, P95Ms  float64
	HaveRate, HaveP95 bool
	// TrafficRatio is inbound traffic since the onset over the baseline.
	TrafficRatio float64
	HaveTraffic  bool
	// Signals maps each signal found to the ids of the evidence it was found in.
	Signals map[Signal][]string
	// OverviewIDs and MarkerIDs cite the service overview and marker queries.
	OverviewIDs, MarkerIDs []string
	// Features maps each OpenTelemetry feature found (see Feature) to the ids
	// of the evidence it was read from.
	Features map[Feature][]string
}

func (o Observations) has(s Signal) bool { return len(o.Signals[s]) > 0 }

func (o Observations) feat(f Feature) bool { return len(o.Features[f]) > 0 }

// Rule is one row of the table: when When holds, the incident is Class with
// Confidence.
type Rule struct {
	Class      string
	Confidence float64
	// Why is the claim's statement; it carries no numbers, so that every figure
	// a reviewer checks comes from evidence, not from this text.
	Why  string
	When func(o Observations) bool
	// Cites are the signals whose evidence the claim cites, besides the overview.
	Cites []Signal
	// Marker cites the deployment-marker evidence too.
	Marker bool
	// Features are the OpenTelemetry features the rule reads; those found are
	// cited, and named in the claim's statement.
	Features []Feature
}

// Table is every rule, strongest first. The first match is the diagnosis;
// later matches become secondary claims.
var Table = []Rule{
	{"traffic_surge", 0.75, "inbound traffic since the onset is far above its baseline: load, not a release, explains the regression",
		func(o Observations) bool { return o.HaveTraffic && o.TrafficRatio >= SurgeRatio }, nil, true, nil},
	// db_pool_exhaustion reads FeatPool (db.client.connection.pool.name on
	// failing spans) or the pool signal.
	{"db_pool_exhaustion", 0.8, "connection pool exhaustion: traces or logs show pool checkout timeouts or an exhausted pool",
		func(o Observations) bool { return o.has(SigPool) || o.feat(FeatPool) }, []Signal{SigPool}, false, []Feature{FeatPool}},
	// retry_storm reads FeatResend (http.request.resend_count on failing
	// client spans) or the retry signal, after a deployment.
	{"retry_storm", 0.8, "a deployment of this service precedes the onset and traces or logs show retries multiplying",
		func(o Observations) bool { return o.Deploy && (o.has(SigRetry) || o.feat(FeatResend)) }, []Signal{SigRetry}, true, []Feature{FeatResend}},
	{"prompt_regression", 0.75, "a deployment of this service precedes the onset and traces or logs point at the prompt or template",
		func(o Observations) bool { return o.Deploy && o.has(SigPrompt) }, []Signal{SigPrompt}, true, nil},
	{"config_regression", 0.7, "a deployment of this service precedes the onset and traces or logs point at configuration",
		func(o Observations) bool { return o.Deploy && o.has(SigConfig) }, []Signal{SigConfig}, true, nil},
	{"resource_saturation", 0.75, "traces or logs show memory or CPU pressure",
		func(o Observations) bool { return o.has(SigResource) }, []Signal{SigResource}, false, nil},
	// dependency_outage reads FeatPeer (most failures are client spans to a
	// peer: peer.service, server.address, net.peer.name) or the dependency
	// signal, with no deployment of this service before the onset.
	{"dependency_outage", 0.75, "no deployment precedes the onset and traces or logs show an upstream refusing or failing connections",
		func(o Observations) bool { return !o.Deploy && (o.has(SigDependency) || o.feat(FeatPeer)) }, []Signal{SigDependency}, true, []Feature{FeatPeer}},
	// dependency_outage also when a deployment of this service coincides: if
	// most of its failures are its own client spans to a peer failing
	// (FeatPeer), the peer is failing, and a rollback would not fix it.
	{"dependency_outage", 0.6, "most failures are this service's calls to a dependency failing, although a deployment of it precedes the onset",
		func(o Observations) bool { return o.Deploy && o.feat(FeatPeer) && !o.feat(FeatResend) }, []Signal{SigDependency}, true, []Feature{FeatPeer}},
	// bad_release reads FeatException (exception.* / error.type: the new
	// code throws), the crash signal, or an error rate of at least
	// ReleaseErrorRate, after a deployment. A trickle of generic 5xx
	// (FeatServer5xx) without exceptions is cited but decides nothing: a
	// deploy that merely coincides with it is not shown to be the cause. It cites
	// FeatNewVersion (errors only on the new service.version) but never
	// decides on it alone: after a full rollout every span is on the new
	// version.
	{"bad_release", 0.7, "a deployment of this service precedes the onset and errors rose after it",
		func(o Observations) bool {
			return o.Deploy && (o.has(SigCrash) || o.feat(FeatException) ||
				o.HaveRate && o.ErrorRate >= ReleaseErrorRate)
		}, []Signal{SigCrash}, true, []Feature{FeatServer5xx, FeatException, FeatNewVersion}},
	{"retrieval_latency", 0.7, "no deployment precedes the onset; latency rose and retrieval or search spans dominate",
		func(o Observations) bool {
			return !o.Deploy && o.HaveP95 && o.P95Ms >= HighP95Ms && o.has(SigRetrieval)
		},
		[]Signal{SigRetrieval}, true, nil},
	{"retry_storm", 0.45, "traces or logs show retries multiplying, but no deployment precedes the onset",
		func(o Observations) bool { return !o.Deploy && o.has(SigRetry) }, []Signal{SigRetry}, true, nil},
	{"traffic_surge", 0.4, "no deployment precedes the onset; latency rose without errors or a dominant dependency",
		func(o Observations) bool {
			return !o.Deploy && o.HaveP95 && o.P95Ms >= HighP95Ms && o.HaveRate && o.ErrorRate < LowErrorRate
		}, nil, true, nil},
}

// MaxClaims caps the claims one diagnosis carries.
const MaxClaims = 3

// Observe derives Observations from evidence of service.
func Observe(service string, evidence []loop.Evidence) Observations {
	o := Observations{Signals: map[Signal][]string{}}
	var onset *time.Time
	var markers []contracts.DeploymentMarker
	for _, e := range evidence {
		f := e.Facts
		switch e.Tool {
		case contracts.ToolServiceOverview:
			o.OverviewIDs = append(o.OverviewIDs, e.ID)
			if f.ErrorRate != nil {
				o.ErrorRate, o.HaveRate = *f.ErrorRate, true
			}
			if f.P95Ms != nil {
				o.P95Ms, o.HaveP95 = *f.P95Ms, true
			}
			if f.Onset != nil {
				onset = f.Onset
			}
			if f.TrafficRatio != nil {
				o.TrafficRatio, o.HaveTraffic = *f.TrafficRatio, true
			}
		case contracts.ToolDeploymentMarkers:
			if f.MarkerQuery {
				o.MarkerQueried = true
				o.MarkerIDs = append(o.MarkerIDs, e.ID)
			}
			markers = append(markers, f.DeploymentMarkers...)
		default:
			text := strings.ToLower(e.Compact)
			for sig, pats := range Patterns {
				if slices.ContainsFunc(pats, func(p string) bool { return strings.Contains(text, p) }) {
					o.Signals[sig] = append(o.Signals[sig], e.ID)
				}
			}
		}
	}
	var latest *contracts.DeploymentMarker
	if onset != nil {
		for i, m := range markers {
			if m.Service == service && m.At.Before(*onset) && onset.Sub(m.At) <= MarkerWindow {
				o.Deploy = true
				if latest == nil || m.At.After(latest.At) {
					latest = &markers[i]
				}
			}
		}
	}
	newVersion := ""
	if latest != nil {
		newVersion = latest.Version
	}
	o.Features = features(service, newVersion, evidence)
	return o
}

// Diagnose applies Table to o and returns up to MaxClaims claims, strongest
// first; one unknown claim when no rule matches.
func Diagnose(o Observations) []contracts.Claim {
	var out []contracts.Claim
	seen := map[string]bool{}
	for _, r := range Table {
		if len(out) == MaxClaims || seen[r.Class] || !r.When(o) {
			continue
		}
		seen[r.Class] = true
		conf := r.Confidence
		if len(out) > 0 {
			conf = min(conf, out[0].Confidence) * 0.6 // secondary
		}
		ids := slices.Clone(o.OverviewIDs)
		if r.Marker {
			ids = append(ids, o.MarkerIDs...)
		}
		for _, s := range r.Cites {
			ids = append(ids, o.Signals[s]...)
		}
		why := r.Why
		var read []string
		for _, f := range r.Features {
			if o.feat(f) {
				ids = append(ids, o.Features[f]...)
				read = append(read, string(f))
			}
		}
		if len(read) > 0 {
			why += "; features read: " + strings.Join(read, "; ")
		}
		out = append(out, contracts.Claim{Class: r.Class, Statement: why, Confidence: conf, EvidenceIDs: compactIDs(ids)})
	}
	if len(out) == 0 {
		ids := compactIDs(append(slices.Clone(o.OverviewIDs), o.MarkerIDs...))
		out = append(out, contracts.Claim{Class: contracts.ClassUnknown, Statement: "no rule matched the evidence: nothing conclusive", Confidence: 0.2, EvidenceIDs: ids})
	}
	return out
}

func compactIDs(ids []string) []string {
	out := []string{}
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// Investigator is the rules investigator as a loop.Model. After the minimum
// plan it asks for one aggregate of p95 latency by span name, so a dependency
// that dominates latency shows up, then diagnoses.
type Investigator struct{}

// Next implements loop.Model. It never spends tokens.
func (Investigator) Next(_ context.Context, s loop.State) (loop.Answer, error) {
	asked := len(s.Turns) > 0
	if !asked && !s.Final {
		args, err := json.Marshal(contracts.ToolArgs{Service: s.Alert.Service, Aggregation: "p95", Field: "duration_nano", GroupBy: []string{"name"}, Limit: 20})
		if err != nil {
			return loop.Answer{}, err
		}
		return loop.Answer{Calls: []loop.ToolRequest{{ID: "rules-1", Tool: contracts.ToolAggregateTraces, Arguments: args}}, Model: Name}, nil
	}
	dumpState(s)
	return loop.Answer{Claims: Diagnose(Observe(s.Alert.Service, s.Evidence)), Model: Name}, nil
}
