package policy

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// alternatives returns a reason for every sign in this service's evidence
// facts that something other than its own release explains the regression:
// other services that regressed with it (a shared dependency), or inbound
// traffic far above its baseline (load). It records what it saw in inputs.
func alternatives(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	co := map[string]bool{}
	ratio, haveRatio := 0.0, false
	for _, e := range ev {
		if e.Service != svc {
			continue
		}
		for _, s := range e.Facts.CoRegressed {
			if s != svc {
				co[s] = true
			}
		}
		if r := e.Facts.TrafficRatio; r != nil && (!haveRatio || *r > ratio) {
			ratio, haveRatio = *r, true
		}
	}
	arrivals, logged := arrivalFacts(svc, ev)
	var reasons []string
	if len(co) > 0 {
		names := make([]string, 0, len(co))
		for s := range co {
			names = append(names, s)
		}
		sort.Strings(names)
		inputs["co_regressed"] = strings.Join(names, ",")
		reasons = append(reasons, strings.Join(names, ", ")+" regressed at the same time as "+svc+": a shared cause that rolling back "+svc+" alone would not fix")
	}
	if haveRatio {
		inputs["traffic_ratio"] = strconv.FormatFloat(ratio, 'f', -1, 64)
		if limit := in.Config.TrafficSurgeRatio; limit > 0 && ratio >= limit && !publishedBelow(arrivals, limit, inputs) && !loggedBelow(logged, limit, inputs) {
			reasons = append(reasons, "inbound traffic is "+strconv.FormatFloat(ratio, 'f', 2, 64)+"x its baseline since the onset: load, not a release, explains the regression")
		} else {
			reasons = append(reasons, loadShedReasons(svc, ev, ratio, arrivals, inputs)...)
		}
	}
	return reasons
}

// arrivalFacts are the highest arrivals of svc's evidence read from
// outside its kept entry spans: a queue consumer's from its producers'
// publishes, and any service's from its logged trace ids.
func arrivalFacts(svc string, ev []contracts.EvidenceV1) (*contracts.PublishedArrivals, *contracts.LoggedArrivals) {
	var arrivals *contracts.PublishedArrivals
	var logged *contracts.LoggedArrivals
	for _, e := range ev {
		if e.Service != svc {
			continue
		}
		if a := e.Facts.PublishedArrivals; a != nil && (arrivals == nil || a.Ratio > arrivals.Ratio) {
			arrivals = a
		}
		if l := e.Facts.LoggedArrivals; l != nil && (logged == nil || l.Ratio > logged.Ratio) {
			logged = l
		}
	}
	return arrivals, logged
}

// LoadShedRatio is the inbound traffic, as a multiple of its baseline, at
// or above which a service that sheds load since the onset is taken to shed
// the load (loadShedReasons), below the surge ratio that denies alone.
const LoadShedRatio = 1.5

// loadShedReasons returns a reason when most of the running version's errors
// since the onset carry a status the history never showed that says the
// service turned requests away for load (ShedsLoad: too many concurrent
// requests, overloaded, a full bulkhead or queue), while its inbound traffic
// (a queue consumer's: what its producers published, when read) rose to
// LoadShedRatio times its baseline or more. Arrivals that rose and a service
// that says it cannot take them are load, whichever version serves; a release
// that lowered a limit sheds at the load it always had, which this leaves to
// the other checks. Seed 613273's s613273-w009-traffic-surge-fulfilment (a
// surge 10 minutes after 1.21.0, read at 2.43x, under the surge ratio, its
// 429s "too many concurrent requests" new with the running version):
// persona:marker's bad_release and persona:quality's config_regression
// were rolled back.
func loadShedReasons(svc string, ev []contracts.EvidenceV1, ratio float64, arrivals *contracts.PublishedArrivals, inputs map[string]string) []string {
	r := newErrorsSay(svc, ev, ShedsLoad)
	if r == nil || mutant.Off(mutant.GateLoadShed) {
		return nil
	}
	load, what := ratio, "inbound traffic"
	if arrivals != nil {
		load, what = arrivals.Ratio, "the arrivals its producers published"
	}
	if load < LoadShedRatio {
		return nil
	}
	inputs["load_shed_signature"] = r.NewSignature
	return []string{strconv.FormatInt(r.NewErrors, 10) + " of " + svc + "'s " + strconv.FormatInt(r.Errors, 10) + " errors since the onset say it turned requests away for load (" +
		strconv.Quote(r.NewSignature) + ") while " + what + " rose to " + strconv.FormatFloat(load, 'f', 2, 64) + "x its baseline: load, not a release, explains the regression"}
}

// ShedsLoad reports whether a status message says the service turned a
// request away for load: a concurrency or rate limit reached, overloaded,
// shedding, a bulkhead or a queue that is full, no capacity left.
func ShedsLoad(msg string) bool {
	m := strings.ToLower(msg)
	for _, w := range []string{"too many concurrent", "too many requests", "overload", "shedding", "load shed",
		"concurrency limit", "rate limit", "server busy", "server is busy", "at capacity", "capacity exceeded",
		"queue full", "queue is full", "bulkhead"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// publishedBelow says whether a queue consumer's arrivals, read from what
// its producers published (contracts.PublishedArrivals), stayed under the
// surge ratio limit; it records them in inputs. A consumer's deliveries are
// not its load: a message it failed is delivered again, and a tail sampler
// keeps every failed delivery, so a release that breaks a consumer
// multiplies its deliveries as a surge would
// (ho4-amqp-crash-progression-worker: 25x the deliveries, 0.98x the
// publishes). A surge of load is a surge of publishes
// (ho4-trap-finale-surge-replay-indexer: 5.3x), which this never lifts.
func publishedBelow(a *contracts.PublishedArrivals, limit float64, inputs map[string]string) bool {
	if a == nil || mutant.Off(mutant.GatePublishedArrivals) {
		return false
	}
	inputs["published_arrivals_ratio"] = strconv.FormatFloat(a.Ratio, 'f', -1, 64)
	inputs["publish_ratio"] = strconv.FormatFloat(a.PublishRatio, 'f', -1, 64)
	return a.Ratio < limit
}

// loggedBelow says whether the service's arrivals, read from its logged
// trace ids (contracts.LoggedArrivals: the sandbox reads them only when its
// log records cover the kept entry traces before and since the onset and
// outnumber them before, so that neither a tail sampler nor an error-only
// or sampled log explains them), stayed under the surge ratio limit; it
// records them in inputs. A tail sampler keeps every failing trace: a
// release failing half the requests under a 1-in-10 sampler keeps 5.5x the
// entry spans while its arrivals hold. A surge beyond capacity is a surge
// of logged trace ids, which this never lifts.
func loggedBelow(l *contracts.LoggedArrivals, limit float64, inputs map[string]string) bool {
	if l == nil || mutant.Off(mutant.GateLoggedArrivals) {
		return false
	}
	inputs["logged_arrivals_ratio"] = strconv.FormatFloat(l.Ratio, 'f', -1, 64)
	return l.Ratio < limit
}

// dependencyCauses are the deployment classes that a dependency failing at
// its usual call rate does not contradict: a configuration release can
// break the calls to a dependency it did not change the volume of (refused
// credentials). Every other deployment class does: a bad release's errors
// are its own, a retry storm multiplies the calls, a prompt regression
// answers 200.
var dependencyCauses = []string{"config_regression"}

// failingDependencies returns a reason when the sandbox found a dependency
// of svc failing at its usual call rate since the onset and the diagnosis
// is not one such a failure fits; it records the peers in inputs. A
// configuration release fits only a peer whose failed calls do not mostly
// carry the peer's own failure status (contracts.Facts.DependencyFaults: a
// 503, a 429, gRPC UNAVAILABLE; without a status, an error.type by which
// the peer closed the connection or could not serve, never the caller's
// timeout): a peer that answers that it failed or is overloaded failed by
// itself, whatever the release changed (the
// persona:quality traps hw-partner-503-route-planner,
// hw-vendor-quota-429-geocoder, mesh-checkout-release-payment-unavailable
// and world s1018-w005, a dependency outage minutes after a deploy).
func failingDependencies(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	peers := dependencyPeers(svc, ev, func(f contracts.Facts) []string { return f.FailingDependencies })
	if len(peers) == 0 {
		return nil
	}
	inputs["failing_dependencies"] = strings.Join(peers, ",")
	faults := dependencyPeers(svc, ev, func(f contracts.Facts) []string { return f.DependencyFaults })
	if len(faults) > 0 {
		inputs["dependency_faults"] = strings.Join(faults, ",")
	}
	if in.Review.Best != nil && slices.Contains(dependencyCauses, in.Review.Best.Class) {
		if len(faults) == 0 || mutant.Off(mutant.GateDependencyFault) {
			if r := silentDependencies(svc, ev, inputs); len(r) > 0 {
				return r
			}
			return acceptedCredential(in, svc, ev, peers, inputs)
		}
		return []string{"calls from " + svc + " to " + strings.Join(faults, ", ") + " began failing at the onset at their usual rate, answered with the peer's own failure (5xx, 429, gRPC UNAVAILABLE, or an error by which it closed, refused or could not serve the call): a failing dependency, not a configuration release of " + svc + ", explains the regression"}
	}
	return []string{"calls from " + svc + " to " + strings.Join(peers, ", ") + " began failing at the onset at their usual rate: a failing dependency, not a release of " + svc + ", explains the regression"}
}

// silentDependencies returns a reason when some failing dependency of svc
// failed its calls since the onset mostly with no status and no text
// (contracts.Facts.SilentDependencies): the exemption dependencyCauses
// grants a configuration release stands on the calls' own words, the
// caller's (a refused credential, a request refused as sent, its own
// timeout, an unknown host) against the peer's (DependencyFaults), and a
// call that says nothing is neither. Unknown fails closed: a configuration
// release whose broken calls say nothing is denied, a missed rollback, while
// a dependency that failed by itself under a span event the recording does
// not carry is never rolled back onto the release
// (e2e/incidents-heldout15's
// gs-trap-redis-failover-after-promotion-matchmaker: Redis failed over 26 s
// after matchmaker's promotion; the rules' and persona:quality's
// config_regression were rolled back on main).
func silentDependencies(svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	silent := dependencyPeers(svc, ev, func(f contracts.Facts) []string { return f.SilentDependencies })
	if len(silent) == 0 || mutant.Off(mutant.GateConfigSilentDependency) {
		return nil
	}
	inputs["silent_dependencies"] = strings.Join(silent, ",")
	return []string{"calls from " + svc + " to " + strings.Join(silent, ", ") + " began failing at the onset at their usual rate with no status and no error text: nothing says " + svc +
		"'s configuration, not the peer, failed them, so a failing dependency is not ruled out and a configuration release does not explain the regression"}
}

// retriedFaults returns a reason for every peer of svc's evidence that fails
// since the onset with its own failure status and whose calls rose, when
// retrying its failed calls explains the rise (not
// contracts.RetriedFault.RoseBeyondRetries, which the rules investigator
// reads the same way). Its calls multiplying is then no sign of the
// release: an unchanged policy that retries each failed attempt multiplies
// the calls of a peer that fails by itself (an outage) exactly as a
// release's new retries multiply a blip's (a retry storm), and only the
// previous version's seen retry limit tells them apart. ho3-trap-carrier-503-booking-gateway: an outside API's
// 503s at p = 0.77 and resilience4j's unchanged three attempts took the
// calls 1.00 -> 2.36 a booking; every investigator's rollback was allowed.
// A rise beyond what retrying failures explains (a release's cache keyed
// by request id calling a peer ten times as often,
// ho3-cache-key-quote-api-ratecard-effect) is the service's own.
func retriedFaults(svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	var reasons, seen []string
	for _, e := range ev {
		if e.Service != svc {
			continue
		}
		for _, r := range e.Facts.RetriedFaults {
			if slices.Contains(seen, r.Peer) {
				continue
			}
			seen = append(seen, r.Peer)
			explained := r.RetryBound()
			inputs["retried_fault."+r.Peer] = ftoa(r.CallRatio) + "x calls, failure rate " + ftoa(r.FailureRate) + ", previous attempts " + strconv.Itoa(r.PreviousAttempts)
			if r.RoseBeyondRetries() {
				continue
			}
			limit := "; the previous version was never seen giving up on it, so its retry limit is unknown and retries the release changed cannot be told from unchanged ones"
			if r.PreviousAttempts > 0 {
				limit = "; the previous version gave up after " + strconv.Itoa(r.PreviousAttempts) + " attempts"
			}
			reasons = append(reasons, "calls from "+svc+" to "+r.Peer+" fail since the onset with the peer's own failure status ("+ftoa(100*r.FailureRate)+"% of them) and rose "+
				strconv.FormatFloat(r.CallRatio, 'f', 2, 64)+"x a request, no more than retrying the failed calls explains ("+strconv.FormatFloat(explained, 'f', 2, 64)+"x"+limit+
				"): a failing dependency whose calls the retries multiplied, not a release of "+svc+", explains the regression")
		}
	}
	return reasons
}

// Release-error thresholds: a bad release's new failure must show on at
// least MinReleaseErrors sampled requests of the running version and on at
// least MinReleaseErrorShare of them; the other versions, where at least
// MinOtherRequests of them served since the onset, must fail that way at
// under OtherVersionShare of the running version's rate.
const (
	MinReleaseErrors     = 3
	MinReleaseErrorShare = 0.05
	MinOtherRequests     = 10
	OtherVersionShare    = 0.5
)

// releaseErrorClasses are the diagnoses that claim a release introduced
// errors: they need the sandbox's release comparison to show it.
var releaseErrorClasses = []string{"bad_release"}

// releaseFacts returns the release comparison of svc's evidence (the first
// that has one).
func releaseFacts(svc string, ev []contracts.EvidenceV1) *contracts.ReleaseErrors {
	for _, e := range ev {
		if e.Service == svc && e.Facts.Release != nil {
			return e.Facts.Release
		}
	}
	return nil
}

// releaseReasons: a diagnosis that a release introduced errors holds only
// when the running service.version fails with a status the history before it
// never showed, often enough, and the other versions do not fail that way.
func releaseReasons(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	if in.Review.Best == nil || !slices.Contains(releaseErrorClasses, in.Review.Best.Class) {
		return nil
	}
	r := releaseFacts(svc, ev)
	if r == nil {
		return []string{"no evidence compared the errors of " + svc + " by service.version: a release that introduced errors cannot be told from a regression that follows a deploy"}
	}
	inputs["release_version"] = r.Version
	inputs["release_first_seen"] = ttoa(r.FirstSeen)
	inputs["release_new_errors"] = strconv.FormatInt(r.NewErrors, 10) + "/" + strconv.FormatInt(r.Requests, 10)
	if r.NewSignature != "" {
		inputs["release_new_signature"] = r.NewSignature
	}
	if r.OtherRequests > 0 {
		inputs["release_other_versions"] = strconv.FormatInt(r.OtherNewErrors, 10) + "/" + strconv.FormatInt(r.OtherRequests, 10)
	}
	share := 0.0
	if r.Requests > 0 {
		share = float64(r.NewErrors) / float64(r.Requests)
	}
	switch {
	case r.HistoryMinutes == 0:
		return []string{"version " + strconv.Quote(r.Version) + " served every recorded minute of " + svc + ": there is no earlier release to compare its errors with"}
	case r.NewErrors < MinReleaseErrors || share < MinReleaseErrorShare:
		return []string{"since the onset " + strconv.FormatInt(r.NewErrors, 10) + " of " + strconv.FormatInt(r.Requests, 10) + " requests of version " + strconv.Quote(r.Version) +
			" failed with a status the history before it never showed (need " + strconv.Itoa(MinReleaseErrors) + " and " + ftoa(100*MinReleaseErrorShare) + "%): its errors are not new with the release"}
	case r.OtherRequests >= MinOtherRequests && float64(r.OtherNewErrors)/float64(r.OtherRequests) >= OtherVersionShare*share:
		return []string{"the other versions of " + svc + " fail the same way since the onset (" + strconv.FormatInt(r.OtherNewErrors, 10) + " of " + strconv.FormatInt(r.OtherRequests, 10) +
			" requests): the failure is not confined to version " + strconv.Quote(r.Version)}
	}
	return nil
}

// MinRetryCallRatio is the least rise of the calls to one peer per inbound
// request, since the onset over the baseline, that a retry storm shows: a
// release that changed timeouts or retries multiplies the calls each request
// sends. A surge of inbound traffic multiplies the calls as much as the
// requests, so the rise is divided by the inbound traffic ratio when that
// rose (s1018-w057: a surge after a deploy, calls and requests both ~2x).
const MinRetryCallRatio = 2.0

// callVolumeClasses are the diagnoses that claim the service multiplied its
// calls: they need the sandbox's peak call ratio to show it.
var callVolumeClasses = []string{"retry_storm"}

// callVolumeReasons: a retry-storm diagnosis holds only when the sandbox
// measured the retries per inbound request at MinRetryCallRatio or more of
// their baseline since the onset, counted from any source: the calls to
// some peer (client spans, one per attempt), or a span attribute that counts
// retries or attempts, or the retry log lines of the service's clients
// (contracts.RetryRise: a client that retries inside one span). The sandbox
// reports a peer's call ratio only when its calls per inbound request did not
// rise or rose significantly (s5813-w011: 10 sampled calls since a
// 3-minute-old onset read 3.01x), so a ratio read here is never a handful
// of spans.
func callVolumeReasons(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	if in.Review.Best == nil || !slices.Contains(callVolumeClasses, in.Review.Best.Class) {
		return nil
	}
	peak, peer, inbound, retries := callFacts(svc, ev)
	if retries != nil {
		inputs["retry_source"] = retries.Source + " " + retries.Key
		inputs["retry_ratio"] = ftoa(retries.Ratio)
		if retries.Ratio >= MinRetryCallRatio {
			return nil
		}
	}
	if peak == nil {
		return []string{"no evidence measured the calls of " + svc + " to its peers or its retries against their baseline, or a significant rise of them: a retry storm cannot be told from a failure that leaves the calls as they were"}
	}
	inputs["peak_call_ratio"] = ftoa(*peak)
	inputs["peak_call_peer"] = peer
	perRequest, why := *peak, ""
	if inbound != nil && *inbound > 1 {
		perRequest = *peak / *inbound
		why = " per inbound request (inbound traffic rose " + strconv.FormatFloat(*inbound, 'f', 2, 64) + "x)"
		inputs["calls_per_request_ratio"] = strconv.FormatFloat(perRequest, 'f', 2, 64)
	}
	if perRequest < MinRetryCallRatio {
		also := ""
		if retries != nil {
			also = "; retries per inbound request (" + retries.Source + " " + strconv.Quote(retries.Key) + ") rose " + ftoa(retries.Ratio) + "x"
		}
		return []string{"the calls of " + svc + " rose at most " + strconv.FormatFloat(perRequest, 'f', 2, 64) + "x" + why + " (to " + peer + ") since the onset" + also + ", under " + ftoa(MinRetryCallRatio) + "x: no retry storm multiplied them"}
	}
	return nil
}

// callFacts are the highest peak call ratio of svc's evidence and its peer,
// the highest inbound traffic ratio and the highest retry rise.
func callFacts(svc string, ev []contracts.EvidenceV1) (peak *float64, peer string, inbound *float64, retries *contracts.RetryRise) {
	for _, e := range ev {
		if e.Service != svc {
			continue
		}
		if r := e.Facts.PeakCallRatio; r != nil && (peak == nil || *r > *peak) {
			peak, peer = r, e.Facts.PeakCallPeer
		}
		if r := e.Facts.TrafficRatio; r != nil && (inbound == nil || *r > *inbound) {
			inbound = r
		}
		if r := e.Facts.Retries; r != nil && (retries == nil || r.Ratio > retries.Ratio) {
			retries = r
		}
	}
	return peak, peer, inbound, retries
}

// Pool-exhaustion thresholds: the service's own connection-pool spans (see
// contracts.PoolWaits) show a pool that ran dry when their failures say so
// (contracts.PoolWaits.FailedDry: contracts.MinPoolFailures and its
// siblings), or when the median wait (p95 per minute) rose to PoolWaitRatio
// times its baseline and at least MinPoolWaitMs.
const (
	PoolWaitRatio = 5.0
	MinPoolWaitMs = 250.0
)

// poolFacts returns the pool measurement of svc's evidence (the first that
// has one).
func poolFacts(svc string, ev []contracts.EvidenceV1) *contracts.PoolWaits {
	for _, e := range ev {
		if e.Service == svc && e.Facts.ConnectionPool != nil {
			return e.Facts.ConnectionPool
		}
	}
	return nil
}

// poolExhaustion returns a reason when svc's requests have been failing or
// waiting for a database connection since the onset. That denies every
// deployment class: a pool that ran dry after a deploy may be the release's
// doing (a leaked connection, a slower query holding connections) or not
// (load, a slow database, a neighbour sharing it), and the telemetry cannot
// tell which; the corpora label it db_pool_exhaustion, for a human to judge.
// A bad release's own errors fail in its code, above a healthy pool.
func poolExhaustion(svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	reasons := poolSignatureReasons(svc, ev, inputs)
	p := poolFacts(svc, ev)
	if p == nil {
		return reasons
	}
	inputs["pool_failed"] = strconv.FormatInt(p.Failed, 10) + "/" + strconv.FormatInt(p.Spans, 10)
	inputs["pool_baseline_failed"] = strconv.FormatInt(p.BaselineFailed, 10) + "/" + strconv.FormatInt(p.BaselineSpans, 10)
	inputs["pool_entry_errors"] = strconv.FormatInt(p.EntryErrors, 10)
	if p.FailedDry() {
		reasons = append(reasons, strconv.FormatInt(p.Failed, 10)+" of "+svc+"'s connection-pool spans failed since the onset, against "+
			strconv.FormatInt(p.EntryErrors, 10)+" failing requests: its requests fail waiting for a database connection, a pool that ran dry, which a rollback does not surely fix")
	}
	if p.P95Ms != nil {
		inputs["pool_wait_p95_ms"] = ftoa(*p.P95Ms)
		if p.BaselineP95Ms != nil {
			inputs["pool_baseline_wait_p95_ms"] = ftoa(*p.BaselineP95Ms)
		}
		if *p.P95Ms >= MinPoolWaitMs && (p.BaselineP95Ms == nil || *p.P95Ms >= PoolWaitRatio**p.BaselineP95Ms) {
			reasons = append(reasons, "the wait for a database connection of "+svc+" rose to "+ftoa(*p.P95Ms)+" ms (p95) since the onset: a pool that ran dry, which a rollback does not surely fix")
		}
	}
	return reasons
}

// poolSignatureReasons returns a reason when most of the running version's
// errors since the onset carry a status the history never showed that says
// a connection pool gave out (contracts.ReleaseErrors.NewSignature: pgxpool's
// "failed to acquire connection: context deadline exceeded (pgxpool: 8 of 8
// in use)", HikariCP's "Connection is not available, request timed out"):
// the same pool that ran dry as poolExhaustion's, read where the pool
// writes no span of its own (pgxpool acquires without one), and as
// undecidable. heldout10's kw10-trap-cron-compactor-telemetry-writer (a
// CronJob's locks slow COPY 5x 3.5 minutes after a release that changed a
// log field) was held only while the service's versions went unread; read
// from its image tags, its pool timeouts were new with the release and
// persona:marker's bad_release and persona:quality's config_regression
// were rolled back, on its twin too.
func poolSignatureReasons(svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	r := newErrorsSay(svc, ev, PoolGaveOut)
	if r == nil || mutant.Off(mutant.GatePoolSignature) {
		return nil
	}
	inputs["pool_signature"] = r.NewSignature
	return []string{strconv.FormatInt(r.NewErrors, 10) + " of " + svc + "'s " + strconv.FormatInt(r.Errors, 10) + " errors since the onset say a connection pool gave out (" +
		strconv.Quote(r.NewSignature) + "): its requests fail waiting for a database connection, a pool that ran dry, which a rollback does not surely fix"}
}

// newErrorsSay returns svc's release comparison when most of the running
// version's errors since the onset carry a status the history never showed
// (contracts.ReleaseErrors.NewSignature) of which says is true; nil else.
func newErrorsSay(svc string, ev []contracts.EvidenceV1, says func(string) bool) *contracts.ReleaseErrors {
	r := releaseFacts(svc, ev)
	if r == nil || r.NewSignature == "" || 2*r.NewErrors <= r.Errors || !says(r.NewSignature) {
		return nil
	}
	return r
}

// PoolGaveOut reports whether a status message says a connection pool gave
// out: it names a pool and a wait that ended (timed out, a deadline, an
// acquisition that failed, every connection in use, exhausted).
func PoolGaveOut(msg string) bool {
	m := strings.ToLower(msg)
	if !strings.Contains(m, "pool") && !strings.Contains(m, "connection is not available") {
		return false
	}
	for _, w := range []string{"acquire", "in use", "exhausted", "timed out", "timeout", "deadline", "not available"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// processRestarts returns a reason when a process of svc's running version
// was replaced by another of the same version since the onset: a process
// that ran out of memory, crashed or failed its health check under
// saturation (resource_saturation in every corpus), which the same release on
// a fresh process was already serving through. A crash loop of a bad release
// looks alike; the gate fails closed and a human judges.
func processRestarts(svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	var seen []string
	for _, e := range ev {
		if e.Service != svc {
			continue
		}
		for _, r := range e.Facts.Restarts {
			s := r.Version + "@" + r.OldPID + "->" + r.NewPID + "@" + ttoa(r.At)
			if !slices.Contains(seen, s) {
				seen = append(seen, s)
			}
		}
	}
	if len(seen) == 0 {
		return nil
	}
	inputs["process_restarts"] = strings.Join(seen, ",")
	return []string{"a process of " + svc + " was replaced by another of the same version since the onset (" + strings.Join(seen, ", ") +
		"): a process that ran out of memory, crashed or was killed under saturation, which a rollback does not surely fix"}
}

// Resource-pressure thresholds: the service's own logs at WARN or above that
// name memory, heap, garbage collection or CPU (see
// contracts.ResourcePressure) show a process short of a resource when at
// least MinPressureLogs of them were written since the onset, at
// PressureNewRate times or more their rate per minute in the baseline.
const (
	MinPressureLogs = 2
	PressureNewRate = 3.0
)

// resourcePressure returns a reason when svc's own process has been logging
// memory, heap, GC or CPU pressure since the onset, far more often than
// before. That denies every deployment class: saturation that starts minutes
// after a deploy fails requests that only the new version served, which
// looks like a bad release (resource_saturation in every corpus, the
// persona:marker trap of world s6161-w019, before any restart); a release
// that leaks memory looks alike, and the telemetry cannot tell which, so the
// gate fails closed and a human judges.
func resourcePressure(svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	var p *contracts.ResourcePressure
	for _, e := range ev {
		if e.Service == svc && e.Facts.ResourcePressure != nil {
			p = e.Facts.ResourcePressure
			break
		}
	}
	if p == nil || p.Minutes <= 0 {
		return nil
	}
	since := strconv.FormatInt(p.Logs, 10) + "/" + strconv.Itoa(p.Minutes) + "min"
	inputs["pressure_logs"] = since
	inputs["pressure_baseline_logs"] = strconv.FormatInt(p.BaselineLogs, 10) + "/" + strconv.Itoa(p.BaselineMinutes) + "min"
	rising := p.BaselineLogs == 0 || p.BaselineMinutes <= 0 ||
		float64(p.Logs)/float64(p.Minutes) >= PressureNewRate*float64(p.BaselineLogs)/float64(p.BaselineMinutes)
	if p.Logs < MinPressureLogs || !rising {
		return nil
	}
	return []string{svc + " logged memory, heap, GC or CPU pressure at WARN or above " + strconv.FormatInt(p.Logs, 10) + " times in the " +
		strconv.Itoa(p.Minutes) + " min since the onset (" + strconv.FormatInt(p.BaselineLogs, 10) + " in the " + strconv.Itoa(p.BaselineMinutes) +
		" min before): a process short of memory or CPU, which a rollback does not surely fix"}
}

// RuntimeRiseRatio is the least rise of a runtime attribute (see
// contracts.RuntimeLevel: the median of its per-minute means since the
// onset over the baseline's) that shows a process short of memory or CPU.
const RuntimeRiseRatio = 1.5

// runtimeSaturation returns a reason when a runtime attribute of svc's own
// spans (OpenTelemetry's runtime and process semantic conventions: CPU
// utilization, memory in use, garbage-collection time) rose RuntimeRiseRatio
// times or more since the onset. Like resourcePressure it denies every
// deployment class, for the same reason: saturation that begins after a
// deploy looks like a release to a model, and a release that leaks memory
// looks like saturation, so the gate fails closed. It reads the runtime
// attributes, not logs: a process may saturate without writing a word
// (the stranger corpus's st-heap-creep-quote-svc and
// st-cpu-throttle-ledger-writer).
func runtimeSaturation(svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	var l *contracts.RuntimeLevel
	for _, e := range ev {
		if e.Service == svc && e.Facts.RuntimeSaturation != nil {
			l = e.Facts.RuntimeSaturation
			break
		}
	}
	if l == nil {
		return nil
	}
	inputs["runtime_attribute"] = l.Attribute
	inputs["runtime_level"] = ftoa(l.Since) + "/" + strconv.Itoa(l.Minutes) + "min"
	inputs["runtime_baseline_level"] = ftoa(l.Baseline) + "/" + strconv.Itoa(l.BaselineMinutes) + "min"
	if l.Since <= 0 || l.Rise() < RuntimeRiseRatio {
		return nil
	}
	return []string{svc + "'s runtime attribute " + l.Attribute + " rose to " + ftoa(l.Since) + " since the onset from " + ftoa(l.Baseline) +
		" in its baseline (median per minute, " + strconv.FormatFloat(l.Rise(), 'f', 2, 64) + "x): a process short of memory or CPU, which a rollback does not surely fix"}
}

// dependencyPeers returns the peers that pick names in svc's own evidence,
// each once, sorted.
func dependencyPeers(svc string, ev []contracts.EvidenceV1, pick func(contracts.Facts) []string) []string {
	seen := map[string]bool{}
	var peers []string
	for _, e := range ev {
		if e.Service != svc {
			continue
		}
		for _, p := range pick(e.Facts) {
			if !seen[p] {
				seen[p] = true
				peers = append(peers, p)
			}
		}
	}
	sort.Strings(peers)
	return peers
}
