package e2e

import (
	"testing"

	"agentk/cmd/agentk/replay"
	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// hostsCorpus holds the incidents of the node read from a machine's
// host.name (e2e/incidents-hosts, its gen.py and README: heldout13's world
// kept 1 in 4 by trace id): an Ansible serial: 1 release failing on the one
// VM it reached, a VM failing on the old version while the new runs clean
// elsewhere, a release failing on the one pod its new job runs on (host.name
// the pod's own), and the same failure on VMs and on a canary with no
// version, the reading's known cost.
const hostsCorpus = "incidents-hosts"

// TestHostsCorpusLoads: six incidents tagged hosts, two traps, in sample.
func TestHostsCorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, hostsCorpus, "hosts", "in-sample", 6)
	require.Equal(t, 1, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}

// TestHostsCorpusReadsMachinesOnly replays every investigator on the hosts
// corpus: no bad rollback; the trap (the old version failing on one VM) is
// denied by all; the release that fails on the one VM it reached, and the
// one that fails on the one pod its new job runs on, are rolled back by the
// rules and the oracle (red with sandbox.node_host_machine: the pod read as
// a node denies it); the same failure on VMs is denied (the cost of reading
// host.name as the node, which k8s.node.name's reading shares).
func TestHostsCorpusReadsMachinesOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on the hosts corpus; skipped with -short")
	}
	outs := evalFolder(t, hostsCorpus, twinInvestigators)
	require.Len(t, outs, len(twinInvestigators)*6)
	got := map[string]map[string]replay.Outcome{}
	for _, o := range outs {
		require.Empty(t, o.Error, "%s %s", o.Investigator, o.Incident)
		if got[o.Incident] == nil {
			got[o.Incident] = map[string]replay.Outcome{}
		}
		got[o.Incident][o.Investigator] = o
		if o.Expect.Verdict == "deny" || o.Incident == "hs-leader-vm-compaction-lock-ledger" || o.Incident == "hs-canary-vm-undefined-column-portal" {
			require.Equal(t, "deny", o.Verdict, "%s %s: %s (failed %v)", o.Investigator, o.Incident, o.Diagnosis, o.FailedChecks)
		}
	}
	for _, id := range []string{"hs-serial1-first-vm-tls-ledger", "hs-leader-pod-compaction-lock-ledger"} {
		for _, inv := range []string{"rules", "persona:oracle"} {
			o := got[id][inv]
			require.Equal(t, "allow", o.Verdict, "%s %s: %s (failed %v)", inv, id, o.Diagnosis, o.FailedChecks)
		}
	}
}
