package rules

import (
	"regexp"
	"slices"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
)

// Features read from the sandbox's facts about the service's calls, its
// connection pool and its releases, where the span rows name too little: a
// client span that names its peer by client.name or only in http.url (Spring's
// RestClient observation), a JDBC connection span without db.* or a pool name
// (datasource-micrometer). The sandbox measured these over every span of the
// window; the rules read its verdicts as the gate does (branch h46rules, after
// e2e/incidents-heldout5's Micrometer services read unknown, bad_release and
// retrieval_latency for a failing clearing house, a locked database and a
// failing SMS gateway).
const (
	// FeatBuildOnly: the latest deployment marker of the service changes only
	// the build metadata of a semantic version (the part after "+"): the
	// same code version, rebuilt with other settings (semver 2.0: build
	// metadata is ignored in precedence). A release that changed only what
	// the build carries is a configuration change.
	FeatBuildOnly Feature = "the release changes only the build metadata of its semantic version (deployment.marker version, previous version)"
	// FeatPoolDry: the service's own connection-pool spans failed since the
	// onset, at least contracts.MinPoolFailures of them, PoolErrorShare of
	// its failing entry spans or more, at PoolNewRate times their baseline
	// share or more (facts.connection_pool; the gate's pool-exhaustion
	// reading, contracts.PoolWaits.FailedDry).
	FeatPoolDry Feature = "the service's connection-pool spans fail since the onset: its requests wait for a database connection (facts.connection_pool)"
	// FeatPeerFault: a peer the service called before the onset at its usual
	// rate fails since the onset with its own failure status
	// (facts.dependency_faults): the peer said it failed.
	FeatPeerFault Feature = "a dependency called at its usual rate answers with its own failure since the onset (facts.dependency_faults)"
	// FeatPeerAnswered: a peer of FeatPeerFault whose failed calls do not
	// mostly say the caller gave up waiting (facts.dependency_faults less
	// facts.timed_out_dependencies): it answered, with its own failure
	// status (S3's 503 SlowDown, a throttle), so its failed calls are no
	// timeouts of a dependency that merely slowed.
	FeatPeerAnswered Feature = "a dependency answers with its own failure status, not a timeout, since the onset (facts.dependency_faults, facts.timed_out_dependencies)"
	// FeatRefused: most of the service's failing outbound spans, at least
	// OneErrorMin, say the peer refused or reset the connection or could
	// not be reached (error.type, status message): the calls failed at
	// once, no timeout of a peer that slowed.
	FeatRefused Feature = "the failing calls say the peer refused or reset the connection (error.type / status message)"
	// FeatRegionShift: since the onset a region of the service kept at most
	// contracts.RegionLostRatio of its baseline entry spans a minute (it
	// served contracts.MinRegionPerMin or more) while another rose
	// contracts.RegionGainRatio times or more over its own and took over at least half of what the first lost
	// (facts.region_traffic, cloud.region): a region failed over and its
	// load moved onto the other's processes. The gate reads the same fact
	// the same way (contracts.RegionShift) and denies a
	// deployment-class diagnosis on it.
	FeatRegionShift Feature = "the requests moved from one region to another at the onset (facts.region_traffic, cloud.region)"
	// FeatNodeConfined: since the onset the running version's errors are
	// confined to a few nodes (facts.node_traffic: k8s.node.name, else a
	// machine's host.name, never a pod's or a container's;
	// contracts.NodesConfined and its thresholds). The same version serving
	// cleanly elsewhere is not what fails: a node starved by a neighbour is.
	// The gate reads the same fact the same way, with the ledger's running
	// version where the rules take the release fact's.
	FeatNodeConfined Feature = "the running version's errors are confined to a few nodes, the same version clean on the others (facts.node_traffic: the Kubernetes node name, else a machine's host.name)"
	// FeatAttributeOnset: a shift of the service's span attributes placed
	// the onset, earlier than every error or latency departure
	// (facts.onset_attribute), and the attribute names no setting, flag
	// or variant (settingAttr: FeatFlagFlip's and FeatSettingShift's
	// reading). The gate reads the same fact: such an onset supports no
	// bad_release.
	FeatAttributeOnset Feature = "a shift of the service's span attributes placed the onset, before any error or latency departure (facts.onset_attribute)"
)

// attributeOnset returns the ids of the overviews of service whose onset
// a shift of an attribute that names no setting placed
// (FeatAttributeOnset).
func attributeOnset(service string, evidence []loop.Evidence) []string {
	var ids []string
	for _, e := range evidence {
		a := e.Facts.OnsetAttribute
		if e.Tool == contracts.ToolServiceOverview && (e.Service == "" || e.Service == service) && a != "" && !settingAttr.MatchString(a) {
			ids = appendOnce(ids, e.ID)
		}
	}
	return ids
}

// nodeConfined returns the ids of the overviews of service whose
// facts.node_traffic shows FeatNodeConfined for the version serving since
// the onset (facts.release.version; every span when none names a version),
// read as the gate reads it (contracts.NodesConfined).
func nodeConfined(service string, evidence []loop.Evidence) []string {
	var ids []string
	for _, e := range evidence {
		if e.Tool != contracts.ToolServiceOverview || e.Service != "" && e.Service != service || len(e.Facts.NodeTraffic) < 2 {
			continue
		}
		running := ""
		if e.Facts.Release != nil {
			running = e.Facts.Release.Version
		}
		if _, ok := contracts.NodesConfined(e.Facts.NodeTraffic, running); ok {
			ids = appendOnce(ids, e.ID)
		}
	}
	return ids
}

// regionShift returns the ids of the overviews of service whose
// facts.region_traffic shows FeatRegionShift, read as the gate reads it
// (contracts.RegionShift).
func regionShift(service string, evidence []loop.Evidence) []string {
	var ids []string
	for _, e := range evidence {
		if e.Tool != contracts.ToolServiceOverview || e.Service != "" && e.Service != service || len(e.Facts.RegionTraffic) < 2 {
			continue
		}
		if _, _, ok := contracts.RegionShift(e.Facts.RegionTraffic); ok {
			ids = appendOnce(ids, e.ID)
		}
	}
	return ids
}

// buildOnly reports whether next differs from prev only in semantic-version
// build metadata ("5.2.4+cfg.37" to "5.2.4+cfg.38", "4.11.0" to
// "4.11.0+cfg.2"): one of them has a build part, and the versions before it
// are equal and a semantic version (semverCore). An image tag writes "_" for
// "+" (OCI tags allow no "+").
func buildOnly(prev, next string) bool {
	core, ok := contracts.BuildMetadataOnly(prev, next)
	return ok && semverCore.MatchString(core)
}

// semverCore is a semantic version without build metadata: MAJOR.MINOR.PATCH
// and an optional pre-release, an optional leading "v". A version written
// with underscores ("v1_2_3") is no semantic version, and its parts no
// build metadata.
var semverCore = regexp.MustCompile(`^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`)

// buildOnlyRelease returns the marker ids when the latest marker m changes
// only the build metadata of its version (FeatBuildOnly).
func (o *Observations) buildOnlyRelease(m *contracts.DeploymentMarker) []string {
	if m == nil || !buildOnly(m.PreviousVersion, m.Version) {
		return nil
	}
	return slices.Clone(o.MarkerIDs)
}

// poolDry returns the ids of the service's overviews whose connection-pool
// measurement shows a pool that ran dry since the onset (FeatPoolDry), read
// as the gate reads it (contracts.PoolWaits.FailedDry).
func poolDry(service string, evidence []loop.Evidence) []string {
	var ids []string
	for _, e := range evidence {
		if e.Tool == contracts.ToolServiceOverview && (e.Service == "" || e.Service == service) && e.Facts.ConnectionPool.FailedDry() {
			ids = appendOnce(ids, e.ID)
		}
	}
	return ids
}

// peerFaults returns the ids of the service's overviews that name a
// dependency failing with its own status (FeatPeerFault).
func peerFaults(service string, evidence []loop.Evidence) []string {
	var ids []string
	for _, e := range evidence {
		if e.Tool == contracts.ToolServiceOverview && (e.Service == "" || e.Service == service) && len(e.Facts.DependencyFaults) > 0 {
			ids = appendOnce(ids, e.ID)
		}
	}
	return ids
}

// peerAnswered returns the ids of the service's overviews that name a
// dependency failing with its own status that did not time out
// (FeatPeerAnswered).
func peerAnswered(service string, evidence []loop.Evidence) []string {
	var ids []string
	for _, e := range evidence {
		f := e.Facts
		if e.Tool != contracts.ToolServiceOverview || e.Service != "" && e.Service != service {
			continue
		}
		if slices.ContainsFunc(f.DependencyFaults, func(p string) bool { return !slices.Contains(f.TimedOutDependencies, p) }) {
			ids = appendOnce(ids, e.ID)
		}
	}
	return ids
}

// otherEnvironment reports whether marker m names a deployment environment
// that the service's own spans do not run in (envs, the marker queries'
// facts.service_environments; unknown when empty): a staging or canary
// ring's release under the production service's name is not the
// production service's deployment (the gate's marker-environment check).
func otherEnvironment(m contracts.DeploymentMarker, envs []string) bool {
	return m.Environment != "" && len(envs) > 0 && !slices.Contains(envs, m.Environment)
}
