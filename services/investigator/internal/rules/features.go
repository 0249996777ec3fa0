package rules

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/contracts/table"
	"agentk/services/investigator/internal/loop"
)

// Feature is an evidence feature named by OpenTelemetry semantic conventions:
// what the rules read from the span and log rows the sandbox recorded, never
// the wording of one corpus. Each value is the text a claim cites.
type Feature string

// Features.
const (
	// FeatServer5xx: the service's own failing server spans answer HTTP 5xx
	// (http.response.status_code, or http.status_code before semconv 1.23).
	FeatServer5xx Feature = "server-error status class on the service's server spans (http.response.status_code / http.status_code)"
	// FeatException: most of the failing spans since the onset carry
	// exception.type or error.type.
	FeatException Feature = "exception.type / error.type on the service's failing spans"
	// FeatNewVersion: every failing span of the service is on the version the
	// latest deployment marker introduced (resource service.version).
	FeatNewVersion Feature = "errors only on the new service.version"
	// FeatPool: failing spans name a connection pool (db.client.connection.pool.name).
	FeatPool Feature = "failing spans on a connection pool (db.client.connection.pool.name)"
	// FeatResend: failing client spans are resends (http.request.resend_count ≥ 1).
	FeatResend Feature = "failing client spans that are resends (http.request.resend_count)"
	// FeatPeer: most of the service's failures are its client spans to a peer
	// (peer.service, server.address, net.peer.name) failing.
	FeatPeer Feature = "failing client spans to a dependency (peer.service / server.address / net.peer.name)"
	// FeatDB: the failing client spans are database calls (db.system / db.system.name).
	FeatDB Feature = "failing database client spans (db.system / db.system.name)"
	// FeatOwnCode: most failing traces fail in the service's own span, with
	// no failing call beneath it (span kind and parent_span_id).
	FeatOwnCode Feature = "failures begin in the service's own spans, not in its calls (span kind, parent_span_id)"
	// FeatNewHost: a failing client span calls a host (server.address /
	// net.peer.name) the service never called before the onset.
	FeatNewHost Feature = "failing calls go to a host not called before the onset (server.address / net.peer.name)"
	// FeatChildSlow: one child span's p95 grew by SlowRatio and accounts for
	// most of the server spans' growth (duration by span name and kind).
	FeatChildSlow Feature = "one dependency span dominates the latency growth (percentile latency by span name and kind)"
	// FeatChildSlowed: a child span (not a model call) grew by SlowRatio,
	// whether or not the server spans' p95 shows it: a few sampled server
	// spans after the split can hide the growth that FeatChildSlow needs.
	FeatChildSlowed Feature = "a dependency span slowed (percentile latency by span name and kind)"
	// FeatModelSlow: a model call (a span with gen_ai.request.model) grew
	// its p95 by SlowRatio: the model writes longer answers or works harder.
	FeatModelSlow Feature = "the model call (gen_ai.request.model) slowed after the onset"
	// FeatOneError: most of the service's failing server spans (its
	// failing internal spans when no server span fails) fail with one and
	// the same status message: one new fault repeated, not assorted
	// transient errors.
	FeatOneError Feature = "one status message on most failing server spans (status_message)"
	// FeatConfigChange: a deployment marker of the service says the
	// release changed configuration (deployment.type).
	FeatConfigChange Feature = "a deployment marker says the release changed configuration (deployment.type)"
)

// configChangeTypes are the deployment.type values of a release that changed
// configuration only: a feature flag flipped (OpenTelemetry's feature_flag.*
// names it) is one too (branch h18onset, after hw-flag-flip-recs-ranker was
// scored out of sample).
var configChangeTypes = []string{"config", "configuration", "feature_flag", "feature-flag", "flag"}

const (
	// FeatEvenSlow: every server span slowed by EvenRatio and no client
	// or producer span (a dependency) dominates: the whole service is
	// slower. Its own internal spans slow with it.
	FeatEvenSlow Feature = "every endpoint slowed together, no dependency span dominates (percentile latency by span name and kind)"
	// FeatRuntimeRise: a runtime attribute of the service's spans (the
	// sandbox's runtime_saturation fact: process.cpu.utilization,
	// jvm.memory.used, go.memory.used, container.cpu.usage,
	// process.runtime.* and others) rose RuntimeRise times or more since
	// the onset: the process is short of CPU or memory.
	FeatRuntimeRise Feature = "a runtime attribute rose since the onset (process.cpu.utilization, jvm.memory.used, go.memory.used, container.cpu.usage, process.runtime.*)"
	// FeatRetryRise: the overview's retry count (a span attribute counting
	// retries or attempts, or the retry log lines of the service's clients)
	// rose per inbound request since the onset (facts.retries).
	FeatRetryRise Feature = "retries per inbound request rose since the onset (a retry-count attribute or retry log lines)"
	// FeatAnswerShift: an attribute of the model call's answers shifted
	// (gen_ai.* / llm.* token counts, finish reasons, prompt or template
	// attributes) while the service answered (facts.quality_shifts).
	FeatAnswerShift Feature = "the model call's answers shifted since the onset (gen_ai.usage.*, finish reason, prompt attributes)"
	// FeatSettingShift: an attribute naming a setting, flag or variant
	// shifted since the onset (facts.quality_shifts).
	FeatSettingShift Feature = "a setting, flag or variant attribute of the service's spans shifted since the onset"
	// FeatFlagFlip: a setting, flag or variant attribute of the service's
	// spans, or of the spans of the service where its failures begin,
	// shifted within FlagWindow before the onset (facts.quality_shifts, and
	// the origin's): a configuration changed at run time.
	FeatFlagFlip Feature = "a setting or feature flag (feature_flag.*, a variant) shifted at the onset, here or where the failures begin"
	// FeatSlowDependency: the sandbox found a dependency slower at its
	// usual call rate, explaining most of the entry spans' added p95
	// (facts.slow_dependencies).
	FeatSlowDependency Feature = "a dependency slowed at its usual call rate and explains the added latency (facts.slow_dependencies)"
	// FeatSlowFirst: the earliest operation to leave its baseline
	// (facts.departures, earliest first) is a call out of the process (a
	// client or producer span, not a model call) whose p95 grew SlowRatio
	// times: a dependency slowed before any error or any endpoint moved,
	// so the errors that follow are its timeouts.
	FeatSlowFirst Feature = "a dependency call's latency left its baseline before anything else did (facts.departures)"
	// FeatRetryLoad: the failing peer was called RetryCallRatio times its
	// baseline or more per inbound request since the onset (retryLoad).
	FeatRetryLoad Feature = "the service called the failing peer twice its baseline rate a request or more (facts.peak_call_ratio)"
	// FeatSlowLead: FeatSlowFirst's departure lies a whole OnsetBucket or
	// more before the service's onset: the dependency was slow for minutes
	// before the errors began, so its failing calls are timeouts of a slow
	// dependency, not an outage (a dependency that hangs and fails slows
	// its calls in the minute its errors begin).
	FeatSlowLead Feature = "a dependency call's latency left its baseline minutes before the service's onset (facts.departures, facts.onset)"
	// FeatLatentRelease: the version serving since the onset first served
	// after another version did (facts.release.history_minutes), and at
	// least LatentErrors of its errors since the onset, most of them,
	// carry a status no error span of the service carried before it
	// served, which no other version shows since the onset.
	// FeatUsualRateDependency: a peer the failing client spans call is
	// among the overview's failing dependencies (facts.failing_dependencies:
	// called before the onset, called since at most
	// contracts.DependencyCallRatio times its baseline rate, its calls'
	// errors left their baseline at the onset). The service did not
	// multiply its calls: its retries are no storm.
	FeatUsualRateDependency Feature = "the failing calls go to a dependency called at its usual rate whose errors rose at the onset (facts.failing_dependencies)"
	FeatLatentRelease       Feature = "the version released during the recording fails since the onset with a status its history never showed (facts.release)"
	// FeatReleasedAnswers: the overview found no onset, and the model's
	// answers shifted (facts.quality_shifts: gen_ai.* token counts, finish
	// reasons, prompt attributes) within MarkerWindow after a deployment
	// marker of the service.
	FeatReleasedAnswers Feature = "no onset, but the model's answers shifted after a deployment marker of the service (facts.quality_shifts, deployment.marker)"
	// FeatConfigLogged: the service's own logs said its configuration
	// changed at run time (a feature flag switched, a configuration
	// refreshed: facts.config_changes) in the minutes around the onset, a
	// minute or more after its latest deployment marker (configLogged): a
	// change no release carried, which a rollback would not undo. The gate
	// denies a deployment-class diagnosis on the same lines
	// (policy.runtimeChangeReasons).
	FeatConfigLogged Feature = "the service logged a configuration change at run time at the onset, after its release (facts.config_changes)"
	// FeatThrottled: at least ThrottledMin of the service's failing server
	// spans answer HTTP 429 (Too Many Requests): the service itself says
	// it was sent more requests than it takes.
	FeatThrottled Feature = "the service's own server spans refuse requests as too many (http.response.status_code / http.status_code: Too Many Requests)"
)

// ThrottledMin is the fewest failing server spans answering 429 that
// FeatThrottled needs: one or two are a client over its own quota.
const ThrottledMin = OneErrorMin

// spanRows are the rows of the data blocks of compact, each a JSON object on
// its own line once the blocks are in their one-object-per-line form
// (table.Legacy), whatever form the sandbox rendered them in.
func spanRows(compact string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(table.Legacy(compact), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var row map[string]any
		if json.Unmarshal([]byte(line), &row) == nil {
			out = append(out, row)
		}
	}
	return out
}

func str(row map[string]any, keys ...string) string {
	for _, k := range keys {
		switch v := row[k].(type) {
		case string:
			if v != "" {
				return v
			}
		case float64:
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
	}
	return ""
}

func number(row map[string]any, keys ...string) (float64, bool) {
	for _, k := range keys {
		switch v := row[k].(type) {
		case float64:
			return v, true
		case string:
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				return f, true
			}
		}
	}
	return 0, false
}

// origin is where a failing trace's failure began: the service's failing
// span that no other failing span of the service sits beneath.
type origin string

// The kinds of origin, read from span kind and attributes.
const (
	// originPool: an internal span of a database client (db.system /
	// db.system.name / db.client.connection.pool.name on a span of kind
	// Internal): acquiring a connection, not the query, failed.
	originPool origin = "pool"
	// originDB: a database client span (kind Client with db.*) failed.
	originDB origin = "db"
	// originPeer: a client span to another service (peer.service,
	// server.address, net.peer.name) failed.
	originPeer origin = "peer"
	// originOwn: the service's own server or internal span failed with no
	// failing call beneath it: its own code.
	originOwn origin = "own"
)

func originOf(row map[string]any) origin {
	kind := str(row, "kind")
	db := str(row, "db.system", "db.system.name", "db.client.connection.pool.name") != ""
	switch {
	case kind == "Client" && db:
		return originDB
	case outbound(kind) && str(row, "peer.service", "server.address", "net.peer.name") != "":
		return originPeer
	case db:
		return originPool
	case kind != "Server" && str(row, "gen_ai.system", "gen_ai.provider.name", "gen_ai.request.model") != "":
		// A model provider's SDK records its call as an internal span
		// (OpenTelemetry's gen_ai conventions name the provider): a call
		// out all the same. ho2-inspan-retries-provider-529-menu-writer
		// (the provider's 529s, retried inside one anthropic.messages.create
		// span) read as the service's own code.
		return originPeer
	}
	return originOwn
}

// outbound reports whether a span of kind leaves the process for a peer: a
// client span, or a producer span, which names the broker it sends to by
// server.address as a client span names its host (messaging semantic
// conventions; the sandbox's peers read both). ho4-trap-broker-memory-alarm-
// store-api (publishes a broker refused) read as the service's own code.
func outbound(kind string) bool { return kind == "Client" || kind == "Producer" }

// originWithin is the origin of a failing span that no failing span sits
// beneath: a span inside a failing client call (a DNS lookup, a TLS
// handshake under the call's span) belongs to that call.
func originWithin(row map[string]any, byID map[string]map[string]any) origin {
	seen := 0
	for up := row; up != nil && seen < 16; seen++ {
		if o := originOf(up); outbound(str(up, "kind")) && o != originOwn {
			return o
		}
		up = byID[str(up, "trace_id")+"/"+str(up, "parent_span_id")]
	}
	return originOf(row)
}

// downstreamOf is the callees the service's overview found downstream
// (Facts.Downstream): the service abandons its calls to them.
func downstreamOf(service string, evidence []loop.Evidence) []string {
	var out []string
	for _, e := range evidence {
		if e.Tool == contracts.ToolServiceOverview && (e.Service == "" || e.Service == service) {
			out = append(out, e.Facts.Downstream...)
		}
	}
	return out
}

// abandonedCall reports whether the failing client call row sits in (or is)
// calls a downstream callee: the service gave up on it, so the failure is
// its own, not the peer's.
func abandonedCall(row map[string]any, byID map[string]map[string]any, downstream []string) bool {
	seen := 0
	for up := row; up != nil && seen < 16; seen++ {
		if str(up, "kind") == "Client" {
			return slices.Contains(downstream, str(up, "peer.service", "server.address", "net.peer.name"))
		}
		up = byID[str(up, "trace_id")+"/"+str(up, "parent_span_id")]
	}
	return false
}

// failures is what the service's failing spans in error_traces and
// get_trace say.
type failures struct {
	rows    []map[string]any
	ids     []string // evidence id of each row
	origins map[origin]int
	// attempts is the number of traces in which two or more failing client
	// spans went to the same peer (the caller tried again).
	attempts int
	// hosts are the peers the failing client spans called.
	hosts map[string]bool
}

func readFailures(service string, evidence []loop.Evidence) failures {
	f := failures{origins: map[origin]int{}, hosts: map[string]bool{}}
	downstream := downstreamOf(service, evidence)
	for _, e := range evidence {
		if e.Tool != contracts.ToolErrorTraces && e.Tool != contracts.ToolGetTrace {
			continue
		}
		for _, row := range spanRows(e.Compact) {
			if str(row, "service") == service && row["error"] == true {
				f.rows = append(f.rows, row)
				f.ids = append(f.ids, e.ID)
			}
		}
	}
	parents := map[string]bool{}
	byID := map[string]map[string]any{}
	perPeer := map[[2]string]int{}
	for _, row := range f.rows {
		if p := str(row, "parent_span_id"); p != "" {
			parents[str(row, "trace_id")+"/"+p] = true
		}
		if id := str(row, "span_id"); id != "" {
			byID[str(row, "trace_id")+"/"+id] = row
		}
	}
	for _, row := range f.rows {
		if id := str(row, "span_id"); id == "" || !parents[str(row, "trace_id")+"/"+id] {
			o := originWithin(row, byID)
			if o == originPeer && abandonedCall(row, byID, downstream) {
				o = originOwn
			}
			f.origins[o]++
		}
		if str(row, "kind") == "Client" {
			host := str(row, "server.address", "net.peer.name", "peer.service")
			f.hosts[host] = true
			k := [2]string{str(row, "trace_id"), host}
			if perPeer[k]++; perPeer[k] == 2 {
				f.attempts++
			}
		}
	}
	return f
}

// OneErrorShare is the share of failing server spans one status message
// must have for FeatOneError, over at least OneErrorMin of them.
const (
	OneErrorShare = 0.6
	OneErrorMin   = 3
)

// oneError reports FeatOneError. When no server span fails (a GraphQL
// server answers its errors with HTTP 200, so only the resolver's internal
// span records the failure), the service's failing internal spans stand for
// them: the fault is still its own code's. lm7-gql-continuewatching-gateway-gql (a TypeError in one
// resolver, 20 of 20 failing spans internal) read unknown.
func (f failures) oneError() bool {
	msgs := map[string]int{}
	n := 0
	for _, kind := range []string{"Server", "Internal"} {
		for _, row := range f.rows {
			if str(row, "kind") == kind {
				msgs[str(row, "status_message")]++
				n++
			}
		}
		if n > 0 {
			break
		}
	}
	for m, c := range msgs {
		if m != "" && c >= OneErrorMin && float64(c) >= OneErrorShare*float64(n) {
			return true
		}
	}
	return false
}

// refusedWords say that the peer refused or reset the connection, or could
// not be reached: a call that failed at once, not a timeout of a peer that
// slowed (lower-cased substrings of error.type and the status message).
var refusedWords = []string{"connection refused", "econnrefused", "connection reset", "econnreset", "no route to host"}

// refused reports FeatRefused: at least OneErrorMin of the service's failing
// outbound spans, most of them, say the peer refused or reset the
// connection.
func (f failures) refused() bool {
	n, c := 0, 0
	for _, row := range f.rows {
		if !outbound(str(row, "kind")) {
			continue
		}
		n++
		text := strings.ToLower(str(row, "error.type") + " " + str(row, "status_message"))
		if slices.ContainsFunc(refusedWords, func(w string) bool { return strings.Contains(text, w) }) {
			c++
		}
	}
	return c >= OneErrorMin && 2*c > n
}

// majority is the origin of at least half of the failing traces, if any.
func (f failures) majority() origin {
	total := 0
	for _, n := range f.origins {
		total += n
	}
	for o, n := range f.origins {
		if total > 0 && 2*n >= total && (o != originOwn || 2*n > total) {
			return o
		}
	}
	return ""
}

// features reads the Features of the service's failing spans f and the
// follow-up aggregates sh; newVersion is the version of the latest deployment
// marker before the onset ("" when none), onset the overview's (nil when
// none). It returns each feature found with the ids of the evidence it came
// from.
func features(f failures, newVersion string, onset *time.Time, sh Shape) map[Feature][]string {
	out := map[Feature][]string{}
	counts := map[Feature]int{}
	ids := map[Feature]map[string]bool{}
	for i, row := range f.rows {
		for _, ft := range rowFeatures(row, newVersion) {
			counts[ft]++
			if ids[ft] == nil {
				ids[ft] = map[string]bool{}
			}
			ids[ft][f.ids[i]] = true
		}
	}
	// keep cites the evidence of the rows that showed ft, or, for a
	// feature of the traces as a whole (an origin), every failing row's.
	keep := func(ft Feature, ok bool) {
		if !ok {
			return
		}
		for id := range ids[ft] {
			out[ft] = append(out[ft], id)
		}
		if len(out[ft]) == 0 {
			out[ft] = compactIDs(f.ids)
		}
		slices.Sort(out[ft])
	}
	own := len(f.rows)
	maj := f.majority()
	keep(FeatServer5xx, counts[FeatServer5xx] > 0)
	// An exception counts when most failing spans since the onset carry
	// one: a few exceptions in the baseline's noise say nothing about a
	// release, nor do the baseline's own failing spans, which error_traces
	// returns beside the regression's.
	exc, recent := f.exceptionsSince(onset)
	keep(FeatException, 2*exc > recent)
	keep(FeatPool, counts[FeatPool] > 0 || maj == originPool)
	keep(FeatResend, counts[FeatResend] > 0 || f.attempts > 0)
	keep(FeatPeer, maj == originPeer || maj == originDB)
	keep(FeatDB, maj == originDB)
	keep(FeatOwnCode, maj == originOwn)
	keep(FeatNewVersion, own >= 3 && counts[FeatNewVersion] == own)
	keep(FeatOneError, f.oneError())
	keep(FeatRefused, f.refused())
	keep(FeatThrottled, counts[FeatThrottled] >= ThrottledMin)
	shapeFeatures(out, f, sh)
	return out
}

// exceptionsSince counts the failing spans recorded at or after onset (all
// of them when onset is nil; a row without a readable time counts) and those
// of them that carry an exception (FeatException). s3141777-w013 (a slow
// doc-retriever, a release coinciding): 7 of 13 failing spans carried
// error.type InternalError, 5 of them the baseline's noise hours before the
// onset, 2 of the 8 since; read bad_release before.
func (f failures) exceptionsSince(onset *time.Time) (exc, recent int) {
	for _, row := range f.rows {
		if onset != nil {
			if at, err := time.Parse(time.RFC3339Nano, str(row, "time")); err == nil && at.Before(*onset) {
				continue
			}
		}
		recent++
		if slices.Contains(rowFeatures(row, ""), FeatException) {
			exc++
		}
	}
	return exc, recent
}

// rowFeatures are the features one failing span shows by itself.
func rowFeatures(row map[string]any, newVersion string) []Feature {
	var out []Feature
	kind := str(row, "kind")
	if code, ok := number(row, "http.response.status_code", "http.status_code"); ok && code >= 500 && kind == "Server" {
		out = append(out, FeatServer5xx)
	} else if ok && code == 429 && kind == "Server" {
		out = append(out, FeatThrottled)
	}
	if str(row, "exception.type", "exception.message") != "" || (str(row, "error.type") != "" && !numeric(str(row, "error.type"))) {
		out = append(out, FeatException)
	}
	if str(row, "db.client.connection.pool.name") != "" {
		out = append(out, FeatPool)
	}
	if n, ok := number(row, "http.request.resend_count"); ok && n >= 1 {
		out = append(out, FeatResend)
	}
	if newVersion != "" && str(row, "version") == newVersion {
		out = append(out, FeatNewVersion)
	}
	return out
}

// numeric reports whether s is a number (error.type set to a status code
// names no exception).
func numeric(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// shapeFeatures adds the features of the latency shape and of the hosts.
func shapeFeatures(out map[Feature][]string, f failures, sh Shape) {
	latIDs := append(slices.Clone(sh.IDs[qBefore]), sh.IDs[qAfter]...)
	if name, ok := sh.slowChild(); ok && !sh.Model[name] {
		out[FeatChildSlow] = latIDs
	}
	if sh.childSlowed() {
		out[FeatChildSlowed] = latIDs
	}
	if sh.modelSlowed() {
		out[FeatModelSlow] = append(latIDs, sh.IDs[qModel]...)
	}
	if _, even, n := sh.serverGrowth(); even && n > 0 {
		if _, ok := sh.slowDependency(); !ok {
			out[FeatEvenSlow] = latIDs
		}
	}
	if slices.ContainsFunc(configChangeTypes, func(t string) bool { return sh.ChangeTypes[t] }) {
		out[FeatConfigChange] = slices.Clone(sh.IDs[qChange])
	}
	if len(sh.HostsBefore) > 0 {
		for h := range f.hosts {
			if h != "" && !sh.HostsBefore[h] && sh.HostsAfter[h] {
				out[FeatNewHost] = append(slices.Clone(sh.IDs[qHostsBefore]), append(sh.IDs[qHostsAfter], append(sh.IDs[qPeersBefore], sh.IDs[qPeersAfter]...)...)...)
				break
			}
		}
	}
}
