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
	"regexp"
	"slices"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/contracts/table"
	"agentk/services/investigator/internal/loop"
)

// Name is the investigator name reports carry.
const Name = "rules"

// MarkerWindow is how long before the onset a deployment may explain it (the
// gate's deployment_related window).
const MarkerWindow = 30 * time.Minute

// OnsetBucket is the granularity of the overview's onset: the start of the
// first minute that left the baseline. A marker inside that minute may
// precede the regression, so the diagnosis counts it (the gate, which
// decides the rollback, keeps its own stricter rule).
const OnsetBucket = time.Minute

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
	// RuntimeRise is the rise of a runtime attribute since the onset (the
	// overview's runtime_saturation fact) that reads as saturation: the
	// gate's policy.RuntimeRiseRatio.
	RuntimeRise = 1.5
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
	// SinceOnsetRate is the error rate of the overview's minutes from the
	// onset on: unlike ErrorRate, it does not depend on how much history
	// the window holds.
	SinceOnsetRate     float64
	HaveSinceOnsetRate bool
	// TrafficRatio is inbound traffic since the onset over the baseline.
	TrafficRatio float64
	HaveTraffic  bool
	// OrdinaryRatio is the ordinary entry spans a minute since the onset
	// over those a minute before it (ordinary.go); HaveOrdinary when
	// measured.
	OrdinaryRatio float64
	HaveOrdinary  bool
	// Signals maps each signal found to the ids of the evidence it was found in.
	Signals map[Signal][]string
	// OverviewIDs and MarkerIDs cite the service overview and marker queries.
	OverviewIDs, MarkerIDs []string
	// origin is where most failing traces began ("" when none dominates).
	origin origin
	// Features maps each OpenTelemetry feature found (see Feature) to the ids
	// of the evidence it was read from.
	Features map[Feature][]string
	// release is the overview's comparison of versions (facts.release): a
	// marker it contradicts is no deployment (contradicted).
	release *contracts.ReleaseErrors
	// slowDeps are the ids of the overviews that name a slow dependency.
	slowDeps []string
}

func (o Observations) has(s Signal) bool { return len(o.Signals[s]) > 0 }

// perRequestShift reports whether, after a deployment of the service, what
// each request does changed since the onset: its retries per request rose
// (FeatRetryRise, FeatRetryLoad), or the model's answers shifted with few
// errors (FeatAnswerShift). A traffic surge multiplies the requests and
// leaves each one's work as it was; a count of kept spans that rose with it
// is the sampler keeping the changed requests (ho4-faraday-retry-store-api-
// inventory and ho4-prompt-v12-report-triage read traffic_surge).
func (o Observations) perRequestShift() bool {
	r, _ := o.rate()
	return o.Deploy && (o.feat(FeatRetryRise) || o.feat(FeatRetryLoad) || o.feat(FeatAnswerShift) && r < HighErrorRate)
}

func (o Observations) feat(f Feature) bool { return len(o.Features[f]) > 0 }

// quietPeer reports whether the sandbox found a dependency of the failing
// client spans failing at its usual rate (FeatUsualRateDependency) while
// no dependency slowed (FeatChildSlow, FeatSlowDependency): its failures
// are its own, not the timeouts of a slowdown.
func (o Observations) quietPeer() bool {
	return o.feat(FeatUsualRateDependency) && !o.feat(FeatChildSlow) && !o.feat(FeatSlowDependency)
}

// answersPlacedOnset reports whether the model's answers shifted
// (FeatAnswerShift) and a shift of the service's span attributes placed
// the onset, earlier than every error or latency departure
// (FeatAttributeOnset): what departed first is what the model answered.
func (o Observations) answersPlacedOnset() bool {
	return o.feat(FeatAnswerShift) && o.feat(FeatAttributeOnset)
}

// answersSlowed reports whether the model call slowed (FeatModelSlow) while
// its answers shifted (FeatAnswerShift): the model works longer on what it
// is asked, which a slow provider answering the same questions does not
// change.
func (o Observations) answersSlowed() bool {
	return o.feat(FeatModelSlow) && o.feat(FeatAnswerShift)
}

// rate is the error rate since the onset when the overview measured it,
// else the window's.
func (o Observations) rate() (float64, bool) {
	if o.HaveSinceOnsetRate {
		return o.SinceOnsetRate, true
	}
	return o.ErrorRate, o.HaveRate
}

// slowLed reports whether a dependency slowed minutes before the onset
// (FeatSlowLead) and no failing span throws: the row of FeatSlowFirst
// reads it as retrieval latency, and the dependency rows leave it to it.
func (o Observations) slowLed() bool {
	return o.feat(FeatSlowLead) && !o.feat(FeatException) && !o.has(SigCrash)
}

// failing reports whether the service's failing calls are the incident: it
// fails at ReleaseErrorRate or more (or its error rate was not measured),
// or no dependency span merely slowed (FeatChildSlowed, which FeatChildSlow
// implies). A few timed-out calls to a dependency that slowed down are a
// symptom of the slowdown, not an outage. Calls the peer answered with its
// own failure status (FeatPeerAnswered) or refused (FeatRefused) are no
// timeouts: the peer failed, however few of them and whatever slowed
// (lm7-trap-s3-slowdown-downloads-api: S3's 503 SlowDown on one download
// in eight read bad_release; lm7-trap-stuck-rollout-transcode-api: a
// failing-over database refusing connections read retrieval_latency).
func (o Observations) failing() bool {
	r, ok := o.rate()
	return !ok || r >= ReleaseErrorRate || !o.feat(FeatChildSlowed) || o.feat(FeatPeerAnswered) || o.feat(FeatRefused)
}

// dbRefusedSettings reports whether the failing database calls (FeatDB)
// read as the database refusing what the release sent: not when the
// database slowed (the span that dominates the latency growth,
// FeatChildSlow, or a dependency the sandbox found slower,
// FeatSlowDependency) or answered with its own failure status
// (FeatPeerFault). A database that refuses a setting answers at once with
// the caller's error; one that times out or throttles failed by itself
// (kf6-trap-redis-patching-timeouts-pricing-api, Redis GETs timing out
// after 5 s during patching, and lm7-trap-ddb-throttle-entitlements-api,
// DynamoDB throttling reads, read config_regression).
func (o Observations) dbRefusedSettings() bool {
	return o.feat(FeatDB) && !o.feat(FeatChildSlow) && !o.feat(FeatSlowDependency) && !o.feat(FeatPeerFault)
}

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
// later matches become secondary claims. Each rule is an SRE's statement of
// its class in OpenTelemetry terms; its doc comment names the features it
// reads.
var Table = []Rule{
	// traffic_surge reads the inbound request rate against its baseline
	// (the overview's traffic ratio): load moved every endpoint together;
	// or FeatLagArrivals: a queue consumer's lag rose with the messages
	// arriving (lag.go); or FeatRegionShift: a region lost its requests and
	// another took them over, load moved onto fewer processes though the
	// service's traffic as a whole held (fb9-trap-region-failover-booking-
	// api, eu-west-1's requests sent to eu-central-1, whose connections ran
	// out, read db_pool_exhaustion). Not when, after a deployment of the service, what
	// each request does changed (perRequestShift): a surge multiplies the
	// requests, not the retries or the model's answers of each one.
	{"traffic_surge", 0.75, "inbound traffic since the onset is far above its baseline: load, not a release, explains the regression",
		func(o Observations) bool {
			return o.HaveTraffic && o.TrafficRatio >= SurgeRatio && !o.outcomesCarryRise() && !o.perRequestShift() || o.feat(FeatLagArrivals) || o.feat(FeatRegionShift)
		}, nil, true, []Feature{FeatLagArrivals, FeatRegionShift}},
	// resource_saturation, before the pool's row: FeatNodeConfined, the
	// running version's errors are confined to a few nodes while the same
	// version serves cleanly on the others. A release fails wherever it
	// runs; a node starved of CPU by a neighbour fails only there, and the
	// pool's checkouts that time out on it are its symptom
	// (kw10-trap-noisy-node-fleet-api and its fast twin, a retraining job
	// without a CPU limit on one node, read db_pool_exhaustion).
	{"resource_saturation", 0.7, "the errors are confined to a few nodes while the same version serves cleanly on the others: a node short of CPU or memory, not the release",
		func(o Observations) bool { return o.feat(FeatNodeConfined) }, nil, false, []Feature{FeatNodeConfined}},
	// db_pool_exhaustion reads FeatPool: failures begin in a database
	// client's internal span (acquiring a connection) or carry
	// db.client.connection.pool.name; or the pool signal; or FeatPoolDry,
	// the sandbox's count of the service's failing pool spans.
	{"db_pool_exhaustion", 0.8, "connection pool exhaustion: traces or logs show pool checkout timeouts or an exhausted pool",
		func(o Observations) bool { return o.has(SigPool) || o.feat(FeatPool) || o.feat(FeatPoolDry) }, []Signal{SigPool}, false, []Feature{FeatPool, FeatPoolDry}},
	// dependency_outage also after a deployment of the service, before the
	// release rows: FeatOtherVersionsFail, the versions still serving beside
	// the released one fail as much since the onset, and the failures begin
	// in the service's own code (FeatOwnCode), not in calls it multiplied
	// (a retry storm fails every version's calls to the peer it floods). A
	// fault of the released code fails that version only; the same fault
	// in every version's own code is a change outside the code it runs: a
	// dependency's answers (a platform answering null handles, a rate
	// source answering none). incidents-version-twins' null-handle traps
	// and heldout8's canary-outside twins read bad_release. The gate
	// denies every deployment-class diagnosis on the same fact.
	{"dependency_outage", 0.6, "a deployment of this service precedes the onset, but the versions serving beside the released one fail as much in their own code: a change outside the release",
		func(o Observations) bool {
			return o.Deploy && o.feat(FeatOtherVersionsFail) && o.feat(FeatOwnCode)
		}, nil, true, []Feature{FeatOtherVersionsFail, FeatOwnCode}},
	// retry_storm reads FeatResend (http.request.resend_count, or several
	// failing client spans to one peer in a trace), or the retry signal
	// unless the failing calls go to a new host, after a deployment.
	{"retry_storm", 0.8, "a deployment of this service precedes the onset and traces or logs show retries multiplying",
		func(o Observations) bool {
			return o.Deploy && !o.feat(FeatUsualRateDependency) && !o.feat(FeatRetriedFault) && (o.feat(FeatResend) || o.feat(FeatRetryRise) || o.has(SigRetry) && (o.origin == originPeer || o.origin == "") && !o.feat(FeatNewHost))
		}, []Signal{SigRetry}, true, []Feature{FeatResend, FeatRetryRise}},
	// prompt_regression reads FeatModelSlow (the model call, a span with
	// gen_ai.request.model, dominates the latency growth) with few errors,
	// or the prompt signal, after a deployment. Also whatever the error
	// rate when the answers shifted and placed the onset
	// (answersPlacedOnset): no error or latency departure came before
	// them, so the errors are the ones the service always had
	// (s553217-w006, a 5% background of errors under an evaluation score's
	// fall, read bad_release; the gate denies bad_release on such an
	// onset).
	{"prompt_regression", 0.75, "a deployment of this service precedes the onset and the model's answers changed: traces point at the prompt or the model call",
		func(o Observations) bool {
			r, _ := o.rate()
			return o.Deploy && !o.feat(FeatFlagFlip) && (o.has(SigPrompt) || (o.feat(FeatModelSlow) || o.feat(FeatAnswerShift)) && r < HighErrorRate || o.answersPlacedOnset())
		}, []Signal{SigPrompt}, true, []Feature{FeatModelSlow, FeatAnswerShift, FeatAttributeOnset}},
	// prompt_regression also when the overview found no onset (the
	// latency and errors never left their baseline): FeatReleasedAnswers,
	// the model's answers shifted within MarkerWindow after a deployment
	// marker of the service, with few errors. The answers' shift is then
	// the only departure, and the marker is measured against it.
	// s84217-w054 (quality only: completion tokens 273 -> 975 and
	// eval.passed false 13 min after the release) read unknown.
	{"prompt_regression", 0.7, "no onset in the service's latency or errors, but the model's answers shifted after a deployment of this service",
		func(o Observations) bool {
			r, _ := o.rate()
			return !o.Deploy && o.feat(FeatReleasedAnswers) && r < HighErrorRate
		}, nil, true, []Feature{FeatReleasedAnswers}},
	// config_regression reads FeatConfigChange (the marker says the release
	// changed configuration), FeatNewHost (the new release calls a host
	// never called before, or one it calls NewPeerRatio times more than in
	// the baseline: newPeer) or failing database calls (FeatDB: the database
	// refuses the release's settings), FeatBuildOnly (the release changed
	// only its version's build metadata: the same code, other settings),
	// FeatConfigLogged (the service logged a run-time configuration change
	// at the onset, a minute or more after the release: a flag switched
	// after the rollout, fb9-trap-flag-flip-no-release-loyalty-svc read
	// bad_release), or the config signal, after a deployment. Not failing database calls
	// where the database slowed or failed by itself (dbRefusedSettings),
	// nor the config signal's words when a peer called at its usual rate
	// answers with its own failure (FeatPeerFault): they are the peer's
	// ("the level of configured provisioned throughput ... was exceeded",
	// DynamoDB throttling lm7-trap-ddb-throttle-entitlements-api), since a
	// release's settings fail its calls with the caller's own errors.
	{"config_regression", 0.7, "a deployment of this service precedes the onset and its calls fail on settings it changed",
		func(o Observations) bool {
			return o.Deploy && (o.feat(FeatConfigChange) || o.feat(FeatNewHost) || o.dbRefusedSettings() || o.feat(FeatSettingShift) || o.feat(FeatBuildOnly) || o.feat(FeatConfigLogged) || o.has(SigConfig) && !o.feat(FeatPeerFault))
		}, []Signal{SigConfig}, true, []Feature{FeatConfigChange, FeatNewHost, FeatDB, FeatSettingShift, FeatBuildOnly, FeatConfigLogged}},
	// config_regression also without a deployment: FeatFlagFlip, a setting
	// or feature flag of the service, or of the service where its failures
	// begin, shifted at the onset, or FeatConfigLogged, the service's own
	// logs said its configuration changed at the onset. A flag flipped at run time is a
	// configuration change no release carried, so a rollback would not
	// undo it (the gate denies it for want of a marker).
	{"config_regression", 0.6, "no deployment precedes the onset, but a setting or feature flag changed at the onset: a configuration change at run time, which a rollback would not undo",
		func(o Observations) bool { return !o.Deploy && (o.feat(FeatFlagFlip) || o.feat(FeatConfigLogged)) }, nil, true, []Feature{FeatFlagFlip, FeatConfigLogged}},
	// traffic_surge also when the traffic could not be set against a
	// baseline (no onset, so no traffic ratio): FeatThrottled, the
	// service's own server spans refuse requests as too many (HTTP 429),
	// its failures begin in its own spans (FeatOwnCode: not a callee's 429
	// passed on), and nothing shows the process short of memory or CPU (the
	// resource signal, FeatRuntimeRise). An even slowdown is what load and
	// pressure both look like; the 429 is the service saying which.
	// s84217-w021: 28 min of telemetry, no onset, 8 of 18 failing server
	// spans answered 429; read resource_saturation (FeatEvenSlow) before.
	// Also when the kept spans rose but the ordinary requests did not
	// rise with them (outcomesCarryRise, the first row's exception): a
	// sampler by outcome keeps the refusals, and the refusals are the
	// service saying it was sent too much (s908341-w021: 3.08x kept
	// spans, 1.43x ordinary ones, 429s from its own server spans, read
	// resource_saturation).
	{"traffic_surge", 0.6, "the traffic could not be set against a baseline, or only the kept outcomes rose, but the service's own server spans refuse requests as too many: load, not a release",
		func(o Observations) bool {
			return !o.Deploy && (!o.HaveTraffic || o.TrafficRatio >= SurgeRatio) && o.feat(FeatThrottled) && o.feat(FeatOwnCode) && !o.has(SigResource) && !o.feat(FeatRuntimeRise)
		}, nil, true, []Feature{FeatThrottled, FeatOwnCode}},
	// resource_saturation reads FeatRuntimeRise (a runtime attribute of
	// the service's spans rose: CPU utilization, memory in use, GC time),
	// FeatEvenSlow (every endpoint slower, no dependency span dominates,
	// no dependency the sandbox found slower) or the resource signal
	// (memory, GC, OOM in logs); or FeatLagProcessing without a deployment
	// of the service: a queue consumer whose lag rose because it takes
	// longer a message, the arrivals unchanged (lag.go; after a release of
	// its own, the slower code may be the release's, and other rows read it).
	// Not FeatEvenSlow when the retries per inbound request rose
	// (FeatRetryRise): every endpoint that retries grows by its attempts,
	// each request doing more work, none of them starved (s908341-w004, a
	// retry storm whose marker lies outside the window, read
	// resource_saturation).
	{"resource_saturation", 0.75, "the whole service slowed with memory or CPU pressure: no dependency explains it",
		func(o Observations) bool {
			return o.has(SigResource) || o.feat(FeatRuntimeRise) || o.feat(FeatEvenSlow) && !o.feat(FeatPeer) && !o.feat(FeatSlowDependency) && !o.feat(FeatRetryRise) ||
				o.feat(FeatLagProcessing) && !o.Deploy
		}, []Signal{SigResource}, false, []Feature{FeatRuntimeRise, FeatEvenSlow, FeatLagProcessing}},
	// retry_storm also with no marker in the window: resends (FeatResend or
	// FeatRetryRise) multiplied the calls to the failing peer per inbound
	// request (FeatRetryLoad) since a version that replaced another during
	// the recording (facts.release): the service sends the load, which a
	// dependency that fails does not (it is called at its usual rate). A
	// release whose marker lies out of the window; the gate denies it.
	{"retry_storm", 0.6, "no deployment precedes the onset within the window, but resends multiplied the calls to the failing peer since a version released during the recording",
		func(o Observations) bool {
			return !o.Deploy && o.feat(FeatRetryLoad) && (o.feat(FeatResend) || o.feat(FeatRetryRise)) && o.release != nil && o.release.HistoryMinutes > 0
		}, []Signal{SigRetry}, true, []Feature{FeatRetryLoad, FeatResend, FeatRetryRise}},
	// config_regression also with no marker in the window: the version
	// released during the recording fails since the onset with a status
	// its history never showed (FeatLatentRelease), in calls to a host the
	// service never called before the onset (FeatNewHost). A peer that
	// fails is one the service called all along; a host first called by a
	// new version is a setting that version carried. Its marker is older
	// than MarkerWindow; the gate denies it. s84217-w042 and
	// s4729163-w050 (staging hosts, markers 3 h before the onset) read
	// dependency_outage before.
	{"config_regression", 0.6, "no deployment precedes the onset within the window, but the version released during the recording fails since the onset in calls to a host it never called before: a setting it carried",
		func(o Observations) bool {
			return !o.Deploy && o.feat(FeatLatentRelease) && (o.feat(FeatNewHost) || o.feat(FeatConfigSignature))
		},
		[]Signal{SigConfig}, true, []Feature{FeatLatentRelease, FeatNewHost, FeatConfigSignature}},
	// dependency_outage reads FeatPeer (most failing traces begin in a
	// client span to a peer: peer.service, server.address, net.peer.name)
	// or the dependency signal unless the failures begin in the service's
	// own spans, or FeatPeerFault (the sandbox found a peer answering with
	// its own failure status, whatever the span rows name it by), or
	// FeatUsualRateDependency (a peer of the failing client spans, called
	// at its usual rate, whose errors rose at the onset: the gate's failing
	// dependency, though the failures begin in the service's own spans;
	// s553217-w017 read unknown) when no dependency slowed (quietPeer: a
	// slowed dependency's failing calls are its timeouts, s18-w001's
	// retrieval latency), with no deployment of this service; not when a
	// dependency slowed minutes before the onset (slowLed: its timeouts).
	{"dependency_outage", 0.75, "no deployment precedes the onset and traces or logs show an upstream refusing or failing connections",
		func(o Observations) bool {
			return !o.Deploy && o.failing() && !o.slowLed() && !o.feat(FeatVersionOnly) && (o.feat(FeatPeer) || o.feat(FeatPeerFault) || o.quietPeer() || o.has(SigDependency) && !o.feat(FeatOwnCode))
		}, []Signal{SigDependency}, true, []Feature{FeatPeer, FeatPeerFault, FeatPeerAnswered, FeatRefused, FeatUsualRateDependency}},
	// dependency_outage also when a deployment of this service coincides:
	// its failures begin in its calls to a peer it called before (FeatPeer
	// without FeatNewHost), or the sandbox found a peer called at its usual
	// rate answering with its own failure (FeatPeerFault), so the peer is
	// failing and a rollback would not fix it.
	{"dependency_outage", 0.6, "most failures are this service's calls to a dependency failing, although a deployment of it precedes the onset",
		func(o Observations) bool {
			return o.Deploy && o.failing() && !o.slowLed() && !o.feat(FeatOwnLoad) && !o.feat(FeatVersionOnly) && (o.feat(FeatPeer) || o.feat(FeatPeerFault))
		}, []Signal{SigDependency}, true, []Feature{FeatPeer, FeatPeerFault, FeatPeerAnswered, FeatRefused}},
	// retrieval_latency also before a deployment's rows: FeatSlowFirst, a
	// dependency call's p95 was the first thing to leave its baseline, and
	// no failing span carries an exception. A handful of its timeouts in
	// the few sampled requests since the onset may read as an error rate
	// over ReleaseErrorRate (seed 61843's w025: 2 of 16), which is the
	// slowdown's symptom, not a release's fault.
	{"retrieval_latency", 0.7, "a dependency call slowed before anything else left its baseline: the errors that follow are its timeouts",
		func(o Observations) bool {
			return o.feat(FeatSlowFirst) && !o.feat(FeatException) && !o.has(SigCrash) && !(o.Deploy && o.feat(FeatOwnLoad))
		},
		nil, true, []Feature{FeatSlowFirst, FeatSlowLead}},
	// bad_release reads FeatException (exception.* / error.type on most
	// failing spans), the crash signal, an error rate of at least
	// ReleaseErrorRate, or one repeated fault in its own code (FeatOneError
	// with FeatOwnCode) above LowErrorRate, after a deployment. It cites FeatOwnCode (failures
	// begin in the service's own spans) and FeatNewVersion (errors only on
	// the new service.version) but never decides on them alone: a trickle of
	// generic 5xx after a deploy that merely coincides shows both.
	{"bad_release", 0.7, "a deployment of this service precedes the onset and errors rose after it",
		func(o Observations) bool {
			r, ok := o.rate()
			return o.Deploy && (o.has(SigCrash) || o.feat(FeatException) || ok && r >= ReleaseErrorRate ||
				o.feat(FeatOneError) && o.feat(FeatOwnCode) && r >= LowErrorRate)
		}, []Signal{SigCrash}, true, []Feature{FeatServer5xx, FeatOwnCode, FeatOneError, FeatException, FeatNewVersion, FeatOwnLoad, FeatVersionOnly}},
	// retrieval_latency reads FeatChildSlow (one dependency span, not a
	// model call, dominates the latency growth) or FeatSlowDependency (the
	// sandbox's slow dependency at its usual call rate). Not FeatChildSlow
	// when the retries per inbound request rose (FeatRetryRise): a span
	// that retries inside itself grows by its attempts, each as fast as
	// before (s263119-w012, an HTTP client's 4–8 attempts inside one
	// internal span, read retrieval_latency). Not FeatSlowDependency when
	// the model call slowed and its answers shifted (FeatModelSlow with
	// FeatAnswerShift), nor the retrieval signal's words then: the provider
	// that slowed is the model writing longer answers to what it was asked
	// (fb9-prompt-v19-tone-agent-desk, output tokens 197 -> 582 a reply,
	// its knowledge-base "search" in the rows, read retrieval_latency).
	{"retrieval_latency", 0.7, "one dependency span slowed and dominates the service's latency growth",
		func(o Observations) bool {
			return o.feat(FeatChildSlow) && !o.feat(FeatRetryRise) ||
				!o.answersSlowed() && (o.feat(FeatSlowDependency) || !o.Deploy && o.HaveP95 && o.P95Ms >= HighP95Ms && o.has(SigRetrieval))
		},
		[]Signal{SigRetrieval}, true, []Feature{FeatChildSlow, FeatSlowDependency}},
	{"retry_storm", 0.45, "traces or logs show retries multiplying, but no deployment precedes the onset",
		func(o Observations) bool { return !o.Deploy && (o.has(SigRetry) || o.feat(FeatResend)) }, []Signal{SigRetry}, true, []Feature{FeatResend}},
	// bad_release also without a deployment in the window, near last:
	// FeatLatentRelease, the version serving since the onset replaced
	// another one during the recording, and most of its errors since the
	// onset carry a status the service's history never showed and the
	// other versions do not share (facts.release). Its marker is older
	// than MarkerWindow, or outside the query: a fault the release carried
	// until traffic reached it. The gate denies it for want of a marker.
	{"bad_release", 0.6, "no deployment precedes the onset within the window, but the version released earlier fails since the onset with an error the history never showed",
		func(o Observations) bool { return !o.Deploy && o.feat(FeatLatentRelease) }, nil, true, []Feature{FeatLatentRelease, FeatVersionOnly}},
	// prompt_regression also without a deployment in the window, last:
	// the model's answers shifted (FeatAnswerShift) with few errors, the
	// version serving since the onset replaced another during the
	// recording (facts.release), and nothing else explains the incident. A
	// prompt that no marker within MarkerWindow shows (one released long
	// before its traffic reached it) is still a prompt regression; the
	// gate denies it for want of a marker. Answers that shift with no
	// release in the recording at all are the traffic's (a new kind of
	// question: incidents-signals' sig-answers-shift-no-deploy-quiz-bot).
	{"prompt_regression", 0.6, "no deployment precedes the onset within the window, but the model's answers changed since a version released during the recording: a prompt or model change",
		func(o Observations) bool {
			r, _ := o.rate()
			return !o.Deploy && o.feat(FeatAnswerShift) && r < HighErrorRate && o.release != nil && o.release.HistoryMinutes > 0
		}, nil, true, []Feature{FeatAnswerShift}},
}

// MaxClaims caps the claims one diagnosis carries.
const MaxClaims = 3

// Observe derives Observations from evidence of service.
func Observe(service string, evidence []loop.Evidence) Observations {
	o := Observations{Signals: map[Signal][]string{}}
	var onset *time.Time
	var markers []contracts.DeploymentMarker
	var envs []string
	for _, e := range evidence {
		f := e.Facts
		switch e.Tool {
		case contracts.ToolServiceOverview:
			if e.Service != "" && e.Service != service {
				continue // the origin's own overview (origin.go)
			}
			if f.Onset != nil {
				onset = f.Onset
			}
			o.observeOverview(e)
		case contracts.ToolDeploymentMarkers:
			if e.Service != "" && e.Service != service {
				continue // the origin's own markers (origin.go)
			}
			if f.MarkerQuery {
				o.MarkerQueried = true
				o.MarkerIDs = append(o.MarkerIDs, e.ID)
			}
			markers = append(markers, f.DeploymentMarkers...)
			envs = append(envs, f.ServiceEnvironments...)
		default:
			o.observeSignals(service, e)
		}
	}
	newVersion := ""
	markers = slices.DeleteFunc(markers, func(m contracts.DeploymentMarker) bool { return otherEnvironment(m, envs) })
	latest := o.latestDeploy(service, onset, markers)
	if latest != nil {
		newVersion = latest.Version
	}
	f := readFailures(service, evidence)
	o.origin = f.majority()
	sh := readShape(evidence)
	o.OrdinaryRatio, o.HaveOrdinary = sh.ordinaryRatio()
	o.Features = features(f, newVersion, onset, sh)
	first, lead := slowFirst(service, evidence, sh.Model)
	setIDs(o.Features, FeatSlowFirst, first)
	setIDs(o.Features, FeatSlowLead, lead)
	setIDs(o.Features, FeatLatentRelease, latentRelease(service, evidence))
	setIDs(o.Features, FeatUsualRateDependency, usualRateDependency(service, evidence, f.hosts))
	setIDs(o.Features, FeatRetryLoad, retryLoad(service, evidence, f.hosts))
	setIDs(o.Features, FeatRuntimeRise, runtimeRise(evidence))
	ownLoad, retried := retriedFaults(service, evidence)
	setIDs(o.Features, FeatOwnLoad, ownLoad)
	setIDs(o.Features, FeatRetriedFault, retried)
	setIDs(o.Features, FeatVersionOnly, versionOnly(service, evidence))
	setIDs(o.Features, FeatConfigSignature, configSignature(service, evidence))
	setIDs(o.Features, FeatOtherVersionsFail, otherVersionsFail(service, evidence))
	shiftFeatures(o.Features, evidence)
	setIDs(o.Features, FeatFlagFlip, flagFlip(service, onset, evidence))
	setIDs(o.Features, FeatConfigLogged, configLogged(service, onset, latest, evidence))
	setIDs(o.Features, FeatNewHost, newPeer(service, evidence, f.hosts))
	setIDs(o.Features, FeatBuildOnly, o.buildOnlyRelease(latest))
	setIDs(o.Features, FeatPoolDry, poolDry(service, evidence))
	setIDs(o.Features, FeatRegionShift, regionShift(service, evidence))
	setIDs(o.Features, FeatNodeConfined, nodeConfined(service, evidence))
	setIDs(o.Features, FeatPeerFault, peerFaults(service, evidence))
	setIDs(o.Features, FeatPeerAnswered, peerAnswered(service, evidence))
	setIDs(o.Features, FeatAttributeOnset, attributeOnset(service, evidence))
	if onset == nil {
		setIDs(o.Features, FeatReleasedAnswers, o.answersAfterRelease(service, markers, evidence))
	}
	lagArrivals, lagProcessing := consumerLag(service, evidence)
	setIDs(o.Features, FeatLagArrivals, lagArrivals)
	setIDs(o.Features, FeatLagProcessing, lagProcessing)
	if len(o.slowDeps) > 0 {
		o.Features[FeatSlowDependency] = o.slowDeps
	}
	return o
}

// setIDs adds ids to feature ft, when there are any.
func setIDs(feats map[Feature][]string, ft Feature, ids []string) {
	for _, id := range ids {
		feats[ft] = appendOnce(feats[ft], id)
	}
}

// observeOverview records the rates, latency and traffic of one overview of
// the service.
func (o *Observations) observeOverview(e loop.Evidence) {
	f := e.Facts
	o.OverviewIDs = append(o.OverviewIDs, e.ID)
	if f.ErrorRate != nil {
		o.ErrorRate, o.HaveRate = *f.ErrorRate, true
	}
	if f.P95Ms != nil {
		o.P95Ms, o.HaveP95 = *f.P95Ms, true
	}
	if f.Onset != nil {
		o.SinceOnsetRate, o.HaveSinceOnsetRate = sinceOnsetRate(e.Compact, *f.Onset)
	}
	if f.TrafficRatio != nil {
		o.TrafficRatio, o.HaveTraffic = *f.TrafficRatio, true
	}
	if f.Release != nil {
		o.release = f.Release
	}
	if len(f.SlowDependencies) > 0 {
		o.slowDeps = appendOnce(o.slowDeps, e.ID)
	}
}

// observeSignals records which signals' patterns one piece of evidence's
// text contains. The service's own name, in every evidence's header and
// rows, is no signal: ho2-celery-receipts-lag-promo-mailroom read
// resource_saturation from the "oom" of "mailroom" in each of its evidence.
func (o *Observations) observeSignals(service string, e loop.Evidence) {
	// In the one-object-per-line form, as the patterns were chosen on.
	text := strings.ToLower(table.Legacy(e.Compact))
	if service != "" {
		text = strings.ReplaceAll(text, strings.ToLower(service), " ")
	}
	for sig, pats := range Patterns {
		if slices.ContainsFunc(pats, func(p string) bool { return strings.Contains(text, p) }) {
			o.Signals[sig] = append(o.Signals[sig], e.ID)
		}
	}
}

// latestDeploy sets Deploy when a marker shows a deployment of service
// within MarkerWindow before onset that the service's own versions do not
// contradict (contradicted), and returns the latest such marker (nil
// if none, or if onset is nil).
func (o *Observations) latestDeploy(service string, onset *time.Time, markers []contracts.DeploymentMarker) *contracts.DeploymentMarker {
	if onset == nil {
		return nil
	}
	var latest *contracts.DeploymentMarker
	for i, m := range markers {
		if m.Service == service && m.At.Before(onset.Add(OnsetBucket)) && onset.Sub(m.At) <= MarkerWindow && !contradicted(m, o.release) {
			o.Deploy = true
			if latest == nil || m.At.After(latest.At) {
				latest = &markers[i]
			}
		}
	}
	return latest
}

// answersAfterRelease returns the ids of the service's overviews whose
// earliest shift of the model's answers (an answer attribute among
// facts.quality_shifts) lies within MarkerWindow after a deployment marker
// of the service that its versions do not contradict, with the marker
// evidence (FeatReleasedAnswers). Observe asks it only when no onset was
// found.
func (o *Observations) answersAfterRelease(service string, markers []contracts.DeploymentMarker, evidence []loop.Evidence) []string {
	var ids []string
	for _, e := range evidence {
		if e.Tool != contracts.ToolServiceOverview || e.Service != "" && e.Service != service {
			continue
		}
		var first *time.Time
		for _, q := range e.Facts.QualityShifts {
			if answerAttr.MatchString(q.Attribute) && (first == nil || q.At.Before(*first)) {
				first = &q.At
			}
		}
		if first == nil {
			continue
		}
		if slices.ContainsFunc(markers, func(m contracts.DeploymentMarker) bool {
			return m.Service == service && m.At.Before(first.Add(OnsetBucket)) && first.Sub(m.At) <= MarkerWindow && !contradicted(m, o.release)
		}) {
			ids = appendOnce(ids, e.ID)
		}
	}
	if len(ids) > 0 {
		ids = append(ids, o.MarkerIDs...)
	}
	return ids
}

// RetryRise is the rise of retries per inbound request (facts.retries) at
// or above which FeatRetryRise holds: the gate's retry-storm threshold.
const RetryRise = 2.0

// answerAttr and settingAttr name the attributes of a model's answers and
// of a setting, flag or variant.
var (
	answerAttr  = regexp.MustCompile(`(?i)(gen_ai|llm|prompt|token|completion|finish|model|answer|response)`)
	settingAttr = regexp.MustCompile(`(?i)(config|setting|flag|feature|variant|experiment|option|mode)`)
)

// shiftFeatures sets FeatRetryRise, FeatAnswerShift and FeatSettingShift
// from the overviews' retry and quality facts.
func shiftFeatures(feats map[Feature][]string, evidence []loop.Evidence) {
	for _, e := range evidence {
		if e.Tool != contracts.ToolServiceOverview {
			continue
		}
		if r := e.Facts.Retries; r != nil && r.Ratio >= RetryRise {
			feats[FeatRetryRise] = append(feats[FeatRetryRise], e.ID)
		}
		for _, q := range e.Facts.QualityShifts {
			switch {
			case answerAttr.MatchString(q.Attribute):
				feats[FeatAnswerShift] = appendOnce(feats[FeatAnswerShift], e.ID)
			case settingAttr.MatchString(q.Attribute):
				feats[FeatSettingShift] = appendOnce(feats[FeatSettingShift], e.ID)
			}
		}
	}
}

func appendOnce(ids []string, id string) []string {
	if slices.Contains(ids, id) {
		return ids
	}
	return append(ids, id)
}

// runtimeRise returns the ids of the overviews whose runtime_saturation
// fact rose RuntimeRise times or more since the onset (FeatRuntimeRise).
func runtimeRise(evidence []loop.Evidence) []string {
	var ids []string
	for _, e := range evidence {
		if l := e.Facts.RuntimeSaturation; e.Tool == contracts.ToolServiceOverview && l != nil && l.Since > 0 && l.Rise() >= RuntimeRise {
			ids = append(ids, e.ID)
		}
	}
	return ids
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
// plan it asks three turns of aggregates (followUps): span latency by name
// and kind before and after the onset, the model-call spans, the failing
// spans by name and kind, the dependency hosts each version calls, the
// markers' change types and the ordinary entry spans before and after the
// onset (ordinary.go). Then it diagnoses.
type Investigator struct{}

// Next implements loop.Model. It never spends tokens.
func (Investigator) Next(_ context.Context, s loop.State) (loop.Answer, error) {
	if n := len(s.Turns); n < 3 && !s.Final {
		calls, err := followUps(s, n)
		if err != nil {
			return loop.Answer{}, err
		}
		if len(calls) > 0 {
			return loop.Answer{Calls: calls, Model: Name}, nil
		}
	}
	return loop.Answer{Claims: WithOrigin(s.Alert.Service, s.Evidence, Diagnose(Observe(s.Alert.Service, s.Evidence))), Model: Name}, nil
}
