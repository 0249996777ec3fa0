package e2e

import (
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// heldout15 is the fifteenth held-out corpus (its README): a multiplayer
// game backend on bare-metal Kubernetes, Argo Rollouts blue-green with git
// short SHAs as versions, Elixir/Phoenix, Rust tracing-opentelemetry and a
// Node WebSocket gateway, exceptions only as span events, the collector's
// proportional sampler at 10% in one cluster. Main rolled back one of its
// traps: Redis Sentinel failing over 26 s after matchmaker's promotion,
// whose failed Redis calls said nothing (the rules' and persona:quality's
// config_regression; mutants gate.config_silent_dependency and
// sandbox.silent_peers).
const heldout15 = "incidents-heldout15"

// heldout15Allowed are the right rollbacks each investigator met on branch
// h54ho15 (its README's table): pinned so that no later change loses them
// silently. The other three right rollbacks are missed by every
// investigator (a promotion seconds into the onset's minute; the README
// says why).
var heldout15Allowed = map[string][]string{
	"gs-gateway-join-typeerror":   {"rules", "persona:oracle", "persona:marker", "persona:quality"},
	"gs-chatmod-prompt-overblock": {"persona:oracle", "persona:quality"},
}

// TestHeldout15NoBadRollback replays every investigator on the heldout15
// corpus: none may roll back a trap, the alerted service or a culprit (two
// of 48 trap replays were rolled back on main), and the right rollbacks met
// on branch h54ho15 stay met.
func TestHeldout15NoBadRollback(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on the heldout15 corpus; skipped with -short")
	}
	requireHeldoutVerdicts(t, heldout15, 13, heldout15Allowed)
}

// TestHostilePersonasOnHeldout15Corpus replays the hostile personas on the
// heldout15 corpus and asserts no bad rollback.
func TestHostilePersonasOnHeldout15Corpus(t *testing.T) {
	holdTheLineOnCorpus(t, "heldout15-hostile", heldout15)
}

// TestHeldout15CorpusLoads: the heldout15 corpus (written by its gen.py:
// Argo blue-green markers on promotion, git short SHAs, Phoenix route
// spans and Ecto query spans, tracing-opentelemetry function-path spans,
// WebSocket message spans, gRPC, Redis Streams and NATS, UTC microsecond
// timestamps) loads with the format's own loader, holds thirteen
// incidents, five rollbacks and eight traps, one with a culprit, and
// declares itself in sample (scored once before any tuning; its Redis
// failover trap was read for branch h54ho15's fix).
func TestHeldout15CorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, heldout15, "heldout15", "in-sample", 13)
	require.Equal(t, 5, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "allow" }))
	require.Equal(t, 8, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
	require.Equal(t, 1, countExpect(incs, func(e incident.Expect) bool { return e.Culprit != nil && e.Culprit.Service == "matchmaker" }))
}
