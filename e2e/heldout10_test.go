package e2e

import (
	"path/filepath"
	"testing"

	"agentk/contracts/incident"
	"agentk/e2e/worldgen"

	"github.com/stretchr/testify/require"
)

// heldout10Twins holds six harsher twins of e2e/incidents-heldout10's
// traps (its README, "Twins"): the neighbour starving the node 45 s after
// fleet-api's rollout finished, two pods of eight there, sampled 1 in 20;
// the larger payloads 35 s after telemetry-router's release; a compactor
// run 55 s after telemetry-writer's release with no earlier run in the
// history; a purge that only triples the origin's traffic; and (branch
// h50self) two where ingest-gw's loopback address 127.0.0.1, on which its
// grpc-gateway calls itself, also carries a mesh sidecar's calls to
// device-registry, which fails (or slows) by itself minutes after a
// harmless release: the loopback peer must stay a dependency
// (facts.SelfCallPeers, mutant sandbox.self_calls_every).
const heldout10Twins = "incidents-heldout10-twins"

// heldout10Traps are heldout10's trap rolled back on main (its README,
// "The bad rollbacks"): a retraining job starving one Kubernetes node
// minutes after fleet-api 6.3.1 rolled out, the same version clean on the
// other nodes (persona:marker's and persona:quality's rollbacks; mutants
// gate.node_confined, sandbox.node_traffic), and its fast twin.
//
// Branch h50self reads the versions of services that name no
// service.version from their image tags; the CronJob trap and its twin
// were held only while no version was read, and their pool timeouts then
// read as new with the release (persona:marker's and persona:quality's
// rollbacks; mutant gate.pool_signature). The sidecar twins hold the
// loopback reading.
var heldout10Traps = []string{
	"incidents-heldout10/kw10-trap-noisy-node-fleet-api",
	heldout10Twins + "/kw10-twin-noisy-node-fast-fleet-api",
	"incidents-heldout10/kw10-trap-cron-compactor-telemetry-writer",
	heldout10Twins + "/kw10-twin-compactor-close-telemetry-writer",
	heldout10Twins + "/kw10-twin-sidecar-registry-ingest-gw",
	heldout10Twins + "/kw10-twin-sidecar-registry-slow-ingest-gw",
}

// heldout10Lifts are heldout10's rollbacks that branch h50self lifted for
// persona:oracle: grpc-gateway's loopback call into its own gRPC server is
// no dependency (facts.SelfCallPeers), and the Go services' versions are
// their image tags where the release ledger agrees (facts.ImageTagVersions,
// gate.image_tag_ledger).
var heldout10Lifts = []string{
	"incidents-heldout10/kw10-grpc-retry-policy-ingest-gw",
	"incidents-heldout10/kw10-manifest-key-id-ota-svc",
	"incidents-heldout10/kw10-nil-map-crashloop-telemetry-router",
}

// TestHeldout10LiftsAreAllowed replays persona:oracle (always right) on
// the three rollbacks lifted by branch h50self: each is rolled back.
func TestHeldout10LiftsAreAllowed(t *testing.T) {
	if testing.Short() {
		t.Skip("replays persona:oracle on three heldout10 rollbacks; skipped with -short")
	}
	outs := evalDirs(t, heldout10Lifts, []string{"persona:oracle"})
	require.Len(t, outs, len(heldout10Lifts))
	for _, o := range outs {
		require.Empty(t, o.Error, "%s %s", o.Investigator, o.Incident)
		require.Equal(t, "allow", o.Verdict, "%s %s: %s denied (failed %v)", o.Investigator, o.Incident, o.Diagnosis, o.FailedChecks)
	}
}

// TestHeldout10TrapsAreDenied replays every investigator on the noisy-node
// trap and its twin, which main rolled back: none may roll back.
func TestHeldout10TrapsAreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on two heldout10 traps; skipped with -short")
	}
	outs := evalDirs(t, heldout10Traps, twinInvestigators)
	require.Len(t, outs, len(twinInvestigators)*len(heldout10Traps))
	for _, o := range outs {
		require.Empty(t, o.Error, "%s %s", o.Investigator, o.Incident)
		require.Equal(t, "deny", o.Verdict, "%s %s: %s rolled back (failed %v)", o.Investigator, o.Incident, o.Diagnosis, o.FailedChecks)
	}
}

// TestHeldout10TwinsAreDenied replays every investigator on the heldout10
// twins: none may roll back (their diagnoses are not asserted).
func TestHeldout10TwinsAreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on the heldout10 twins; skipped with -short")
	}
	requireNoneRollsBack(t, heldout10Twins, 6)
}

// TestHostilePersonasOnHeldout10Traps replays the hostile personas on the
// noisy-node trap and its twin and asserts no bad rollback.
func TestHostilePersonasOnHeldout10Traps(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the hostile personas on two heldout10 traps; skipped with -short")
	}
	holdTheLine(t, "heldout10-traps-hostile", evalDirs(t, heldout10Traps, hostilePersonas()))
}

// TestHeldout10CorpusLoads: the heldout10 corpus (a telemetry platform on
// k3s deployed by Flux, written by its gen.py: grpc-gateway with loopback
// gRPC spans, Go services without service.version, NATS JetStream
// consumers, Hono with Prisma, a collector's probabilistic sampler, -05:00
// millisecond timestamps) loads with the format's own loader, holds eleven
// incidents, five rollbacks and six traps, and declares itself in sample
// (scored once before any tuning; its noisy-node trap was read for branch
// h49ho10's fix).
func TestHeldout10CorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, "incidents-heldout10", "heldout10", "in-sample", 11)
	require.Equal(t, 5, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "allow" }))
	require.Equal(t, 6, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}

// TestHeldout10TwinsCorpusLoads: the twins load, all traps, in sample.
func TestHeldout10TwinsCorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, heldout10Twins, "heldout10", "in-sample", 6)
	require.Equal(t, len(incs), countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}

// TestRelabelWorldIsDenied replays every investigator on the fresh world
// that main rolled back (seed 491049, drawn for branch h49ho10): v23
// renamed its prompt template an hour before the alert, the answers
// degraded only at 05:51; the template's switch at the release placed the
// onset right after the marker and the rules', the oracle's and
// persona:quality's prompt_regression were rolled back (mutant
// sandbox.quality_relabel). None may roll back.
func TestRelabelWorldIsDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on one drawn world; skipped with -short")
	}
	w := worldgen.Draw(491049, 6)
	require.Equal(t, "s491049-w006-prompt-regression-assist-gw", w.ID, "worldgen no longer draws the same world")
	dir := scratchDir(t, "relabel")
	require.NoError(t, worldgen.WriteOne(dir, w))
	outs := evalDirs(t, []string{filepath.Join(dir, w.ID)}, twinInvestigators)
	require.Len(t, outs, len(twinInvestigators))
	for _, o := range outs {
		require.Empty(t, o.Error, "%s %s", o.Investigator, o.Incident)
		require.Equal(t, "deny", o.Verdict, "%s %s: %s rolled back (failed %v)", o.Investigator, o.Incident, o.Diagnosis, o.FailedChecks)
	}
}

// TestLoadShedWorldIsDenied: seed 613273's w009 (drawn by h50self, never
// tuned on) is a surge 10 minutes after fulfilment 1.21.0, read at 2.43x its
// baseline (under the gate's 2.5x), the service answering 429 "too many
// concurrent requests", new with the running version; persona:marker's
// bad_release and persona:quality's config_regression were rolled back
// (gate.load_shed).
func TestLoadShedWorldIsDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on one drawn world; skipped with -short")
	}
	w := worldgen.Draw(613273, 9)
	require.Equal(t, "s613273-w009-traffic-surge-fulfilment", w.ID, "worldgen no longer draws the same world")
	dir := scratchDir(t, "loadshed")
	require.NoError(t, worldgen.WriteOne(dir, w))
	outs := evalDirs(t, []string{filepath.Join(dir, w.ID)}, twinInvestigators)
	require.Len(t, outs, len(twinInvestigators))
	for _, o := range outs {
		require.Empty(t, o.Error, "%s %s", o.Investigator, o.Incident)
		require.Equal(t, "deny", o.Verdict, "%s %s: %s rolled back (failed %v)", o.Investigator, o.Incident, o.Diagnosis, o.FailedChecks)
	}
}
