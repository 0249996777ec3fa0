package contracts

import (
	"encoding/json"
	"math"
	"time"

	"agentk/contracts/envelope"
)

// EvidenceV1 is one tool result as the sandbox recorded it. Only the sandbox
// produces it; the reviewer and the gate trust its Facts because the model
// never wrote them.
type EvidenceV1 struct {
	ID              string          `json:"id"`
	InvestigationID string          `json:"investigation_id"`
	IncidentID      string          `json:"incident_id"`
	Service         string          `json:"service"`
	Tool            string          `json:"tool"`
	Arguments       json.RawMessage `json:"arguments"`
	From            time.Time       `json:"from"`
	To              time.Time       `json:"to"`
	// RawSHA256 is the hex sha256 of the raw SigNoz response body.
	RawSHA256 string `json:"raw_sha256"`
	// Compact is what the model sees: nulls and engine statistics removed,
	// rows and characters capped, untrusted text quoted as data.
	Compact string `json:"compact"`
	// Link is a SigNoz deep link under the configured base URL.
	Link       string    `json:"link"`
	Facts      Facts     `json:"facts"`
	RecordedAt time.Time `json:"recorded_at"`
	// SourceNotes are what the route to SigNoz said about the answers this
	// evidence was built from, beyond their data: an MCP server's notes
	// (the official server's text blocks after the payload: decisions it
	// applied to a query, rows it cut, SigNoz's non-fatal warnings, input
	// notices) and rows SigNoz itself cut (a raw result that holds a next
	// page). Empty when the answers were complete and nothing was changed.
	SourceNotes []SourceNote `json:"source_notes,omitempty"`
}

// Kinds of SourceNote.
const (
	// NoteDecisionsApplied: the server filled in what a query left out
	// (a limit, an order) before SigNoz ran it.
	NoteDecisionsApplied = "decisions_applied"
	// NoteRowsCut: the answer holds fewer rows than match; more exist.
	NoteRowsCut = "rows_cut"
	// NoteAllRows: the server says every matching row was returned.
	NoteAllRows = "all_rows"
	// NoteBackendWarnings: SigNoz answered with non-fatal warnings.
	NoteBackendWarnings = "backend_warnings"
	// NoteInputNotice: an argument broke the tool's input schema and was
	// ignored; the call ran without it.
	NoteInputNotice = "input_notice"
	// NoteOther: a note of a shape not known when this was written, kept
	// as it was said.
	NoteOther = "other"
)

// SourceNote is one note about one query's answer.
type SourceNote struct {
	// Kind is one of the Note* constants.
	Kind string `json:"kind"`
	// Query names the query of the tool's plan the note is about.
	Query string `json:"query,omitempty"`
	// Text is the note as said (an MCP server's block, capped), or, for rows
	// SigNoz cut, the sandbox's own words.
	Text string `json:"text"`
}

// Facts are the values the gate may use without reading text. Pointers are nil
// when the tool did not measure them.
type Facts struct {
	// MarkerQuery is true when this evidence is the result of a deployment-marker
	// query (even one that found none).
	MarkerQuery bool `json:"marker_query,omitempty"`
	// DeploymentMarkers come only from spans named deployment.marker.
	DeploymentMarkers []DeploymentMarker `json:"deployment_markers,omitempty"`
	RequestCount      *int64             `json:"request_count,omitempty"`
	ErrorCount        *int64             `json:"error_count,omitempty"`
	ErrorRate         *float64           `json:"error_rate,omitempty"`
	P95Ms             *float64           `json:"p95_ms,omitempty"`

	// ServiceEnvironments are the deployment environments
	// (deployment.environment.name, or the older deployment.environment)
	// that the service's latest spans other than markers name, in the window
	// of a deployment-marker query; set only by one, sorted, empty when no
	// span names one or SigNoz knows neither key. A marker from an
	// environment the service's spans do not run in is not this service's
	// deployment (the gate's deployment_related check).
	ServiceEnvironments []string `json:"service_environments,omitempty"`

	// Onset is the first minute the service's error rate or p95 left its baseline.
	Onset *time.Time `json:"onset,omitempty"`
	// OnsetUnknown says in plain words why a service overview placed no onset
	// ("baseline 6 min (40 sampled requests) before the alert, need 10 min and
	// 30 sampled requests"); empty when an onset was found or not measured.
	OnsetUnknown string `json:"onset_unknown,omitempty"`
	// Numbers are every number in Compact, so the reviewer can check a claim's figures.
	Numbers []float64 `json:"numbers,omitempty"`
	// TrafficRatio is the service's inbound request rate (root spans per
	// minute) from the onset on, over its baseline rate; nil when unknown. A
	// surge of traffic, not a release, explains a regression that comes with it.
	TrafficRatio *float64 `json:"traffic_ratio,omitempty"`
	// CoRegressed lists other services (never the pipeline's own) whose errors
	// or latency left their baseline within minutes of this service's onset: a
	// shared cause that rolling back this one service would not fix.
	CoRegressed []string `json:"co_regressed,omitempty"`
	// Propagated lists other services that regressed with this one only
	// through their calls into it: their failing traces hold this service's
	// failing spans beneath their own. They are no shared cause.
	Propagated []string `json:"propagated,omitempty"`
	// Release compares the service's failing entry spans (server and
	// consumer) by service.version: those of the version serving most
	// requests since the onset against every error of the service before
	// that version first served. Nil when it was not measured.
	Release *ReleaseErrors `json:"release,omitempty"`
	// FailingDependencies lists the peers (server.address, net.peer.name or
	// peer.service of the service's outbound spans: client spans, and producer
	// spans that name the broker they send to) that the service already
	// called before the onset, that it calls since at its usual rate (at most
	// DependencyCallRatio of its baseline) and whose outbound spans' errors left
	// their baseline at the onset: a dependency that failed under the
	// service's ordinary use of it, which a rollback does not fix.
	FailingDependencies []string `json:"failing_dependencies,omitempty"`
	// DependencyFaults lists the FailingDependencies whose failed calls
	// since the onset (the service's failed client and producer spans that
	// name the peer) mostly carry a status by which the peer said it failed:
	// HTTP 5xx or 429 (http.response.status_code, http.status_code), gRPC
	// UNAVAILABLE, RESOURCE_EXHAUSTED, INTERNAL or DATA_LOSS
	// (rpc.grpc.status_code); or, on a call with neither status (a publish
	// to a broker, a Redis command), an error.type or status message by
	// which the peer closed, reset or refused the connection, was
	// unavailable, out of resources or throttling, never a timeout the
	// caller wrote itself. A configuration release that breaks the calls
	// (refused credentials, a wrong host) fails them with the caller's own
	// errors, not the peer's.
	DependencyFaults []string `json:"dependency_faults,omitempty"`
	// TimedOutDependencies lists the FailingDependencies whose failed calls
	// since the onset (as DependencyFaults counts them) mostly say the
	// caller gave up waiting: an error.type or status message that names a
	// timeout or a deadline. The service's own failures over such calls are
	// what a dependency that stopped answering in time makes any version
	// write, whatever text the service wraps them in.
	TimedOutDependencies []string `json:"timed_out_dependencies,omitempty"`
	// SilentDependencies lists the FailingDependencies whose failed calls
	// since the onset (as DependencyFaults counts them) mostly carry no
	// HTTP or gRPC status and no text (no status message, no error.type:
	// an SDK that records the error only as a span event). Nothing in them says whether the caller's configuration or
	// the peer failed them.
	SilentDependencies []string `json:"silent_dependencies,omitempty"`
	// RetriedFaults are the peers that fail like FailingDependencies (called
	// before the onset, their client spans' errors leaving their baseline at
	// the onset, their failed calls mostly carrying the peer's own failure
	// status as DependencyFaults) but whose calls rose above
	// DependencyCallRatio: a peer that failed by itself and whose calls the
	// service's unchanged retries multiplied (each failed attempt retried),
	// or a release's retries that overloaded it. The gate tells them apart
	// by how far the calls rose against the peer's failure rate.
	RetriedFaults []RetriedFault `json:"retried_faults,omitempty"`
	// AuthRefusedDependencies lists the FailingDependencies whose failed
	// calls since the onset mostly refuse the service's credential (HTTP
	// 401, 403, 407; gRPC UNAUTHENTICATED, PERMISSION_DENIED), and
	// CallsSinceRelease the service's calls to each of them between the
	// running version's first served minute and the refusals (see
	// CallsSinceRelease).
	AuthRefusedDependencies []string            `json:"auth_refused_dependencies,omitempty"`
	CallsSinceRelease       []CallsSinceRelease `json:"calls_since_release,omitempty"`
	// SlowDependencies lists the peers of the service's outbound spans that
	// the service already called before the onset, that it calls since at its
	// usual rate (at most DependencyCallRatio of its baseline) and whose
	// client spans' p95 left its baseline at the onset by enough to explain
	// most of the entry spans' added p95: a dependency that slowed under the
	// service's ordinary use of it, which a rollback does not fix. The
	// evidence text gives each one's p95 before and since the onset.
	SlowDependencies []string `json:"slow_dependencies,omitempty"`
	// CallsBeforeSlowing are the service's calls to each of its
	// SlowDependencies from the running version's first served minute up to
	// the onset, where the peer slowed (FailureStart is the onset): the
	// minutes in which the peer answered what the running version asks at
	// its baseline latency. Same shape and reading as CallsSinceRelease.
	CallsBeforeSlowing []CallsSinceRelease `json:"calls_before_slowing,omitempty"`
	// SentChanges are the sizes the running version asks of each of its
	// SlowDependencies (input tokens, the tokens it allows, the request
	// body) that are larger than the earlier versions' asks from the
	// running version's first calls to the peer up to the onset, beyond
	// chance: what a prompt or configuration release changes from its
	// first request and a dependency slowing by itself does not.
	SentChanges []SentChange `json:"sent_changes,omitempty"`
	// PeakCallRatio is the highest call rate of the service to one peer of its
	// client spans (server.address or net.peer.name) since the onset, over
	// that peer's rate in the onset's baseline, and PeakCallPeer that peer,
	// among the peers whose calls per inbound request did not rise or rose
	// significantly (exact test, 0.01 over the peers); nil when no peer was
	// called in the baseline or none of them qualifies. A retry storm
	// multiplies the calls; a failure that is not one leaves them near 1x.
	PeakCallRatio *float64 `json:"peak_call_ratio,omitempty"`
	PeakCallPeer  string   `json:"peak_call_peer,omitempty"`
	// ConnectionPool is what the service's own connection-pool spans showed
	// before and since the onset; nil when it was not measured or the service
	// records none. A request that fails or waits for a database connection
	// fails beneath its entry span whatever version serves it.
	ConnectionPool *PoolWaits `json:"connection_pool,omitempty"`
	// Restarts lists the processes of the running service.version that were
	// replaced by another process of the same version from the onset on (the
	// process.pid resource attribute changed while service.version did not):
	// a process that ran out of memory, crashed or was killed by its health
	// check. A deploy replaces processes too, but with another version.
	Restarts []ProcessRestart `json:"restarts,omitempty"`
	// ResourcePressure counts the service's own log records at WARN or above
	// that name a resource under pressure (memory, heap, garbage collection,
	// CPU throttling, out of memory) before and since the onset; nil when it
	// was not measured.
	ResourcePressure *ResourcePressure `json:"resource_pressure,omitempty"`
	// RuntimeSaturation is the runtime attribute on the service's spans
	// (OpenTelemetry's runtime and process semantic conventions:
	// process.cpu.utilization, jvm.memory.used, go.memory.used,
	// container.cpu.usage, process.runtime.* and others) whose level rose
	// most since the onset over its baseline; nil when no such attribute was
	// measured on both sides.
	RuntimeSaturation *RuntimeLevel `json:"runtime_saturation,omitempty"`
	// ConfigChanges are the minutes in which the service's own logs (any
	// severity) said its configuration changed at runtime (a feature flag
	// changed, a configuration refreshed: facts.ConfigChangeVocabulary),
	// from 10 minutes before the onset to 5 after it, in time order; nil
	// when there were none. Log text is the service's claim: the gate reads
	// it only to deny (policy.runtimeChangeReasons).
	ConfigChanges []LogMinute `json:"config_changes,omitempty"`
	// RegionTraffic is the service's entry spans per region (the resource
	// attribute cloud.region), since the onset over the onset's baseline,
	// when two regions or more served in the baseline; nil otherwise. A
	// region that lost its traffic while another took it over (a failover)
	// is load moved, not a release (policy.regionShiftReasons).
	RegionTraffic []RegionTraffic `json:"region_traffic,omitempty"`
	// NodeTraffic is the service's entry spans and their errors since the
	// onset per Kubernetes node (the resource attribute k8s.node.name) and
	// service.version, when two nodes or more served since the onset; nil
	// otherwise. Errors confined to the pods of one node while the same
	// version serves cleanly on the others are the node's, not the
	// release's (policy.nodeConfinedReasons).
	NodeTraffic []NodeTraffic `json:"node_traffic,omitempty"`
	// ConsumerLag is what the service's lag as a queue consumer did (the
	// start of its consumer spans less the start of their parent producer
	// spans, OpenTelemetry's messaging conventions) and what moved it: the
	// messages arriving or the time it takes a message. Nil when the service
	// consumes no message whose producer span was read. It is measured on
	// its own: it never places Onset, and the gate does not read it.
	ConsumerLag *ConsumerLag `json:"consumer_lag,omitempty"`
	// PublishedArrivals is a queue consumer's inbound traffic ratio read
	// from what its producers published to its destinations, not from its
	// deliveries (which redeliveries and a tail sampler keeping every failed
	// delivery multiply); nil unless the service consumes messages whose
	// producers' spans were read and its deliveries in the baseline were
	// within 2x of the publishes either way.
	PublishedArrivals *PublishedArrivals `json:"published_arrivals,omitempty"`
	// LoggedArrivals is the service's inbound traffic ratio read from its
	// own log records that carry a trace id (distinct trace ids a minute),
	// not from its kept entry spans, which a tail sampler keeping every
	// failing trace multiplies as a surge would. Nil unless the logs were
	// shown complete against the traces: nearly every sampled kept entry
	// trace, in the baseline and since the onset, has a log record, and
	// the baseline's logs hold clearly more trace ids than its kept entry
	// spans (the spans are sampled, the logs are not).
	LoggedArrivals *LoggedArrivals `json:"logged_arrivals,omitempty"`
	// ConsistentArrivals is the service's inbound traffic ratio read from
	// the kept entry traces whose trace id a consistent sampler's reading
	// puts under its ratio (kept whatever their outcome: a uniform share
	// of the arrivals), not from all its kept entry spans. Nil unless the
	// reading was shown against the traces: the fastest half of the
	// baseline's kept clean traces all sit low under it, which a sampler
	// keeping at random (or by an unknown salt) would not show.
	ConsistentArrivals *ConsistentArrivals `json:"consistent_arrivals,omitempty"`
	// OnsetOperation names the operation ("name KIND", "route <r>", "rpc
	// <m>") whose own departure placed Onset, when it is earlier than the
	// service aggregate's (or that found none); empty otherwise.
	OnsetOperation string `json:"onset_operation,omitempty"`
	// OnsetStatus names the gRPC codes ("gRPC FAILED_PRECONDITION") when
	// OnsetOperation's departure holds only with its server spans'
	// rejections counted: codes the conventions leave unset on a server
	// span (the request was refused, not failed). Only a release that
	// changed what the service accepts (bad_release, config_regression)
	// may lean on such an onset.
	OnsetStatus string `json:"onset_status,omitempty"`
	// Departures are the operations whose error rate or p95 left their own
	// baseline, significant after correcting for the number of operations
	// looked at, earliest first (at most five).
	Departures []OperationDeparture `json:"departures,omitempty"`
	// Retries is the retry source whose retries per inbound request rose
	// most from the onset's baseline to the onset on: a span attribute that
	// counts retries or attempts (http.request.resend_count, retry_count,
	// …) or the retry log lines of common clients. The client spans per
	// peer are PeakCallRatio. Nil when no source held the minimums.
	Retries *RetryRise `json:"retries,omitempty"`
	// QualityShifts are attributes of the service's own spans whose
	// distribution shifted, significant over every series looked at and
	// still under way at the alert (a numeric attribute's mean, or the share
	// of one value of an enumerated one), earliest first, at most five.
	QualityShifts []QualityShift `json:"quality_shifts,omitempty"`
	// OnsetAttribute names the attribute whose shift placed Onset, when it
	// is earlier than every error or latency departure (or none was
	// found): such an onset may support only a prompt or configuration
	// regression (see the gate).
	OnsetAttribute string `json:"onset_attribute,omitempty"`
	// OnsetRule says, when the alert's own rule placed Onset (its series
	// left its baseline earlier than every other signal), which rule and
	// what it measures: "rule <name>: <query> = <expression> …"; empty
	// otherwise.
	OnsetRule string `json:"onset_rule,omitempty"`
	// AlertRule is what the alert's own rule (its ruleId label, read from
	// SigNoz's GET /api/v2/rules/{id}) showed when run over the onset's
	// history; nil when no reading was attempted.
	AlertRule *AlertRuleSignal `json:"alert_rule,omitempty"`
	// Origin names the service where the alerted service's new failures (or new
	// latency) begin, when it is another service (a callee, one or more hops
	// down); nil when they begin in the alerted service itself or were not measured.
	Origin *FailureOrigin `json:"origin,omitempty"`
	// Downstream lists callees of this service that regressed since its onset
	// only as an effect of it: the service calls them differently since then
	// (fewer calls, aborted calls, calls from its own failing spans). The
	// mirror of Propagated; they are no shared cause and are not in CoRegressed.
	Downstream []string `json:"downstream,omitempty"`
}

// AlertRuleSignal is the alert rule's own series: where it left its
// baseline, or why it was not used (Unread, plain words: the alert names no
// rule, SigNoz has none by that id, or its query is not one the sandbox
// measures). Its onset may move the service's onset earlier, never later.
type AlertRuleSignal struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
	// Signal is "rule <name>: <what it measures>".
	Signal string `json:"signal,omitempty"`
	// Onset is where the rule's series left its baseline (FindOnset), nil
	// when it did not or was not measured.
	Onset *time.Time `json:"onset,omitempty"`
	// PlacedOnset is set when Onset is the service's onset.
	PlacedOnset bool   `json:"placed_onset,omitempty"`
	Unread      string `json:"unread,omitempty"`
}

// FailureOrigin is where the alerted service's new failures begin when that
// is a callee: in the alerted service's failing traces since its onset, the
// deepest failing span whose own children do not fail (or that has none),
// grouped by service and operation and counted against the baseline.
type FailureOrigin struct {
	Service   string     `json:"service"`             // the callee where the failing spans begin
	Operation string     `json:"operation,omitempty"` // its operation ("name KIND", "rpc <m>", "route <r>")
	Signal    string     `json:"signal"`              // "errors" or "latency"
	Share     float64    `json:"share"`               // 0..1: of the alerted service's new failures since its onset, the share that begins there
	Failures  int64      `json:"failures"`            // alerted failing traces since the onset that begin there
	Total     int64      `json:"total"`               // alerted failing traces since the onset
	Baseline  int64      `json:"baseline"`            // such traces in the baseline (before the onset)
	Onset     *time.Time `json:"onset,omitempty"`     // the origin's own onset (its own first sustained departure)
	Path      []string   `json:"path,omitempty"`      // services from the alerted one down to the origin
}

// QualityShift is one attribute's shift: its mean (Value empty) or the
// share of spans carrying Value, before At and from At on, and the split's
// statistic (2·ΔlogL, or Welch's t² for a mean).
type QualityShift struct {
	Attribute string    `json:"attribute"`
	Value     string    `json:"value,omitempty"`
	At        time.Time `json:"at"`
	Before    float64   `json:"before"`
	Since     float64   `json:"since"`
	Statistic float64   `json:"statistic"`
}

// RetryRise is one retry source's retries per inbound request since the
// onset and in its baseline, their ratio, and the retries counted since the
// onset. Source is "attribute" (Key names it) or "logs".
type RetryRise struct {
	Source   string  `json:"source"`
	Key      string  `json:"key"`
	Since    float64 `json:"since"`
	Baseline float64 `json:"baseline"`
	Ratio    float64 `json:"ratio"`
	Events   int64   `json:"events"`
}

// OperationDeparture is one operation's departure from its baseline: the
// signal (error_rate or p95), where it began, the figure in the baseline and
// from then to the alert, and the binomial tail probability of that under
// the baseline (before the correction for the number of operations).
type OperationDeparture struct {
	Operation string    `json:"operation"`
	Signal    string    `json:"signal"`
	At        time.Time `json:"at"`
	Before    float64   `json:"before"`
	Since     float64   `json:"since"`
	P         float64   `json:"p"`
}

// RuntimeLevel is one runtime attribute's level: the median of its
// per-minute means since the onset (over Minutes minutes with a value) and
// in the onset's baseline (over BaselineMinutes). A process short of memory
// or CPU shows it in these before any log says so.
type RuntimeLevel struct {
	Attribute       string  `json:"attribute"`
	Since           float64 `json:"since"`
	Minutes         int     `json:"minutes"`
	Baseline        float64 `json:"baseline"`
	BaselineMinutes int     `json:"baseline_minutes"`
}

// Rise is Since over Baseline: +Inf when the baseline is 0 and the level
// since the onset is not, 0 when both are.
func (l RuntimeLevel) Rise() float64 {
	switch {
	case l.Baseline > 0:
		return l.Since / l.Baseline
	case l.Since > 0:
		return math.Inf(1)
	}
	return 0
}

// ConsumerLag is a queue consumer's lag: a message's wait between its
// producer span's start and the consumer span's start. Onset is where the
// per-minute p95 of the lag left its baseline (nil with OnsetUnknown saying
// why); BaselineMs and SinceMs are the median over minutes of that p95
// before the onset and from it on. ArrivalRatio is the producer spans a
// minute to the consumer's destinations from the onset to the alert over
// the baseline's, ProcessRatio the median duration of the consumer's spans
// the same way; each nil when a side has none. Lag that rose with the
// arrivals is load; with the time a message and no more arrivals, the
// consumer's own slowness.
type ConsumerLag struct {
	Destinations []string   `json:"destinations,omitempty"`
	Messages     int64      `json:"messages"`
	Onset        *time.Time `json:"onset,omitempty"`
	OnsetUnknown string     `json:"onset_unknown,omitempty"`
	BaselineMs   *float64   `json:"baseline_ms,omitempty"`
	SinceMs      *float64   `json:"since_ms,omitempty"`
	ArrivalRatio *float64   `json:"arrival_ratio,omitempty"`
	ProcessRatio *float64   `json:"process_ratio,omitempty"`
}

// PublishedArrivals is Facts.PublishedArrivals. Ratio is the inbound
// traffic ratio (Facts.TrafficRatio) had the consumer's deliveries since the
// onset followed the publishes to its Destinations at the baseline's
// deliveries per publish, its other inbound spans counted as they are;
// PublishRatio the publishes a minute since the onset over the baseline's.
// The counts are sampled spans: the baseline's publishes, deliveries and
// other inbound spans (BaselineOther), and the publishes and deliveries
// since the onset.
type PublishedArrivals struct {
	Destinations       []string `json:"destinations,omitempty"`
	Ratio              float64  `json:"ratio"`
	PublishRatio       float64  `json:"publish_ratio"`
	BaselinePublishes  int64    `json:"baseline_publishes"`
	BaselineDeliveries int64    `json:"baseline_deliveries"`
	BaselineOther      int64    `json:"baseline_other"`
	Publishes          int64    `json:"publishes"`
	Deliveries         int64    `json:"deliveries"`
}

// LoggedArrivals is Facts.LoggedArrivals. Ratio is the logged trace ids a
// minute since the onset over the baseline's; KeptRatio the kept entry
// spans' (Facts.TrafficRatio, from the same series). BaselineLogged and
// BaselineKept are the baseline's logged trace ids and kept entry spans
// (their quotient is about the sampler's 1 in N); Logged and Kept the same
// since the onset. BaselineCovered of BaselineSampled kept entry traces of
// the baseline's sample had a log record, Covered of Sampled since the
// onset.
type LoggedArrivals struct {
	Ratio           float64 `json:"ratio"`
	KeptRatio       float64 `json:"kept_ratio"`
	BaselineLogged  int64   `json:"baseline_logged"`
	BaselineKept    int64   `json:"baseline_kept"`
	Logged          int64   `json:"logged"`
	Kept            int64   `json:"kept"`
	BaselineSampled int64   `json:"baseline_sampled"`
	BaselineCovered int64   `json:"baseline_covered"`
	Sampled         int64   `json:"sampled"`
	Covered         int64   `json:"covered"`
}

// ConsistentArrivals is Facts.ConsistentArrivals. Reading names the
// function of the trace id (trace_id_low64, trace_id_high64,
// w3c_randomness, tail_default_salt) and Threshold the value under which a
// trace was counted: the median of the reading over FastClean fast clean
// kept traces of the baseline, whose chance of falling that low under a
// uniform reading (times the readings tried) is Chance. BaselineCounted of
// BaselineSampled kept entry spans over BaselineMinutes before the onset
// were under it, Counted of Sampled over Minutes since; Ratio is the
// second rate over the first and Upper its one-sided 99% upper bound.
type ConsistentArrivals struct {
	Reading         string  `json:"reading"`
	Threshold       float64 `json:"threshold"`
	Chance          float64 `json:"chance"`
	FastClean       int64   `json:"fast_clean"`
	BaselineCounted int64   `json:"baseline_counted"`
	BaselineSampled int64   `json:"baseline_sampled"`
	BaselineMinutes float64 `json:"baseline_minutes"`
	Counted         int64   `json:"counted"`
	Sampled         int64   `json:"sampled"`
	Minutes         float64 `json:"minutes"`
	Ratio           float64 `json:"ratio"`
	Upper           float64 `json:"upper"`
	// PeersRead says the service's calls out of the counted traces (both
	// samples' traces under Threshold) were read whole; Peers are those
	// calls by peer, the dependencies judged within the consistent share
	// (what a tail sampler neither inflates by keeping every failing trace
	// nor thins by dropping clean ones). A lift of the gate's kept-span
	// surge on Upper must wait for them (docs/eval/generalisation.md,
	// session 24).
	PeersRead bool             `json:"peers_read,omitempty"`
	Peers     []ConsistentPeer `json:"peers,omitempty"`
}

// ConsistentPeer is one peer's calls within the traces a consistent
// sampler kept by trace id alone (ConsistentArrivals): the calls and the
// failed ones in the counted baseline traces and in those since the onset,
// each side's p95 in milliseconds, CallRatio the calls a minute since the
// onset over the baseline's (the counted traces' own spans of time), and
// whether the peer was judged failing or slow at its usual call rate
// (CallRatio at most DependencyCallRatio) within that share.
type ConsistentPeer struct {
	Peer           string  `json:"peer"`
	BaselineCalls  int64   `json:"baseline_calls"`
	BaselineErrors int64   `json:"baseline_errors"`
	BaselineP95Ms  float64 `json:"baseline_p95_ms"`
	Calls          int64   `json:"calls"`
	Errors         int64   `json:"errors"`
	P95Ms          float64 `json:"p95_ms"`
	CallRatio      float64 `json:"call_ratio"`
	Failing        bool    `json:"failing,omitempty"`
	Slow           bool    `json:"slow,omitempty"`
}

// RegionTraffic is one region's entry spans a minute, in the onset's
// baseline (BaselinePerMin) and since the onset (PerMin), and Ratio the
// second over the first.
type RegionTraffic struct {
	Region         string  `json:"region"`
	BaselinePerMin float64 `json:"baseline_per_min"`
	PerMin         float64 `json:"per_min"`
	Ratio          float64 `json:"ratio"`
}

// NodeTraffic is the entry spans (Requests) and the failed ones (Errors)
// that the pods of one version on one node served since the onset. Version
// is "" when the spans carry no service.version.
type NodeTraffic struct {
	Node     string `json:"node"`
	Version  string `json:"version"`
	Requests int64  `json:"requests"`
	Errors   int64  `json:"errors"`
}

// LogMinute is one minute's count of matching log records: At the minute's
// start.
type LogMinute struct {
	At   time.Time `json:"at"`
	Logs int64     `json:"logs"`
}

// ResourcePressure is what the service's process said about its resources:
// WARN-or-above log records naming memory, heap, garbage collection, CPU
// throttling or an out-of-memory error, since the onset (over Minutes) and in
// the onset's baseline (over BaselineMinutes). A release's bug fails some
// requests; a process short of memory or CPU says so in its own logs.
type ResourcePressure struct {
	Logs            int64 `json:"logs"`
	Minutes         int   `json:"minutes"`
	BaselineLogs    int64 `json:"baseline_logs"`
	BaselineMinutes int   `json:"baseline_minutes"`
}

// ProcessRestart is one process of a version that stopped serving and the
// one of the same version that took over.
type ProcessRestart struct {
	Version string `json:"version"`
	// OldPID last served in the minute LastSeen; NewPID first served in the
	// minute At (at or after the onset).
	OldPID   string    `json:"old_pid"`
	NewPID   string    `json:"new_pid"`
	LastSeen time.Time `json:"last_seen"`
	At       time.Time `json:"at"`
	// GapMinutes counts the minutes between them in which no process of the
	// service served an entry span.
	GapMinutes int `json:"gap_minutes"`
}

// RetriedFault is one peer of Facts.RetriedFaults: how its calls rose and
// how often they failed.
type RetriedFault struct {
	Peer string `json:"peer"`
	// CallRatio is the service's calls to the peer per inbound request (root
	// spans) since the onset over the baseline's; per minute when the
	// inbound requests are not known on both sides.
	CallRatio float64 `json:"call_ratio"`
	// FailureRate and BaselineFailureRate are the shares of the attempts
	// on the peer that failed since the onset and in the baseline: every
	// attempt a client span, or a span's retry count its resends, each
	// after a failed attempt.
	FailureRate         float64 `json:"failure_rate"`
	BaselineFailureRate float64 `json:"baseline_failure_rate"`
	// PreviousAttempts is the most attempts the previous version made on
	// one request's call to the peer before it gave up (a chain of client
	// spans, or one span's resend count, whose every attempt failed with
	// the peer's own failure status and after which none followed): its
	// retry limit, seen. 0 when the previous version was never seen giving
	// up; a chain that ended in a success shows only a lower bound and does
	// not count. Not measured by the sandbox yet (always 0): the gate then
	// fails closed.
	PreviousAttempts int `json:"previous_attempts,omitempty"`
}

// DependencyCallRatio is the highest call rate to a peer, since the onset
// over its baseline, at which a failing peer still counts as a failing
// dependency: above it the service itself sends the load (a retry storm).
const DependencyCallRatio = 1.5

// ReleaseErrors is what errors a release brought, measured on entry spans
// (OpenTelemetry span kinds server and consumer) grouped by the
// service.version resource attribute and by the span status message (digits
// and hex runs folded, so ids do not split one failure into many). A
// signature is "new" when no error span of the service carried it before
// Version first served.
type ReleaseErrors struct {
	// Version is the service.version that served most entry spans since the
	// onset; FirstSeen the first minute it served one.
	Version   string    `json:"version"`
	FirstSeen time.Time `json:"first_seen"`
	// VersionKey is the resource attribute the versions were read from
	// where it is not service.version: one of FallbackVersionKeys
	// (faas.version, container.image.tag), the first that names a value,
	// on a service whose entry spans name no service.version. The gate
	// trusts such a comparison only where the release ledger's running
	// release is that version (its version, or the last ':' part of its
	// image: a tag, a Lambda version's ARN).
	VersionKey string `json:"version_key,omitempty"`
	// HistoryMinutes counts minutes with entry spans before FirstSeen: with
	// none, the recording holds no release and nothing to compare with.
	HistoryMinutes int `json:"history_minutes"`
	// HistoryErrors counts error spans before FirstSeen (every version).
	HistoryErrors int64 `json:"history_errors"`
	// Requests and Errors are Version's entry spans and error spans since the onset.
	Requests int64 `json:"requests"`
	Errors   int64 `json:"errors"`
	// NewSignature is the most frequent new signature of Version's errors
	// since the onset and NewErrors how many carried it.
	NewSignature string `json:"new_signature,omitempty"`
	NewErrors    int64  `json:"new_errors"`
	// OtherRequests are the other versions' entry spans since the onset, and
	// OtherNewErrors their errors with NewSignature: a failure the old
	// version shares is not the release's.
	OtherRequests  int64 `json:"other_requests"`
	OtherNewErrors int64 `json:"other_new_errors"`
	// OtherVersions compares the other versions' failures since the onset
	// with the history's, whatever their status: a failure the version a
	// rollback returns to shows as much is not the release's. Nil when it
	// was not measured.
	OtherVersions *OtherVersionErrors `json:"other_versions,omitempty"`
	// Redelivered counts the entry spans since the onset, of every version,
	// that were a message delivered again (messaging.rabbitmq.message.redelivered):
	// they are left out of every count since the onset above, a message
	// failed by one version being no request of the version it comes back to.
	Redelivered int64 `json:"redelivered,omitempty"`
}

// OtherVersionErrors is ReleaseErrors.OtherVersions: entry spans and error
// spans of the versions other than the running one, counted only where a
// span names its version (a sidecar's spans name none).
type OtherVersionErrors struct {
	// Requests and Errors are the other versions' entry spans and error
	// spans since the onset, every status.
	Requests int64 `json:"requests"`
	Errors   int64 `json:"errors"`
	// HistoryRequests and HistoryErrors are every version's entry spans and
	// error spans before the running version first served.
	HistoryRequests int64 `json:"history_requests"`
	HistoryErrors   int64 `json:"history_errors"`
}

// PoolWaits is measured on the spans of one service that carry a
// connection-pool attribute of the OpenTelemetry database semantic
// conventions: db.client.connection.pool.name (1.26 on),
// db.client.connections.pool.name (1.2x) or the older pool.name. Those are
// the spans an instrumented pool writes beneath an entry span while a request
// acquires a connection (HikariPool.getConnection, pgxpool.Acquire,
// knex.acquireConnection, JedisPool.getResource, …); a span whose status is
// error is a request that failed waiting for one.
type PoolWaits struct {
	// Spans and Failed count the pool spans and the failing ones from the
	// onset on; BaselineSpans and BaselineFailed those of the onset's baseline.
	Spans          int64 `json:"spans"`
	Failed         int64 `json:"failed"`
	BaselineSpans  int64 `json:"baseline_spans"`
	BaselineFailed int64 `json:"baseline_failed"`
	// P95Ms and BaselineP95Ms are the median over minutes of the pool spans'
	// per-minute p95 duration (the wait for a connection) from the onset on
	// and in the baseline; nil when no minute had one.
	P95Ms         *float64 `json:"p95_ms,omitempty"`
	BaselineP95Ms *float64 `json:"baseline_p95_ms,omitempty"`
	// EntryErrors counts the service's failing entry spans (server and
	// consumer, every version) from the onset on: the failures the pool's
	// would explain.
	EntryErrors int64 `json:"entry_errors"`
}

// Pool-failure thresholds: the service's own connection-pool spans show a
// pool that ran dry (PoolWaits.FailedDry) when, since the onset, at least
// MinPoolFailures of them failed, as many as PoolErrorShare of the service's
// failing entry spans, at PoolNewRate times or more the share of pool spans
// that failed in the baseline. The gate denies on it and the rules diagnose
// by it: one reading for both.
const (
	MinPoolFailures = 3
	PoolErrorShare  = 0.25
	PoolNewRate     = 2.0
)

// FailedDry reports whether the pool spans' failures since the onset say
// the pool ran dry (the thresholds above); false for a nil pool or one
// without spans since the onset.
func (p *PoolWaits) FailedDry() bool {
	if p == nil || p.Spans == 0 {
		return false
	}
	newRate := p.BaselineSpans == 0 ||
		float64(p.Failed)/float64(p.Spans) >= PoolNewRate*float64(p.BaselineFailed)/float64(p.BaselineSpans)
	return p.Failed >= MinPoolFailures && float64(p.Failed) >= PoolErrorShare*float64(p.EntryErrors) && newRate
}

// DeploymentMarker is one deployment.marker span.
type DeploymentMarker struct {
	Service         string    `json:"service"`
	Version         string    `json:"version"`
	PreviousVersion string    `json:"previous_version,omitempty"`
	DeploymentID    string    `json:"deployment_id,omitempty"`
	At              time.Time `json:"at"`
	TraceID         string    `json:"trace_id,omitempty"`
	SpanID          string    `json:"span_id,omitempty"`

	// Environment is the marker span's deployment environment
	// (deployment.environment.name, or the older deployment.environment);
	// empty when it names none.
	Environment string `json:"environment,omitempty"`
	// Type is the marker span's deployment.type, what the deploy tool says
	// the release changed ("release", "config", "prompt"); empty when it
	// says nothing.
	Type string `json:"type,omitempty"`
}

// EvidenceRef names one sandbox-signed evidence envelope without carrying
// it: the sandbox stores every evidence envelope once, in KV agentk_evidence
// under its Digest, and a reader fetches it, checks that the stored
// envelope's payload hashes to Digest and carries ID, and verifies its
// signature. A reference that is missing, does not match or does not verify
// counts as evidence that failed verification.
type EvidenceRef struct {
	ID string `json:"id"`
	// Digest is the hex sha256 of the evidence envelope's payload
	// (envelope.Digest): the key it is stored under.
	Digest string `json:"digest"`
}

// RefTo returns the reference to env, the sealed envelope of evidence id.
func RefTo(id string, env envelope.Envelope) EvidenceRef {
	return EvidenceRef{ID: id, Digest: env.Digest()}
}
