package mutant

// The sandbox's own guards on the MCP route and on field discovery.
const (
	// SandboxMCPAllowlist is the MCP backend's refusal to call a tool outside
	// its read-only allowlist.
	SandboxMCPAllowlist = "sandbox.mcp_allowlist"
	// SandboxTimedOutPeers is the overview's naming the failing
	// dependencies whose failed calls mostly say the caller gave up waiting
	// (facts.TimedOutPeers); without it none is named.
	SandboxTimedOutPeers = "sandbox.timed_out_peers"
	// SandboxSilentPeers is the overview's naming the failing dependencies
	// whose failed calls mostly carry no status and no text
	// (facts.SilentPeers); without it none is named.
	SandboxSilentPeers = "sandbox.silent_peers"
	// SandboxMCPFirstBlock is the MCP backend's reading of a tool result's
	// first text block alone as the payload (the official server appends
	// notes as further blocks); without it the blocks are joined.
	SandboxMCPFirstBlock = "sandbox.mcp_first_block"
	// SandboxMCPChildEnv is the stdio MCP server's environment cut down to
	// what it needs and what the operator declared; without it the whole
	// environment of the sandbox (its NATS credentials among it) is passed.
	SandboxMCPChildEnv = "sandbox.mcp_child_env"
	// SandboxExplicitBounds is every query's explicit limit and order
	// (signoz.Bounded); without it an MCP server decides them.
	SandboxExplicitBounds = "sandbox.explicit_bounds"
	// SandboxFieldsExclude is field discovery's dropping of the pipeline's
	// own service names from the values it lists.
	SandboxFieldsExclude = "sandbox.fields_exclude"
	// SandboxPooledUnrefined is the onset refinement's leaving a pooled
	// onset as it is (refined, it can move past the margins' own onset).
	SandboxPooledUnrefined = "sandbox.pooled_unrefined"
	// SandboxRefinePerTrace is the onset refinement's counting the spans
	// of one request (trace) once: without it five attempts of one quiet
	// request stand for five quiet requests and the onset moves later.
	SandboxRefinePerTrace = "sandbox.refine_per_trace"
	// SandboxSignatureRest is the signature-aware onset's check that the
	// errors of known signatures between the two onsets are no more than
	// their baseline rate gives (without it, a regression of an old
	// signature under way before a later deploy whose failures read as new
	// is moved past).
	SandboxSignatureRest = "sandbox.signature_rest"
	// SandboxOperationOnset is the overview's taking the earliest significant
	// departure of one operation (span name × kind, route, RPC method) as the
	// onset where it is earlier than the service aggregate's (or the
	// aggregate found none).
	SandboxOperationOnset = "sandbox.operation_onset"
	// SandboxOperationBonferroni is the correction of the operations'
	// departures for the number of series looked at (binomial tail at most
	// OperationAlpha / N).
	SandboxOperationBonferroni = "sandbox.operation_bonferroni"
	// SandboxRetryAttributes is the retry count's reading of span
	// attributes that count retries or attempts (without it only log lines
	// and client spans count).
	SandboxRetryAttributes = "sandbox.retry_attributes"
	// SandboxOperationSplit is the placing of an operation's onset at the
	// best split of its series (without it, stray background errors of a
	// thin series place it ahead of the real rise and of the release).
	SandboxOperationSplit = "sandbox.operation_split"
	// SandboxStatusRejections is the counting of a gRPC server span's
	// rejection (FAILED_PRECONDITION and the other codes the conventions
	// leave unset on a server span) as a failure of its operation.
	SandboxStatusRejections = "sandbox.status_rejections"
	// SandboxQualityOnset is the overview's taking an attribute's shift as
	// the onset where it is earlier than every error or latency departure.
	SandboxQualityOnset = "sandbox.quality_onset"
	// SandboxQualityBonferroni is the correction of the attributes' shifts
	// for the number of series looked at.
	SandboxQualityBonferroni = "sandbox.quality_bonferroni"
	// SandboxEpisodeSplit is the onset's looking for its whole-series split
	// only after the last earlier departure that recovered.
	SandboxEpisodeSplit = "sandbox.episode_split"
	// SandboxOperationBucketTest is the binomial test of each bucket of an
	// operation's series (Margins.BucketAlpha): one stray error in a thin
	// series is no departure.
	SandboxOperationBucketTest = "sandbox.operation_bucket_test"
	// SandboxP95RunLength is the onset's asking a p95 departure to run
	// longer than its baseline's own off buckets explain (p95RunHolds).
	SandboxP95RunLength = "sandbox.p95_run_length"
	// SandboxRetryAttempts is the counting of a client span's retry
	// attribute as attempts to its peer (the calls per peer).
	SandboxRetryAttempts = "sandbox.retry_attempts"
	// SandboxRetriedAttempts is the counting of each retry a span's retry
	// attribute counted as a failed attempt in a retried peer's failure
	// rate (RetriedFaults' per-attempt rate).
	SandboxRetriedAttempts = "sandbox.retried_attempts"
	// SandboxRuleEarliest is the overview's taking the alert rule's onset
	// only where it is earlier than the other signals' (without it, the
	// rule's later onset replaces an earlier one, and a marker between the
	// two reads as a cause).
	SandboxRuleEarliest = "sandbox.rule_earliest"
	// SandboxRetryOnset is the overview's taking the retries' onset only
	// where it is earlier than the other signals' (without it, a later
	// rise of the retries replaces an earlier onset).
	SandboxRetryOnset = "sandbox.retry_onset"
	// SandboxRetryOnsetBonferroni is the retries' onset's tests: each
	// bucket's (Margins.BucketAlpha) and the departure's significance, both
	// corrected for the number of retry series (without them, the margins
	// alone place an onset).
	SandboxRetryOnsetBonferroni = "sandbox.retry_onset_bonferroni"
	// SandboxRuleOnset is the overview's taking the alert rule's own onset
	// where it is earlier than the other signals' (without it, the rule's
	// series never moves the onset).
	SandboxRuleOnset = "sandbox.rule_onset"
	// SandboxOperationVersionBound is the bound of an operation's onset
	// moved to where its new errors' versions first served: the earliest
	// such version, and no error of a new pair before it.
	SandboxOperationVersionBound = "sandbox.operation_version_bound"
	// SandboxSignatureRestOnset is the signature-aware onset's check that
	// the rest of the series (known signatures, the p95) departs no
	// earlier than the new signatures.
	SandboxSignatureRestOnset = "sandbox.signature_rest_onset"
	// SandboxQualityFirstSeen is the check that only a value no span
	// before the split carried has its share's rise placed at the first
	// minute a span carried it (a value seen before may have begun to rise
	// in a minute with no span).
	SandboxQualityFirstSeen = "sandbox.quality_first_seen"
	// SandboxQualityShortTail is the exact small-sample test of a quality
	// shift with fewer than QualityMinMinutes minutes after it.
	SandboxQualityShortTail = "sandbox.quality_short_tail"
	// SandboxOperationWideLevel is the per-bucket test and the
	// significance test (each at half the level) of an operation's second
	// look over wider buckets.
	SandboxOperationWideLevel = "sandbox.operation_wide_level"
	// SandboxPeakCallTest is the significance test of the rise of a peer's
	// calls per inbound request before its call ratio is reported.
	SandboxPeakCallTest = "sandbox.peak_call_test"
	// SandboxRetryRiseTest is the significance test of the rise of a
	// source's retries per inbound request before it is reported.
	SandboxRetryRiseTest = "sandbox.retry_rise_test"
	// SandboxConsumerLag is the overview's measuring a queue consumer's lag
	// (producer span start to consumer span start) and what moved it.
	SandboxConsumerLag = "sandbox.consumer_lag"
	// SandboxPublishedArrivals is the calibration of a queue consumer's
	// arrivals read from its producers' spans: its deliveries in the
	// baseline must be within a factor of the publishes.
	SandboxPublishedArrivals = "sandbox.published_arrivals"
	// SandboxLoggedArrivals is the proof that a service's log records are
	// an arrivals source the sampler does not touch: they cover the kept
	// entry traces before and since the onset and outnumber them before.
	SandboxLoggedArrivals = "sandbox.logged_arrivals"
	// SandboxConsistentArrivals is the proof that a reading of the trace
	// id is the sampler's: the fastest half of the baseline's kept clean
	// traces sit low under it, beyond chance.
	SandboxConsistentArrivals = "sandbox.consistent_arrivals"
	// SandboxConsistentDependencies is the judging of a service's failing
	// and slow dependencies again within the traces a consistent sampler
	// kept by trace id alone (a tail sampler's kept calls rise with the
	// failing traces it keeps).
	SandboxConsistentDependencies = "sandbox.consistent_dependencies"
	// SandboxRedeliveries is the release comparison's leaving out the
	// messages delivered again (redelivered) since the onset.
	SandboxRedeliveries = "sandbox.redeliveries"
	// SandboxDependencyBucket is the widening, by one bucket of a sparse
	// peer's series, of how long before the service's onset a failing
	// dependency's own onset may lie.
	SandboxDependencyBucket = "sandbox.dependency_bucket"
	// SandboxPeerErrorOnset is the search for a peer's error-rate onset
	// when its series' onset was found by its latency (a peer that slowed,
	// then failed).
	SandboxPeerErrorOnset = "sandbox.peer_error_onset"
	// SandboxPeerServiceWidth is the second look at a peer's error rate
	// over buckets no wider than the service's onset's.
	SandboxPeerServiceWidth = "sandbox.peer_service_width"
	// SandboxNewCallsOldHealthy is NewCallFailures' second half: a failing
	// dependency whose failures are the release's new calls leaves the
	// failing dependencies only while the calls the service made before
	// still succeed at their usual rate (an outage at the release stays).
	SandboxNewCallsOldHealthy = "sandbox.new_calls_old_healthy"
	// SandboxCallPathKinds is the refusal of a URL path as a call key when
	// a peer's calls have too many paths to be kinds of calls (slugs,
	// search terms: an old route's outage would read as new calls).
	SandboxCallPathKinds = "sandbox.call_path_kinds"
	// SandboxConfinedOtherCalls is VersionConfined's test of the other
	// versions' calls: enough of them, failing significantly less than
	// the running version's (off: any other version's calls without a
	// failure, however few, confine the failures to the release).
	SandboxConfinedOtherCalls = "sandbox.confined_other_calls"
	// SandboxConfinedAnswerClass is the answer class of a confined
	// callee: one that answers the running version's calls with a rate
	// limit, an overload or its unavailability (429, 503, gRPC
	// UNAVAILABLE) stays a failing dependency (off: no callee is).
	SandboxConfinedAnswerClass = "sandbox.confined_answer_class"
	// SandboxPoolEntryTexts is the reading of a failed entry span whose
	// status message is a pool's exhaustion as a pool span (a pool that
	// fails before any command writes no span of its own).
	SandboxPoolEntryTexts = "sandbox.pool_entry_texts"
	// SandboxProducerCalls is the reading of a service's producer spans (a
	// message sent to a broker) as calls to a peer, beside its client
	// spans: the peers' series and the failed calls judged for the peer's
	// own failure.
	SandboxProducerCalls = "sandbox.producer_calls"
	// SandboxPeerErrorType is the reading of a failed call with no HTTP or
	// gRPC status as the peer's own failure when its error.type or status
	// message says so (a connection the peer closed, its unavailability,
	// its exhausted resources), never a timeout of the caller's.
	SandboxPeerErrorType = "sandbox.peer_error_type"
	// SandboxThrottledCalls is the reading of a failed call answered with
	// an HTTP 4xx as the peer's own failure when it, or the SDK span it was
	// sent under, says the peer throttled it (AWS's 400 throttles).
	SandboxThrottledCalls = "sandbox.throttled_calls"
	// SandboxAWSPeers is the naming of an AWS SDK span's peer by its
	// rpc.service when it names no host.
	SandboxAWSPeers = "sandbox.aws_peers"
	// SandboxGCPClientPeers is the naming of a Google Cloud client
	// library's span's peer by its gcp.client.service when it names no host.
	SandboxGCPClientPeers = "sandbox.gcp_client_peers"
	// SandboxFaultsAtOnset is the reading of a failing dependency's first
	// failed calls (the minute from the first since the onset) for the
	// peer's own failure, beside every failed call since the onset.
	SandboxFaultsAtOnset = "sandbox.faults_at_onset"
	// SandboxConfigChangeLogs is the reading of the service's logs that
	// say its configuration changed at runtime (contracts.Facts.ConfigChanges).
	SandboxConfigChangeLogs = "sandbox.config_change_logs"
	// SandboxRegionTraffic is the service's entry spans per region on both
	// sides of the onset (contracts.Facts.RegionTraffic).
	SandboxRegionTraffic = "sandbox.region_traffic"
	// SandboxNodeTraffic is the service's entry spans and errors since the
	// onset per Kubernetes node and version (contracts.Facts.NodeTraffic).
	SandboxNodeTraffic = "sandbox.node_traffic"
	// SandboxNodeHost is the reading of a machine's host.name as its node
	// where no k8s.node.name names one (contracts.Facts.NodeTraffic).
	SandboxNodeHost = "sandbox.node_host"
	// SandboxNodeHostMachine keeps host.name from standing for the node on
	// spans of a pod, a container or a function (whose host.name is its
	// own: one replica, perhaps a canary) or that no host detector's
	// attribute marks as a machine's.
	SandboxNodeHostMachine = "sandbox.node_host_machine"
	// SandboxImageTagVersions is the reading of a service's versions from
	// a fallback key (faas.version, container.image.tag) when no span names
	// service.version.
	SandboxImageTagVersions = "sandbox.image_tag_versions"
	// SandboxSelfCallsEvery is the condition that every sampled call to a
	// peer has a server span of the calling service beneath it before the
	// peer is read as the service calling itself, no dependency.
	SandboxSelfCallsEvery = "sandbox.self_calls_every"
	// SandboxQualityRelabel is the quality onset passing over a relabel (a
	// value never seen before on nearly every span since).
	SandboxQualityRelabel = "sandbox.quality_relabel"
	// SandboxQualityPlatform is the quality stage's leaving aside the
	// attributes a FaaS platform sets on every invocation (faas.*, cloud.*).
	SandboxQualityPlatform = "sandbox.quality_platform"
	// SandboxEntryAttempts is the reading of the server spans that share
	// their parent span with another (a workflow engine's attempts of one
	// activity call) as one inbound request (facts.InboundMinutes).
	SandboxEntryAttempts = "sandbox.entry_attempts"
	// SandboxBatchMessages is the reading of a batch consumer's entry spans
	// as the messages their batches carried (facts.BatchMessages).
	SandboxBatchMessages = "sandbox.batch_messages"
	// SandboxMicrometerCalls is the reading of Micrometer's HTTP client
	// observation (Spring): its client.name as the peer a call names, its
	// status and outcome as the peer's answer; and of datasource-micrometer's
	// JDBC spans' jdbc.datasource.name as the database they call.
	SandboxMicrometerCalls = "sandbox.micrometer_calls"
	// SandboxPoolTexts is the reading of a failed span whose status message
	// is a connection pool's own exhaustion (HikariCP's "Connection is not
	// available", c3p0's, DBCP's, SQLAlchemy's QueuePool's...) as a
	// connection-pool span.
	SandboxPoolTexts = "sandbox.pool_texts"
	// SandboxDatabaseThrottle is the reading of a failed call with no HTTP
	// status whose status message or error.type says a managed database
	// throttled it (Cosmos DB's "Request rate is large") as the peer's own
	// failure.
	SandboxDatabaseThrottle = "sandbox.database_throttle"
	// SandboxDatabaseAuthRefusal is the reading of a failed call with no HTTP
	// or gRPC status whose status message or error.type says the database
	// refused the caller's credential (MySQL 1045, PostgreSQL 28P01, SQL
	// Server 18456, Redis WRONGPASS) as a refused credential.
	SandboxDatabaseAuthRefusal = "sandbox.database_auth_refusal"
	// SandboxTLSCertificateRefusal is the reading of a failed call with no
	// HTTP or gRPC status whose status message or error.type says its TLS
	// handshake failed on a certificate's validity (expired, not yet
	// valid, revoked) as a refused credential.
	SandboxTLSCertificateRefusal = "sandbox.tls_certificate_refusal"
	// SandboxSentSizeOnly is the reading of only the sizes a call asks of
	// its peer (input tokens, tokens allowed, request body) as what a
	// release changed in what it sends to a slowed dependency.
	SandboxSentSizeOnly = "sandbox.sent_size_only"
	// SandboxQualityRequest is the quality stage's leaving aside the
	// parameters of a request the service sent (gen_ai.request.*, a
	// ".request." segment).
	SandboxQualityRequest = "sandbox.quality_request"
	// SandboxQualitySentSize is the quality stage's leaving aside the sizes
	// of what the service sent (facts.SentSizeKeys: input or prompt tokens).
	SandboxQualitySentSize = "sandbox.quality_sent_size"
	// SandboxQualityPromptName is the quality stage's leaving aside the
	// attributes that name the prompt sent (app.prompt.template).
	SandboxQualityPromptName = "sandbox.quality_prompt_name"
)

// Sandbox lists the sandbox's mutants and the test that kills each.
var Sandbox = []Mutant{
	{Name: SandboxMCPAllowlist, Check: "the MCP backend calls only its allowlisted read-only SigNoz tools",
		KilledBy: "test:services/sandbox:./internal/mcpbackend:TestCallRefusesToolsOutsideTheAllowlist"},
	{Name: SandboxMCPFirstBlock, Check: "the MCP backend decodes only the first text block of a tool result as SigNoz's answer",
		KilledBy: "test:services/sandbox:./internal/mcpbackend:TestCapturedResultsOfTheOfficialServer"},
	{Name: SandboxMCPChildEnv, Check: "a stdio MCP server gets only SIGNOZ_URL, the key, PATH, HOME, TMPDIR and the declared variables",
		KilledBy: "test:services/sandbox:./internal/mcpbackend:TestChildGetsOnlyTheDeclaredEnvironment"},
	{Name: SandboxExplicitBounds, Check: "every query the sandbox sends states its limit and order",
		KilledBy: "test:services/sandbox:./internal/mcpbackend:TestEvidenceFactsEqualTheDirectRoute"},
	{Name: SandboxFieldsExclude, Check: "field discovery never lists the pipeline's own service names",
		KilledBy: "test:services/sandbox:./internal/fieldtool:TestServiceValuesNeverShowThePipeline"},
	{Name: SandboxPooledUnrefined, Check: "a pooled onset is not moved later by the refinement inside its bucket",
		KilledBy: "test:services/sandbox:./internal/facts:TestRefineLeavesPooledOnsets"},
	{Name: SandboxRefinePerTrace, Check: "the onset refinement counts the spans of one request once (the earlier of per-span and per-request)",
		KilledBy: "test:services/sandbox:./internal/facts:TestRefineCountsARequestOnce"},
	{Name: SandboxSignatureRest, Check: "the signature-aware onset moves an onset later only past the known signatures' background",
		KilledBy: "test:services/sandbox:./internal/facts:TestSignatureOnsetGuards"},
	{Name: SandboxOperationOnset, Check: "a regression confined to one operation places the onset the service aggregate misses",
		KilledBy: "test:services/sandbox:./internal/facts:TestOneOperationOfThreeFailingPlacesTheOnset"},
	{Name: SandboxSlowDependencyOnset, Check: "the calls to a slow dependency place the onset where they left their own baseline before every other signal of the service",
		KilledBy: "test:services/sandbox:./internal/facts:TestSlowDependencyPlacesTheOnsetEarlier"},
	{Name: SandboxOperationBonferroni, Check: "many quiet operation series place no chance onset (Bonferroni over the series)",
		KilledBy: "test:services/sandbox:./internal/facts:TestQuietOperationsPlaceNoOnset"},
	{Name: SandboxRetryAttributes, Check: "retries counted in a span attribute (no client span per attempt) show as a retry rise",
		KilledBy: "test:services/sandbox:./internal/tools:TestRetryRiseCountsEverySource"},
	{Name: SandboxOperationSplit, Check: "stray background errors of a thin operation series do not place its onset ahead of the real rise",
		KilledBy: "test:services/sandbox:./internal/facts:TestThinOperationStrayErrorsDoNotLeadTheOnset"},
	{Name: SandboxStatusRejections, Check: "an operation whose gRPC server spans answer FAILED_PRECONDITION (status unset under the conventions) places the onset; CANCELLED and the callers' client spans do not",
		KilledBy: "test:services/sandbox:./internal/facts:TestStatusRejectionsPlaceTheOnset"},
	{Name: SandboxQualityOnset, Check: "a regression that shows only in the attributes of the service's spans (HTTP 200 throughout) places the onset",
		KilledBy: "test:services/sandbox:./internal/tools:TestQualityShiftPlacesTheOnset"},
	{Name: SandboxQualityBonferroni, Check: "attributes that only wander place no onset (Bonferroni over the series)",
		KilledBy: "test:services/sandbox:./internal/facts:TestQuietAttributesShiftNothing"},
	{Name: SandboxEpisodeSplit, Check: "an earlier episode that began and ended before the onset stays out of it (two back-to-back episodes)",
		KilledBy: "test:services/sandbox:./internal/facts:TestBaselineHoldingAnEarlierEpisode"},
	{Name: SandboxOperationBucketTest, Check: "one stray error a few minutes before a thin operation's real rise does not lead its onset",
		KilledBy: "test:services/sandbox:./internal/facts:TestThinOperationStrayErrorBeforeTheRise"},
	{Name: SandboxP95RunLength, Check: "a p95 run no longer than the baseline's own off buckets explain (a slow route's kept spans near a twentieth of a minute's) is no onset",
		KilledBy: "test:services/sandbox:./internal/facts:TestP95RunOfABimodalBaseline"},
	{Name: SandboxRetryAttempts, Check: "a client span's retry count counts as attempts to its peer (retries folded into one span multiply the calls as spans per attempt do)",
		KilledBy: "test:services/sandbox:./internal/tools:TestRetryCountIsAttemptsToThePeer"},
	{Name: SandboxRetriedAttempts, Check: "a retried peer's failure rate is per attempt: each retry a span's retry count counted is a failed attempt (an outage retried inside one span is not read under its rate)",
		KilledBy: "test:services/sandbox:./internal/facts:TestRetriedFaultsPerAttempt"},
	{Name: SandboxRuleEarliest, Check: "the alert rule's own series may move the onset earlier, never later (a stale marker between the two onsets stays after the onset)",
		KilledBy: "test:services/sandbox:./internal/tools:TestRuleOnsetEarlierNeverLater|TestAlertRuleSignalOnHandwrittenIncidents"},
	{Name: SandboxRetryOnset, Check: "the retries per inbound request may move the onset earlier, never later (a later rise of the retries leaves an earlier onset where it was)",
		KilledBy: "test:services/sandbox:./internal/facts:TestRetryOnsetEarlierNeverLater"},
	{Name: SandboxRetryOnsetBonferroni, Check: "many quiet retry series place no chance onset (each bucket's test and the departure's significance, corrected for the number of series)",
		KilledBy: "test:services/sandbox:./internal/facts:TestQuietRetrySeriesPlaceNoOnset"},
	{Name: SandboxRuleOnset, Check: "the alert rule's own series places the onset where it departs before every other signal (or they found none)",
		KilledBy: "test:services/sandbox:./internal/tools:TestRuleOnsetEarlierNeverLater"},
	{Name: SandboxOperationVersionBound, Check: "an operation's onset moves later only to where the earliest version among its new errors first served, never past an error of a new signature",
		KilledBy: "test:services/sandbox:./internal/facts:TestVersionPlacedGuards"},
	{Name: SandboxSignatureRestOnset, Check: "the signature-aware onset does not move past a latency or known-signature departure under way before the new signatures",
		KilledBy: "test:services/sandbox:./internal/facts:TestSignatureOnsetGuards"},
	{Name: SandboxQualityFirstSeen, Check: "only a value never carried before has its share's rise placed at the first minute a span carried it",
		KilledBy: "test:services/sandbox:./internal/facts:TestValueShiftNeverSeenStartsWhereFirstSeen"},
	{Name: SandboxQualityShortTail, Check: "a quality shift with only a few minutes after it counts only by an exact small-sample test (quiet series with short tails shift nothing)",
		KilledBy: "test:services/sandbox:./internal/facts:TestQuietShortTailsShiftNothing"},
	{Name: SandboxOperationWideLevel, Check: "an operation's second look over wider buckets holds the per-bucket and the significance tests at half their levels (quiet operations place no onset over both looks)",
		KilledBy: "test:services/sandbox:./internal/facts:TestQuietOperationsPlaceNoOnset"},
	{Name: SandboxPeakCallTest, Check: "a peer's call ratio is reported only when its calls per inbound request did not rise or rose significantly (a handful of sampled calls since a young onset is no retry storm)",
		KilledBy: "test:services/sandbox:./internal/facts:TestPeakCallsOnlySignificantRises"},
	{Name: SandboxRetryRiseTest, Check: "a source's retry rise is reported only when its retries per inbound request did not rise or rose significantly (a handful of retries is no retry storm)",
		KilledBy: "test:services/sandbox:./internal/facts:TestRetryRise"},
	{Name: SandboxConsumerLag, Check: "the overview of a queue consumer measures its lag (producer span start to consumer span start) and whether the arrivals or the time a message moved it",
		KilledBy: "test:services/sandbox:./internal/tools:TestOverviewMeasuresConsumerLag"},
	{Name: SandboxPublishedArrivals, Check: "a queue consumer's arrivals are read from its producers' spans only when its deliveries in the baseline were within 2x of the publishes either way (the publishes are its feed, not a shared exchange's nor a batch producer's)",
		KilledBy: "test:services/sandbox:./internal/facts:TestPublishedArrivals"},
	{Name: SandboxLoggedArrivals, Check: "a service's inbound traffic is read from its logged trace ids only when a sample of its kept entry traces in the baseline and another since the onset are 95% covered by its log records and its baseline's logs hold 1.5x the kept traces (not logs of errors only, of one instance, sampled with the traces, or missing once it fails)",
		KilledBy: "test:services/sandbox:./internal/facts:TestLoggedArrivals"},
	{Name: SandboxConsistentArrivals, Check: "a service's inbound traffic is read from the kept entry traces under a consistent sampler's reading of the trace id only when the fastest half of the baseline's kept clean traces has its median reading low beyond chance (1e-6, times the readings tried): not a sampler keeping at random or by an unknown salt",
		KilledBy: "test:services/sandbox:./internal/facts:TestConsistentArrivals"},
	{Name: SandboxConsistentDependencies, Check: "a service's failing and slow dependencies are judged again within the traces a consistent sampler kept by trace id alone (their calls at their usual rate there), where a tail sampler's kept calls rose with the failing traces it keeps",
		KilledBy: "test:services/sandbox:./internal/facts:TestConsistentPeers"},
	{Name: SandboxRedeliveries, Check: "the release comparison leaves out the deliveries flagged redelivered since the onset, of every version: a message the running version failed, delivered again to an old pod, is no failure of the old version",
		KilledBy: "test:services/sandbox:./internal/facts:TestWithoutRedeliveries"},
	{Name: SandboxDependencyBucket, Check: "a failing dependency's onset may precede the service's by the co-regression window and one bucket of its series (a sparse peer's onset is placed up to a bucket early)",
		KilledBy: "test:services/sandbox:./internal/facts:TestFailingDependencies"},
	{Name: SandboxPeerErrorOnset, Check: "a peer whose calls slowed before or as they began failing is a failing dependency: its error-rate onset is searched when its series' onset is its latency's",
		KilledBy: "test:services/sandbox:./internal/facts:TestFailingDependencySlowedFirst"},
	{Name: SandboxPeerServiceWidth, Check: "a peer whose own series, thinner than the service's, shows no error-rate onset is judged again over buckets no wider than the service's onset's, each bucket's errors unlikely under its baseline rate (binomial, 0.01): a short outage of a peer called once a request is a failing dependency",
		KilledBy: "test:services/sandbox:./internal/facts:TestFailingDependencyShortOutage"},
	{Name: SandboxNewCallsOldHealthy, Check: "a failing dependency whose failures since the onset are the running version's new calls is the release's effect only when the old calls still succeed at their usual rate, at least 30 kept, their failures not significantly above the baseline's",
		KilledBy: "test:services/sandbox:./internal/facts:TestNewCallFailuresOldCallsMustBeHealthy"},
	{Name: SandboxCallPathKinds, Check: "a URL's path (url.full, http.url; one request's ids written {id}) is a call key of a peer's calls only when they have at most 24 paths and no more than one for every five calls: a path that names requests (a slug) cannot make an old route's outage read as the release's new calls",
		KilledBy: "test:services/sandbox:./internal/facts:^TestManyPaths$"},
	{Name: SandboxConfinedOtherCalls, Check: "a failing dependency whose failures are confined to the running version's calls is the release's effect only when the other versions' calls of the same keys since the onset number at least 5 and fail significantly less (binomial, 0.01) than the running version's share",
		KilledBy: "test:services/sandbox:./internal/facts:TestVersionConfined"},
	{Name: SandboxConfinedAnswerClass, Check: "a callee whose failures are confined to the running version's calls stays a failing dependency and a shared cause when most of those calls were answered with a rate limit, an overload or its unavailability (HTTP 429, 502, 503, 504; gRPC RESOURCE_EXHAUSTED, UNAVAILABLE; a closed or refused connection)",
		KilledBy: "test:services/sandbox:./internal/tools:TestRefusedCalleeIsNoSharedCause"},
	{Name: SandboxPoolEntryTexts, Check: "a failed entry span whose status message is a connection pool's exhaustion (ADO.NET's, which fails before any command span) counts as a failed pool span",
		KilledBy: "test:services/sandbox:./internal/tools:TestPoolTextOnEntrySpans"},
	{Name: SandboxProducerCalls, Check: "a service's producer spans are calls to the broker they name, as its client spans are to their host: a broker that fails every publish is a failing dependency",
		KilledBy: "test:services/sandbox:./internal/tools:TestFailingBrokerOfProducerSpans"},
	{Name: SandboxPeerErrorType, Check: "a failed call with no HTTP or gRPC status is the peer's own failure when its error.type or status message says the peer failed (closed, refused, unavailable, out of resources), never the caller's timeout or its refused credentials",
		KilledBy: "test:services/sandbox:./internal/facts:TestDependencyFaultsWithoutStatus"},
	{Name: SandboxThrottledCalls, Check: "a failed call answered with an HTTP 4xx is the peer's own failure when it, or the failed outbound span it was sent under (an SDK's span around its attempts), says the peer throttled it (AWS's 400 throttles), never a 4xx that says nothing of throttling",
		KilledBy: "test:services/sandbox:./internal/facts:TestDependencyFaultsThrottled"},
	{Name: SandboxAWSPeers, Check: "an AWS SDK span (rpc.system aws-api) that names no host names its peer by rpc.service (DynamoDB, S3, SQS): a managed service failing or slowing is a failing or slow dependency",
		KilledBy: "test:services/sandbox:./internal/tools:TestAWSSDKPeers"},
	{Name: SandboxGCPClientPeers, Check: "a span of Google Cloud's client libraries (gcp.client.service) that names no host names its peer by gcp.client.service (spanner, storage): a managed service failing or slowing is a failing or slow dependency",
		KilledBy: "test:services/sandbox:./internal/tools:TestGCPClientPeers"},
	{Name: SandboxFaultsAtOnset, Check: "a failing dependency whose first failed calls since the onset (a minute from the first) mostly carry the peer's own failure is a dependency fault, whatever its later failures say (a failover's refused connections, then timeouts)",
		KilledBy: "test:services/sandbox:./internal/facts:TestDependencyFaultsAtOnset"},
	{Name: SandboxConfigChangeLogs, Check: "the overview reads the service's own logs (any severity) that say its configuration changed at runtime (a feature flag changed, a configuration refreshed) around the onset",
		KilledBy: "test:services/sandbox:./internal/tools:TestOverviewReadsConfigChangeLogs"},
	{Name: SandboxRegionTraffic, Check: "the overview measures the service's entry spans per region (cloud.region) since the onset over the baseline when two regions or more served",
		KilledBy: "test:services/sandbox:./internal/tools:TestOverviewMeasuresRegionTraffic"},
	{Name: SandboxNodeTraffic, Check: "the overview counts the service's entry spans and their errors since the onset per Kubernetes node (k8s.node.name) and service.version when two nodes or more served",
		KilledBy: "test:services/sandbox:./internal/tools:TestOverviewMeasuresNodeTraffic"},
	{Name: SandboxNodeHost, Check: "the overview counts the entry spans per machine (host.name) where no k8s.node.name names a node, on spans a host detector marks as a machine's (on-premises VMs, EC2 instances)",
		KilledBy: "test:services/sandbox:./internal/tools:TestOverviewMeasuresMachineTraffic"},
	{Name: SandboxNodeHostMachine, Check: "host.name stands for the node only on a machine's spans: not a pod's, a container's, an ECS task's or a function's (whose host.name names one replica), and only with a host detector's host.id, host.arch or host.type",
		KilledBy: "test:services/sandbox:./internal/tools:TestOverviewReadsNoReplicaAsANode"},
	{Name: SandboxImageTagVersions, Check: "the versions of a service whose entry spans name no service.version are read from a fallback key (faas.version, then container.image.tag): the release comparison, the version-confined onset",
		KilledBy: "test:services/sandbox:./internal/tools:TestOverviewReadsImageTagVersions|TestOverviewReadsFaaSVersions"},
	{Name: SandboxSelfCallsEvery, Check: "a peer is read as the service calling itself (grpc-gateway's loopback call into its own gRPC server), not a dependency, only when every sampled call to it (at least 5) has a server span of the calling service beneath it: a loopback address that also carries calls a mesh sidecar forwards to another service stays a dependency",
		KilledBy: "test:services/sandbox:./internal/facts:TestSelfCallPeers"},
	{Name: SandboxQualityRelabel, Check: "a quality departure that is a relabel (a value no span carried before, on 95% or more of the spans since: a template's or a build's name changed with a release) places no onset; the earliest other departure does",
		KilledBy: "test:services/sandbox:./internal/facts:TestQualityRelabelPlacesNoOnset"},
	{Name: SandboxQualityPlatform, Check: "the quality stage follows no attribute a FaaS platform sets on every invocation (faas.coldstart, faas.trigger, cloud.region: how the platform ran the function, not what it answered), so a cold-start share that moves with the platform's scaling supports no prompt or configuration regression",
		KilledBy: "test:services/sandbox:./internal/tools:TestQualityKeysLeavePlatformAttributesAside"},
	{Name: SandboxEntryAttempts, Check: "the inbound requests read from a service's entry spans count the server spans that share one parent span (a Temporal activity's attempts beneath its one StartActivity call) as one request, so retries the service runs through a workflow engine are no inbound traffic",
		KilledBy: "test:services/sandbox:./internal/facts:TestInboundMinutesCountAttemptsOnce"},
	{Name: SandboxBatchMessages, Check: "a batch consumer's inbound traffic counts the messages its batches carried (messaging.batch.message_count), not its invocations: a dead-letter queue's redrive that fills every batch is a surge, and the calls per inbound message do not read as a retry storm",
		KilledBy: "test:services/sandbox:./internal/tools:TestOverviewCountsBatchMessages"},
	{Name: SandboxTimedOutPeers, Check: "a failing dependency whose failed calls since the onset mostly say the caller gave up waiting (a timeout, a deadline) is named timed out (timed_out_dependencies)",
		KilledBy: "test:services/sandbox:./internal/facts:TestTimedOutPeers"},
	{Name: SandboxSilentPeers, Check: "a failing dependency whose failed calls since the onset mostly carry no HTTP or gRPC status and no text (no status message, no error.type: an SDK that records the error only as a span event) is named silent (silent_dependencies)",
		KilledBy: "test:services/sandbox:./internal/facts:^TestSilentPeers$"},
	{Name: SandboxMicrometerCalls, Check: "a call of Micrometer's HTTP client observation (Spring) names its peer by client.name and its answer by status and outcome (a peer that answers 503 to it is a failing dependency with its own failure); a JDBC span of datasource-micrometer names its database by jdbc.datasource.name",
		KilledBy: "test:e2e:.:^TestHeldout5TwinsAreDenied$"},
	{Name: SandboxPoolTexts, Check: "a failed span whose status message is a connection pool's own exhaustion (HikariCP, c3p0, DBCP, Tomcat JDBC, SQLAlchemy, knex, Npgsql, SqlClient, Jedis) counts as a connection-pool span",
		KilledBy: "test:e2e:.:^TestHeldout5TwinsAreDenied$"},
	{Name: SandboxDatabaseThrottle, Check: "a failed call with no HTTP status whose status message or error.type says a managed database throttled it (Cosmos DB's 429: \"Request rate is large\", RequestRateTooLarge) is the peer's own failure",
		KilledBy: "test:services/sandbox:./internal/facts:TestDependencyFaultsDatabaseThrottle"},
	{Name: SandboxDatabaseAuthRefusal, Check: "a failed call with no HTTP or gRPC status whose status message or error.type says the database refused the caller's credential (MySQL 1045, PostgreSQL 28P01, SQL Server 18456, Redis WRONGPASS or NOAUTH) refuses the credential (auth_refused_dependencies)",
		KilledBy: "test:services/sandbox:./internal/facts:TestAuthRefusedPeers"},
	{Name: SandboxTLSCertificateRefusal, Check: "a failed call with no HTTP or gRPC status whose status message or error.type says its TLS handshake failed on a certificate's validity (the peer's certificate_expired or certificate_revoked alert, x509 \"certificate has expired\", CertificateExpiredException) refuses the credential (auth_refused_dependencies)",
		KilledBy: "test:services/sandbox:./internal/facts:TestAuthRefusedPeersTLSCertificate"},
	{Name: SandboxSentSizeOnly, Check: "a release's changed ask of a slowed dependency (sent_changes) is read only on the sizes a call asks (input or prompt tokens, the tokens it allows, the request body's bytes), never on another attribute such as its temperature",
		KilledBy: "test:services/sandbox:./internal/facts:^TestSentChanges$"},
	{Name: SandboxQualityRequest, Check: "the quality stage follows no parameter of a request the service sent (an attribute with a \".request.\" segment: gen_ai.request.temperature, a client's request timeout), so a parameter that flips with the release places no onset at it",
		KilledBy: "test:e2e:.:^TestSentCorpus$"},
	{Name: SandboxQualitySentSize, Check: "the quality stage follows no size of what the service sent (input or prompt tokens, facts.SentSizeKeys), so a prompt that grew with the release places no onset at it",
		KilledBy: "test:services/sandbox:./internal/tools:^TestQualityIgnoresWhatWasSent$"},
	{Name: SandboxQualityPromptName, Check: "the quality stage follows no attribute naming the prompt the service sent (a \"prompt\" segment: app.prompt.template, desk.prompt.version), so a template that flips with a wording-only release places no onset at it",
		KilledBy: "test:e2e:.:^TestWordingReleaseTrapIsDenied$"},
}
