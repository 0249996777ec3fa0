package policy_test

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"

	"github.com/stretchr/testify/require"
)

// A deployment-class diagnosis with a marker in the window is still denied
// when the sandbox's facts show another explanation: the deploy-coincides trap.
func TestAlternativeExplanationsDeny(t *testing.T) {
	for _, tc := range []struct {
		name  string
		facts func(*contracts.Facts)
		allow bool
	}{
		{"no alternative", func(f *contracts.Facts) { f.TrafficRatio = ptr(1.1) }, true},
		{"another service regressed with it", func(f *contracts.Facts) { f.CoRegressed = []string{"shop-worker"} }, false},
		{"traffic surge", func(f *contracts.Facts) { f.TrafficRatio = ptr(5.2) }, false},
		{"traffic just under the surge ratio", func(f *contracts.Facts) { f.TrafficRatio, f.PeakCallRatio = ptr(2.49), ptr(9.0) }, true},
		{"a surge whose onset minute was still half baseline", func(f *contracts.Facts) { f.TrafficRatio = ptr(2.86) }, false},
		{"the service itself listed as co-regressed is ignored", func(f *contracts.Facts) { f.CoRegressed = []string{svc} }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			tc.facts(&in.Evidence[0].Facts)
			d := policy.Evaluate(in)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, contracts.VerdictDeny, d.Verdict)
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
		})
	}
}

// Facts of another service's evidence say nothing about this one.
func TestAlternativesOfAnotherServiceIgnored(t *testing.T) {
	in := allowing()
	in.Evidence = append(in.Evidence, contracts.EvidenceV1{ID: "ev-other", InvestigationID: invID, Service: "payments-api",
		Tool: contracts.ToolServiceOverview, Facts: contracts.Facts{CoRegressed: []string{"x"}, TrafficRatio: ptr(9.0)}})
	require.Equal(t, contracts.VerdictAllow, policy.Evaluate(in).Verdict)
}

// A dependency failing at its usual call rate since the onset explains the
// regression for every deployment-class diagnosis but a configuration
// release (credentials, endpoints), and is recorded either way; for a
// configuration release too when the peer answered with its own failure
// status (mutant gate.dependency_fault: persona:quality's config_regression
// on hw-partner-503-route-planner, a partner's 503s minutes after a deploy).
func TestFailingDependencyDenies(t *testing.T) {
	for _, tc := range []struct {
		name, class string
		peers       []string
		allow       bool
	}{
		{"no failing dependency", "retry_storm", nil, true},
		{"retry storm blamed on a failing third party", "retry_storm", []string{"api.stripe.com"}, false},
		{"bad release blamed on a failing third party", "bad_release", []string{"api.stripe.com"}, false},
		{"prompt regression with a failing model provider", "prompt_regression", []string{"api.openai.com"}, false},
		{"config release that broke the database's credentials", "config_regression", []string{"orders-db"}, true},
		{"config release blamed on a peer answering 503", "config_regression", []string{"api.partner-maps.example"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = tc.class, tc.class
			in.Evidence[0].Facts.FailingDependencies = tc.peers
			if slices.Contains(tc.peers, "api.partner-maps.example") {
				in.Evidence[0].Facts.DependencyFaults = tc.peers
			}
			d := policy.Evaluate(in)
			dep := d.Checks[4]
			require.Equal(t, contracts.CheckDeploymentRelated, dep.Name)
			if len(tc.peers) > 0 {
				require.Equal(t, tc.peers[0], dep.Inputs["failing_dependencies"])
			}
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
			require.Contains(t, dep.Reason, "a failing dependency")
		})
	}
}

// A bad release needs the sandbox's comparison by service.version to show
// errors new with the running version, often enough, and not shared by the
// other versions; other deployment classes do not need it.
func TestReleaseErrorsRequired(t *testing.T) {
	for _, tc := range []struct {
		name    string
		class   string
		release func(*contracts.ReleaseErrors) *contracts.ReleaseErrors
		reason  string
	}{
		{"new errors on the running version", "bad_release", func(r *contracts.ReleaseErrors) *contracts.ReleaseErrors { return r }, ""},
		{"not measured", "bad_release", func(*contracts.ReleaseErrors) *contracts.ReleaseErrors { return nil }, "no evidence compared the errors"},
		// Nor is a retry storm: without the versions compared, a failure of
		// every version cannot be told from the release's (otherVersionReasons).
		{"not measured, a retry storm", "retry_storm", func(*contracts.ReleaseErrors) *contracts.ReleaseErrors { return nil }, "other versions"},
		{"no history before the version", "bad_release", func(r *contracts.ReleaseErrors) *contracts.ReleaseErrors { r.HistoryMinutes = 0; return r }, "no earlier release"},
		{"only the errors the history had", "bad_release", func(r *contracts.ReleaseErrors) *contracts.ReleaseErrors {
			r.NewSignature, r.NewErrors = "", 0
			return r
		}, "not new with the release"},
		{"two new errors", "bad_release", func(r *contracts.ReleaseErrors) *contracts.ReleaseErrors { r.NewErrors = 2; return r }, "not new with the release"},
		{"three new errors", "bad_release", func(r *contracts.ReleaseErrors) *contracts.ReleaseErrors { r.NewErrors, r.Requests = 3, 60; return r }, ""},
		{"new errors under 5%", "bad_release", func(r *contracts.ReleaseErrors) *contracts.ReleaseErrors { r.NewErrors, r.Requests = 4, 81; return r }, "not new with the release"},
		{"the old version fails the same way", "bad_release", func(r *contracts.ReleaseErrors) *contracts.ReleaseErrors {
			r.OtherRequests, r.OtherNewErrors = 100, 15
			return r
		}, "not confined to version"},
		{"the old version fails far less", "bad_release", func(r *contracts.ReleaseErrors) *contracts.ReleaseErrors {
			r.OtherRequests, r.OtherNewErrors = 100, 14
			return r
		}, ""},
		{"too few old-version requests to compare", "bad_release", func(r *contracts.ReleaseErrors) *contracts.ReleaseErrors {
			r.OtherRequests, r.OtherNewErrors = 9, 9
			return r
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = tc.class, tc.class
			in.Evidence[0].Facts.Release = tc.release(in.Evidence[0].Facts.Release)
			d := policy.Evaluate(in)
			if tc.reason == "" {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
			require.Contains(t, d.Checks[4].Reason, tc.reason)
		})
	}
}

// A retry storm needs the calls to some peer multiplied since the onset;
// other diagnoses do not.
func TestRetryStormNeedsMoreCalls(t *testing.T) {
	for _, tc := range []struct {
		name    string
		class   string
		ratio   *float64
		inbound *float64
		allow   bool
		retries *contracts.RetryRise
	}{
		{"calls multiplied", "retry_storm", ptr(4.5), nil, true, nil},
		{"calls at twice their rate", "retry_storm", ptr(2.0), nil, true, nil},
		{"calls just under twice", "retry_storm", ptr(1.99), nil, false, nil},
		{"calls as usual", "retry_storm", ptr(1.0), nil, false, nil},
		{"not measured", "retry_storm", nil, nil, false, nil},
		{"s5813-w011: no significant rise reported, inbound up 1.44x", "retry_storm", nil, ptr(1.442), false, nil},
		{"s5813-w011 as it was read: 3.01x calls over 1.44x requests", "retry_storm", ptr(3.013), ptr(1.442), true, nil},
		{"a bad release needs no more calls", "bad_release", ptr(1.0), nil, true, nil},
		{"calls rose with a surge of requests: the same calls per request", "retry_storm", ptr(2.2), ptr(2.09), false, nil},
		{"calls multiplied per request while requests rose a little", "retry_storm", ptr(4.5), ptr(1.3), true, nil},
		{"requests fell: the calls are not divided up", "retry_storm", ptr(2.0), ptr(0.8), true, nil},
		// Retries inside one span: no client span per attempt, the calls as usual.
		{"retries counted in a span attribute", "retry_storm", ptr(0.8), nil, true, &contracts.RetryRise{Source: "attribute", Key: "llm.retry_count", Since: 1.9, Baseline: 0.02, Ratio: 95, Events: 300}},
		{"the SDK's retry log lines", "retry_storm", nil, nil, true, &contracts.RetryRise{Source: "logs", Key: "retry log lines", Since: 2, Baseline: 0.5, Ratio: 4, Events: 80}},
		{"retries just under twice their baseline", "retry_storm", ptr(0.8), nil, false, &contracts.RetryRise{Source: "attribute", Key: "http.request.resend_count", Since: 0.199, Baseline: 0.1, Ratio: 1.99, Events: 40}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = tc.class, tc.class
			in.Evidence[0].Facts.PeakCallRatio, in.Evidence[0].Facts.TrafficRatio, in.Evidence[0].Facts.Retries = tc.ratio, tc.inbound, tc.retries
			d := policy.Evaluate(in)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
			require.Contains(t, d.Checks[4].Reason, "retry storm")
		})
	}
}

// A service whose own connection-pool spans fail, or wait far longer, since
// the onset is denied a rollback whatever deployment class is claimed: a
// pool that ran dry after a deploy (db_pool_exhaustion in every corpus) is
// the persona:marker trap of the world corpus. A healthy pool, one that
// failed as often before, or failures that are a sliver of the service's
// errors leave a bad release its rollback.
func TestPoolExhaustionDenies(t *testing.T) {
	healthy := func() *contracts.PoolWaits {
		return &contracts.PoolWaits{Spans: 900, BaselineSpans: 4000, BaselineFailed: 2, EntryErrors: 120, P95Ms: ptr(3.0), BaselineP95Ms: ptr(2.0)}
	}
	for _, tc := range []struct {
		name   string
		class  string
		pool   func(*contracts.PoolWaits) *contracts.PoolWaits
		reason string
	}{
		{"no pool spans", "bad_release", func(*contracts.PoolWaits) *contracts.PoolWaits { return nil }, ""},
		{"a healthy pool beneath a bad release", "bad_release", func(p *contracts.PoolWaits) *contracts.PoolWaits { return p }, ""},
		{"the pool ran dry after a deploy, blamed on the release", "bad_release", func(p *contracts.PoolWaits) *contracts.PoolWaits { p.Failed = 110; return p }, "failed since the onset"},
		{"the pool ran dry, blamed on a configuration release", "config_regression", func(p *contracts.PoolWaits) *contracts.PoolWaits { p.Failed = 110; return p }, "failed since the onset"},
		{"the pool ran dry, blamed on retries", "retry_storm", func(p *contracts.PoolWaits) *contracts.PoolWaits { p.Failed = 110; return p }, "failed since the onset"},
		{"three pool failures are enough when they are the errors", "bad_release", func(p *contracts.PoolWaits) *contracts.PoolWaits {
			p.Failed, p.EntryErrors = 3, 4
			return p
		}, "failed since the onset"},
		{"two pool failures are not", "bad_release", func(p *contracts.PoolWaits) *contracts.PoolWaits { p.Failed, p.EntryErrors = 2, 2; return p }, ""},
		{"pool failures a sliver of the release's errors", "bad_release", func(p *contracts.PoolWaits) *contracts.PoolWaits { p.Failed = 29; return p }, ""},
		{"the pool failed as often before the onset", "bad_release", func(p *contracts.PoolWaits) *contracts.PoolWaits {
			p.Failed, p.BaselineFailed = 100, 800
			return p
		}, ""},
		{"the waits for a connection rose fivefold past 250 ms", "bad_release", func(p *contracts.PoolWaits) *contracts.PoolWaits {
			p.P95Ms, p.BaselineP95Ms = ptr(260.0), ptr(50.0)
			return p
		}, "wait for a database connection"},
		{"the waits rose, but under 250 ms", "bad_release", func(p *contracts.PoolWaits) *contracts.PoolWaits {
			p.P95Ms, p.BaselineP95Ms = ptr(240.0), ptr(2.0)
			return p
		}, ""},
		{"the waits were long before too", "bad_release", func(p *contracts.PoolWaits) *contracts.PoolWaits {
			p.P95Ms, p.BaselineP95Ms = ptr(900.0), ptr(400.0)
			return p
		}, ""},
		{"long waits and no baseline pool spans", "bad_release", func(p *contracts.PoolWaits) *contracts.PoolWaits {
			p.P95Ms, p.BaselineP95Ms, p.BaselineSpans, p.BaselineFailed = ptr(900.0), nil, 0, 0
			return p
		}, "wait for a database connection"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = tc.class, tc.class
			in.Evidence[0].Facts.ConnectionPool = tc.pool(healthy())
			d := policy.Evaluate(in)
			dep := d.Checks[4]
			require.Equal(t, contracts.CheckDeploymentRelated, dep.Name)
			if tc.reason == "" {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
			require.Contains(t, dep.Reason, tc.reason)
			require.NotEmpty(t, dep.Inputs["pool_failed"])
		})
	}
}

// A process of the running version replaced by another of the same version
// since the onset (an OOM kill, a crash, a failed health check) denies every
// deployment class: the resource-saturation trap of the world corpus, where
// the saturation's errors are new with the release that deployed minutes
// before. Another service's restart says nothing about this one.
func TestProcessRestartDenies(t *testing.T) {
	restart := contracts.ProcessRestart{Version: "v2", OldPID: "4711", NewPID: "4980", LastSeen: tOnset.Add(4 * time.Minute), At: tOnset.Add(6 * time.Minute), GapMinutes: 2}
	for _, tc := range []struct {
		name    string
		class   string
		service string
		deny    bool
	}{
		{"a restart of the running version, blamed on the release", "bad_release", svc, true},
		{"a restart, blamed on retries", "retry_storm", svc, true},
		{"a restart, blamed on a configuration release", "config_regression", svc, true},
		{"another service restarted", "bad_release", "payments-api", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dep, denied := deniedByFacts(t, tc.class, tc.service, contracts.Facts{Restarts: []contracts.ProcessRestart{restart}})
			require.Equal(t, tc.deny, denied, "%v", dep)
			if !tc.deny {
				return
			}
			require.Contains(t, dep.Reason, "was replaced by another of the same version")
			require.Equal(t, "v2@4711->4980@"+tOnset.Add(6*time.Minute).UTC().Format(time.RFC3339), dep.Inputs["process_restarts"])
		})
	}
}

// The service's own logs naming memory, heap, GC or CPU pressure since the
// onset, far more often than before, deny every deployment class: the
// resource-saturation trap of world s6161-w019, where saturation began
// minutes after a deploy and before any restart. A few such logs, logs as
// frequent before the onset, or another service's logs leave a bad release
// its rollback.
func TestResourcePressureDenies(t *testing.T) {
	for _, tc := range []struct {
		name     string
		class    string
		service  string
		pressure *contracts.ResourcePressure
		deny     bool
	}{
		{"no pressure measured", "bad_release", svc, nil, false},
		{"no pressure logs", "bad_release", svc, &contracts.ResourcePressure{Minutes: 3, BaselineMinutes: 40}, false},
		{"GC and memory warnings since the onset, blamed on the release", "bad_release", svc,
			&contracts.ResourcePressure{Logs: 3, Minutes: 3, BaselineMinutes: 40}, true},
		{"pressure, blamed on retries", "retry_storm", svc, &contracts.ResourcePressure{Logs: 3, Minutes: 3, BaselineMinutes: 40}, true},
		{"pressure, blamed on a configuration release", "config_regression", svc, &contracts.ResourcePressure{Logs: 25, Minutes: 26, BaselineMinutes: 64}, true},
		{"one warning is not enough", "bad_release", svc, &contracts.ResourcePressure{Logs: 1, Minutes: 3, BaselineMinutes: 40}, false},
		{"two are", "bad_release", svc, &contracts.ResourcePressure{Logs: 2, Minutes: 10, BaselineMinutes: 40}, true},
		{"as frequent before the onset", "bad_release", svc, &contracts.ResourcePressure{Logs: 4, Minutes: 10, BaselineLogs: 16, BaselineMinutes: 40}, false},
		{"just under three times the baseline rate", "bad_release", svc, &contracts.ResourcePressure{Logs: 29, Minutes: 10, BaselineLogs: 40, BaselineMinutes: 40}, false},
		{"three times the baseline rate", "bad_release", svc, &contracts.ResourcePressure{Logs: 30, Minutes: 10, BaselineLogs: 40, BaselineMinutes: 40}, true},
		{"no minutes since the onset measured", "bad_release", svc, &contracts.ResourcePressure{Logs: 9}, false},
		{"another service's pressure", "bad_release", "payments-api", &contracts.ResourcePressure{Logs: 30, Minutes: 3, BaselineMinutes: 40}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dep, denied := deniedByFacts(t, tc.class, tc.service, contracts.Facts{ResourcePressure: tc.pressure})
			require.Equal(t, tc.deny, denied, "%v", dep)
			if !tc.deny {
				return
			}
			require.Contains(t, dep.Reason, "memory, heap, GC or CPU pressure")
			require.Equal(t, strconv.FormatInt(tc.pressure.Logs, 10)+"/"+strconv.Itoa(tc.pressure.Minutes)+"min", dep.Inputs["pressure_logs"])
		})
	}
}

// deniedByFacts evaluates the allowing input with the claim's class set to
// class and one more overview of service carrying facts. It returns the
// deployment_related check and whether the decision denied on it alone; any
// other outcome (allow with the check failing, another check failing) fails t.
func deniedByFacts(t *testing.T, class, service string, facts contracts.Facts) (contracts.CheckResult, bool) {
	t.Helper()
	in := allowing()
	in.Review.Best.Class, in.Review.Kept[0].Class = class, class
	in.Evidence = append(in.Evidence, contracts.EvidenceV1{ID: "ev-facts", InvestigationID: invID, Service: service,
		Tool: contracts.ToolServiceOverview, Facts: facts})
	d := policy.Evaluate(in)
	dep := d.Checks[4]
	require.Equal(t, contracts.CheckDeploymentRelated, dep.Name)
	if d.Verdict == contracts.VerdictAllow {
		return dep, false
	}
	require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
	return dep, true
}

// TestRuntimeSaturationDenies: a runtime attribute of the service's spans
// rising 1.5x or more over its baseline since the onset denies every
// deployment class; below that, another service's, or not measured, it
// does not. Red with the check removed (mutant gate.runtime_saturation).
func TestRuntimeSaturationDenies(t *testing.T) {
	heap := func(since, base float64) *contracts.RuntimeLevel {
		return &contracts.RuntimeLevel{Attribute: "jvm.memory.used", Since: since, Minutes: 9, Baseline: base, BaselineMinutes: 28}
	}
	for _, tc := range []struct {
		name    string
		class   string
		service string
		level   *contracts.RuntimeLevel
		deny    bool
	}{
		{"not measured", "bad_release", svc, nil, false},
		{"flat heap", "bad_release", svc, heap(8.1e8, 7.9e8), false},
		{"just under 1.5x", "bad_release", svc, heap(1.49e9, 1e9), false},
		{"1.5x, blamed on the release", "bad_release", svc, heap(1.5e9, 1e9), true},
		{"CPU utilization, blamed on a prompt", "prompt_regression", svc,
			&contracts.RuntimeLevel{Attribute: "process.cpu.utilization", Since: 0.93, Minutes: 10, Baseline: 0.37, BaselineMinutes: 27}, true},
		{"GC time from none, blamed on retries", "retry_storm", svc,
			&contracts.RuntimeLevel{Attribute: "jvm.gc.duration", Since: 0.3, Minutes: 5, Baseline: 0, BaselineMinutes: 20}, true},
		{"zero on both sides", "bad_release", svc, &contracts.RuntimeLevel{Attribute: "jvm.gc.duration", Minutes: 5, BaselineMinutes: 20}, false},
		{"another service's", "bad_release", "payments-api", heap(3e9, 1e9), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dep, denied := deniedByFacts(t, tc.class, tc.service, contracts.Facts{RuntimeSaturation: tc.level})
			require.Equal(t, tc.deny, denied, "%v", dep)
			if !tc.deny {
				return
			}
			require.Contains(t, dep.Reason, "runtime attribute "+tc.level.Attribute)
			require.Equal(t, tc.level.Attribute, dep.Inputs["runtime_attribute"])
		})
	}
}

// A peer failing with its own failure status whose calls rose denies every
// class when retrying its failed calls explains the rise (an outage under an
// unchanged retry policy looks so), unless the previous version's seen retry
// limit explains less than the rise (the release changed the retries).
func TestRetriedFaultDenies(t *testing.T) {
	for _, tc := range []struct {
		name, class string
		fault       contracts.RetriedFault
		allow       bool
	}{
		{"carrier outage, unchanged 3 attempts, limit unseen", "retry_storm",
			contracts.RetriedFault{Peer: "api.oceancarrier.example", CallRatio: 2.36, FailureRate: 0.77}, false},
		{"carrier outage blamed on the release", "bad_release",
			contracts.RetriedFault{Peer: "api.oceancarrier.example", CallRatio: 2.36, FailureRate: 0.77}, false},
		{"carrier outage blamed on a configuration release", "config_regression",
			contracts.RetriedFault{Peer: "api.oceancarrier.example", CallRatio: 2.36, FailureRate: 0.77}, false},
		{"carrier outage, the previous version seen giving up after 3", "retry_storm",
			contracts.RetriedFault{Peer: "api.oceancarrier.example", CallRatio: 2.36, FailureRate: 0.77, PreviousAttempts: 3}, false},
		{"every call fails", "retry_storm",
			contracts.RetriedFault{Peer: "api.oceancarrier.example", CallRatio: 3, FailureRate: 1}, false},
		{"release retries 6x on a blip, the previous version gave up after 3", "retry_storm",
			contracts.RetriedFault{Peer: "inventory", CallRatio: 3.69, FailureRate: 0.8, PreviousAttempts: 3}, true},
		{"release retries 6x on a blip, the previous limit unseen", "retry_storm",
			contracts.RetriedFault{Peer: "inventory", CallRatio: 3.69, FailureRate: 0.8}, false},
		{"release calls the peer 10x a request, a third of them failing", "bad_release",
			contracts.RetriedFault{Peer: "ratecard.pricing", CallRatio: 10, FailureRate: 0.36}, true},
		// The sandbox's facts TestRetriedFaultsPerAttempt: resends inside one
		// span, each a failed attempt (read per span, 0.28, the bound was 1.67).
		{"outage retried inside one span, 2 resends a failed span", "bad_release",
			contracts.RetriedFault{Peer: "tariff", CallRatio: 2.3, FailureRate: 0.848}, false},
		{"release calls the peer 4x a request, a few spans resent once", "bad_release",
			contracts.RetriedFault{Peer: "tariff", CallRatio: 4.5, FailureRate: 0.222}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = tc.class, tc.class
			in.Evidence[0].Facts.RetriedFaults = []contracts.RetriedFault{tc.fault}
			d := policy.Evaluate(in)
			dep := d.Checks[4]
			require.Equal(t, contracts.CheckDeploymentRelated, dep.Name)
			require.NotEmpty(t, dep.Inputs["retried_fault."+tc.fault.Peer])
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, contracts.VerdictDeny, d.Verdict)
			require.Contains(t, dep.Reason, "a failing dependency whose calls the retries multiplied")
		})
	}
}

// A queue consumer's deliveries above the surge ratio are no load when what
// its producers published stayed under it (contracts.PublishedArrivals:
// ho4-amqp-crash-progression-worker, 24.95x the deliveries, 0.98x the
// publishes); a surge of publishes stays a surge
// (ho4-trap-finale-surge-replay-indexer, 3.00x the deliveries, 5.28x), and
// a consumer whose arrivals were not read keeps its deliveries' ratio. Kills
// mutant gate.published_arrivals (the first case).
func TestPublishedArrivalsLiftTheSurge(t *testing.T) {
	arrivals := func(r float64) *contracts.PublishedArrivals {
		return &contracts.PublishedArrivals{Destinations: []string{"match.results"}, Ratio: r, PublishRatio: r, BaselinePublishes: 533, BaselineDeliveries: 531}
	}
	for _, tc := range []struct {
		name  string
		facts func(*contracts.Facts)
		allow bool
	}{
		{"deliveries 25x, publishes as before", func(f *contracts.Facts) { f.TrafficRatio, f.PublishedArrivals = ptr(24.95), arrivals(0.98) }, true},
		{"deliveries 3x, publishes 5x", func(f *contracts.Facts) { f.TrafficRatio, f.PublishedArrivals = ptr(3.0), arrivals(5.28) }, false},
		{"deliveries 3x, publishes just at the surge ratio", func(f *contracts.Facts) { f.TrafficRatio, f.PublishedArrivals = ptr(3.0), arrivals(2.5) }, false},
		{"deliveries 25x, arrivals not read", func(f *contracts.Facts) { f.TrafficRatio = ptr(24.95) }, false},
		{"publishes as before do not lift a co-regression", func(f *contracts.Facts) {
			f.TrafficRatio, f.PublishedArrivals, f.CoRegressed = ptr(24.95), arrivals(0.98), []string{"shop-worker"}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			tc.facts(&in.Evidence[0].Facts)
			// The fixture's retry storm, its calls per inbound request as
			// they were: the surge is the only alternative under test.
			in.Evidence[0].Facts.PeakCallRatio = ptr(4.5 * *in.Evidence[0].Facts.TrafficRatio)
			d := policy.Evaluate(in)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, contracts.VerdictDeny, d.Verdict)
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
		})
	}
}

// TestLoggedArrivalsLiftTheSurge: kept entry spans above the surge ratio
// are load unless the service's logged trace ids (the sandbox's
// contracts.LoggedArrivals) stayed under it; a surge of logged trace ids
// stays load, and the logs lift no co-regression. Kills mutant
// gate.logged_arrivals.
func TestLoggedArrivalsLiftTheSurge(t *testing.T) {
	logged := func(r, kept float64) *contracts.LoggedArrivals {
		return &contracts.LoggedArrivals{Ratio: r, KeptRatio: kept, BaselineLogged: 3000, BaselineKept: 300, BaselineSampled: 200, BaselineCovered: 199, Sampled: 200, Covered: 200}
	}
	for _, tc := range []struct {
		name  string
		facts func(*contracts.Facts)
		allow bool
	}{
		{"kept spans 5.5x, logged arrivals as before", func(f *contracts.Facts) { f.TrafficRatio, f.LoggedArrivals = ptr(5.5), logged(1.02, 5.5) }, true},
		{"kept spans 7x, logged arrivals 4x: a surge beyond capacity", func(f *contracts.Facts) { f.TrafficRatio, f.LoggedArrivals = ptr(7.0), logged(4.0, 7.0) }, false},
		{"kept spans 3x, logged arrivals just at the surge ratio", func(f *contracts.Facts) { f.TrafficRatio, f.LoggedArrivals = ptr(3.0), logged(2.5, 3.0) }, false},
		{"kept spans 5.5x, logs not read", func(f *contracts.Facts) { f.TrafficRatio = ptr(5.5) }, false},
		{"logged arrivals as before do not lift a co-regression", func(f *contracts.Facts) {
			f.TrafficRatio, f.LoggedArrivals, f.CoRegressed = ptr(5.5), logged(1.02, 5.5), []string{"shop-worker"}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			tc.facts(&in.Evidence[0].Facts)
			// The fixture's retry storm, its calls per inbound request as
			// they were: the surge is the only alternative under test.
			in.Evidence[0].Facts.PeakCallRatio = ptr(4.5 * *in.Evidence[0].Facts.TrafficRatio)
			d := policy.Evaluate(in)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, contracts.VerdictDeny, d.Verdict)
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
		})
	}
}
