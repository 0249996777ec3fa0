package fabric_test

import (
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/topology"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
)

// designPublishes is DESIGN.md's "may publish" column, written out here on
// purpose rather than read from topology.Grants: the server must enforce the
// design, not whatever the table in code happens to say.
var designPublishes = map[string][]string{
	envelope.RoleIngester:     {contracts.SubjectAlert},
	envelope.RoleInvestigator: {contracts.SubjectReport, contracts.SubjectToolCall},
	envelope.RoleSandbox:      {contracts.SubjectEvidence},
	envelope.RoleReviewer:     {contracts.SubjectReview},
	envelope.RoleGate:         {contracts.SubjectDecision},
	envelope.RoleBridge:       {contracts.SubjectApproval},
	// Beyond DESIGN.md: the deployer verifies recovery by asking the sandbox
	// (the only SigNoz key holder) for service_overview.
	envelope.RoleDeployer: {contracts.SubjectAction, contracts.SubjectToolCall},
}

// designSubscribes is what each role may subscribe to with a core
// subscription: its own inbox, and the sandbox the tool subject it serves.
// Durable subjects are read through JetStream consumers, never subscribed.
var designSubscribes = map[string][]string{
	envelope.RoleSandbox: {contracts.SubjectToolCall},
}

var pipelineSubjects = []string{
	contracts.SubjectAlert, contracts.SubjectToolCall, contracts.SubjectEvidence, contracts.SubjectReport,
	contracts.SubjectReview, contracts.SubjectDecision, contracts.SubjectApproval, contracts.SubjectAction,
}

// canary is a subject no role may publish or subscribe to: a violation on it
// arrives after any violation of an operation sent before it, so seeing the
// canary's error first proves the earlier operation was allowed.
const canary = "agentk.canary.never"

// firstPermErr returns the first permission violation reported.
func firstPermErr(t *testing.T, errs <-chan error) error {
	t.Helper()
	select {
	case err := <-errs:
		require.ErrorIs(t, err, nats.ErrPermissionViolation)
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("no permission violation reported")
		return nil
	}
}

// TestPublishMatrix tries every role against every pipeline subject with a
// core publish: allowed exactly where DESIGN.md's table says.
func TestPublishMatrix(t *testing.T) {
	t.Parallel()
	f := start(t, t.TempDir())
	t.Cleanup(func() { require.NoError(t, f.Close()) })
	for _, role := range topology.Roles() {
		for _, subject := range pipelineSubjects {
			allowed := false
			for _, s := range designPublishes[role] {
				allowed = allowed || s == subject
			}
			name := role + " publishes " + subject
			if !allowed {
				name = role + " may not publish " + subject
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				nc, errs := rawConn(t, f, role)
				require.NoError(t, nc.Publish(subject, []byte(`{}`)))
				require.NoError(t, nc.Publish(canary, []byte(`{}`)))
				require.NoError(t, nc.Flush())
				err := firstPermErr(t, errs)
				if allowed {
					require.Contains(t, err.Error(), canary, "%s refused", subject)
				} else {
					require.Contains(t, err.Error(), `"`+subject+`"`, "%s was not refused", subject)
				}
			})
		}
	}
}

// TestSubscribeMatrix tries every role against every pipeline subject, the
// whole agentk tree, another role's inbox and its own inbox with a core
// subscription.
func TestSubscribeMatrix(t *testing.T) {
	t.Parallel()
	f := start(t, t.TempDir())
	t.Cleanup(func() { require.NoError(t, f.Close()) })
	for _, role := range topology.Roles() {
		other := envelope.RoleGate
		if role == other {
			other = envelope.RoleBridge
		}
		subjects := append(append([]string(nil), pipelineSubjects...), "agentk.>", ">", "$KV.>",
			topology.InboxPrefix(other)+".>", topology.InboxPrefix(role)+".>")
		for _, subject := range subjects {
			allowed := subject == topology.InboxPrefix(role)+".>"
			for _, s := range designSubscribes[role] {
				allowed = allowed || s == subject
			}
			verb := " may not subscribe to "
			if allowed {
				verb = " subscribes to "
			}
			t.Run(role+verb+strings.ReplaceAll(subject, ">", "GT"), func(t *testing.T) {
				t.Parallel()
				nc, errs := rawConn(t, f, role)
				_, err := nc.SubscribeSync(subject)
				require.NoError(t, err)
				_, err = nc.SubscribeSync(canary)
				require.NoError(t, err)
				require.NoError(t, nc.Flush())
				perr := firstPermErr(t, errs)
				if allowed {
					require.Contains(t, perr.Error(), canary, "subscription to %s refused", subject)
				} else {
					require.Contains(t, perr.Error(), `"`+subject+`"`, "subscription to %s was not refused", subject)
				}
			})
		}
	}
}
