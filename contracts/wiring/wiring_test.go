package wiring_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/contracts/wiring"
)

// TestTableIsConsistent: every row names known roles, every subject and bucket
// appears once, durable subjects have a stream and only they do, and every
// subject but the tool call has exactly one producer.
func TestTableIsConsistent(t *testing.T) {
	t.Parallel()
	known := func(roles []string) {
		for _, r := range roles {
			require.Contains(t, wiring.Roles, r)
		}
	}
	seen := map[string]bool{}
	for _, s := range wiring.Subjects {
		require.False(t, seen[s.Name], "subject %s listed twice", s.Name)
		seen[s.Name] = true
		require.Equal(t, s.Kind == wiring.Durable, s.Stream != "", s.Name)
		known(s.Producers)
		known(s.Consumers)
		if s.Name == wiring.SubjectToolCall {
			require.Len(t, s.Producers, 2)
			continue
		}
		require.Len(t, s.Producers, 1, s.Name)
	}
	for _, b := range wiring.Buckets {
		require.False(t, seen[b.Name], "bucket %s listed twice", b.Name)
		seen[b.Name] = true
		require.NotEmpty(t, b.Writers, b.Name)
		known(b.Writers)
		known(b.Readers)
	}
	known(wiring.DLQBrowsers)
}

func TestLookups(t *testing.T) {
	t.Parallel()
	tests := []struct {
		subject, producer string
		signers           []string
	}{
		{wiring.SubjectAlert, wiring.RoleIngester, []string{wiring.RoleIngester}},
		{wiring.SubjectToolCall, wiring.RoleInvestigator, []string{wiring.RoleInvestigator, wiring.RoleDeployer}},
		{wiring.SubjectFreeze, wiring.RoleBridge, []string{wiring.RoleBridge}},
		{"agentk.nothing.v1", "", nil},
	}
	for _, tc := range tests {
		require.Equal(t, tc.producer, wiring.Producer(tc.subject), tc.subject)
		for _, r := range wiring.Roles {
			require.Equal(t, slices.Contains(tc.signers, r), wiring.Produces(r, tc.subject), "%s %s", r, tc.subject)
		}
	}
	require.Equal(t, []string{wiring.SubjectAction, wiring.SubjectToolCall, wiring.SubjectLedger, wiring.SubjectCooldown}, wiring.SignedBy(wiring.RoleDeployer))
	require.Equal(t, []string{
		wiring.SubjectAlert, wiring.SubjectEvidence, wiring.SubjectReport, wiring.SubjectReview,
		wiring.SubjectDecision, wiring.SubjectApproval, wiring.SubjectAction,
	}, wiring.Durables())
}

// TestStartOrder: every role starts once; a durable subject's consumers
// downstream in the pipeline (wiring.Roles) start before its producer (the
// ones upstream, such as the reviewer reading decisions for its reports,
// close a cycle and cannot); a request subject's servers start before its
// requesters, but for the deployer, which asks only after a rollback.
func TestStartOrder(t *testing.T) {
	require.ElementsMatch(t, wiring.Roles, wiring.StartOrder)
	require.Len(t, wiring.StartOrder, len(wiring.Roles))
	start := func(r string) int { return slices.Index(wiring.StartOrder, r) }
	stage := func(r string) int { return slices.Index(wiring.Roles, r) }
	checked := 0
	for _, s := range wiring.Subjects {
		for _, c := range s.Consumers {
			for _, p := range s.Producers {
				downstream := s.Kind == wiring.Durable && stage(c) > stage(p)
				served := s.Kind == wiring.Request && p != wiring.RoleDeployer
				if downstream || served {
					require.Less(t, start(c), start(p), "%s consumes %s: it starts before %s", c, s.Name, p)
					checked++
				}
			}
		}
	}
	require.Equal(t, 6, checked, "alert, report, review, decision (bridge), approval, tool call (investigator)")
}
