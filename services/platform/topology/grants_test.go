package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	c "agentk/contracts"
	e "agentk/contracts/envelope"
	"agentk/platform/topology"
)

// TestGrantsDerivedFromTheWiringTable pins the grants the wiring table
// yields, written out by hand: a change of anyone's reach shows up here as a
// deliberate edit.
func TestGrantsDerivedFromTheWiringTable(t *testing.T) {
	t.Parallel()
	want := []topology.Grant{
		{Role: e.RoleIngester, Publish: []string{c.SubjectAlert}, Consume: []string{c.SubjectDecision}, KVWrite: []string{topology.BucketIncidents}},
		{Role: e.RoleSandbox, Publish: []string{c.SubjectEvidence}, Serve: []string{c.SubjectToolCall}, KVWrite: []string{topology.BucketEvidence}},
		{Role: e.RoleInvestigator, Publish: []string{c.SubjectReport}, Consume: []string{c.SubjectAlert}, Request: []string{c.SubjectToolCall}},
		{Role: e.RoleReviewer, Publish: []string{c.SubjectReview}, Consume: []string{c.SubjectReport, c.SubjectDecision, c.SubjectApproval, c.SubjectAction},
			KVRead: []string{topology.BucketEvidence}, KVWrite: []string{topology.BucketReports}},
		{Role: e.RoleGate, Publish: []string{c.SubjectDecision}, Consume: []string{c.SubjectReview},
			KVRead: []string{topology.BucketReleases, topology.BucketCooldown, topology.BucketFreezes, topology.BucketEvidence}},
		{Role: e.RoleBridge, Publish: []string{c.SubjectApproval}, Consume: []string{c.SubjectDecision, c.SubjectAction},
			KVRead: []string{topology.BucketIncidents, topology.BucketReports}, KVWrite: []string{topology.BucketDecisions, topology.BucketFreezes},
			ReadStreams: []string{topology.DLQStream}},
		{Role: e.RoleDeployer, Publish: []string{c.SubjectAction}, Consume: []string{c.SubjectApproval}, Request: []string{c.SubjectToolCall},
			KVRead: []string{topology.BucketIncidents, topology.BucketFreezes}, KVWrite: []string{topology.BucketReleases, topology.BucketCooldown, topology.BucketNonces, topology.BucketSpent, topology.BucketLeases}},
	}
	require.Equal(t, want, topology.Grants)
	require.Equal(t, []string{"agentk_incidents", "agentk_releases", "agentk_cooldown", "agentk_nonces", "agentk_reports", "agentk_decisions", "agentk_freezes", "agentk_spent", "agentk_leases", "agentk_evidence"}, topology.Buckets)
	require.Equal(t, 64, topology.BucketHistory(topology.BucketFreezes, 5))
	require.Equal(t, 5, topology.BucketHistory(topology.BucketReleases, 5))
	require.Equal(t, topology.Stream{Name: "AGENTK_ALERTS", Subject: c.SubjectAlert}, topology.Streams[0])
	require.Len(t, topology.Streams, 7)
}
