package deployer_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/fabric"
	"agentk/platform/service"
	"agentk/services/deployer"
	"agentk/services/deployer/internal/testkit"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

var incidentNow = time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)

// TestRunDryRunOverTheFabric runs the deployer as `agentk replay` does: the
// dry-run runtime seeded from a recorded incident, a bridge-signed approval
// on the bus, a deployer-signed action back.
func TestRunDryRunOverTheFabric(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		incident string
		outcome  string
		reason   string
	}{
		{name: "dry run reports the command and the ledger's target", incident: "bad-release-01", outcome: contracts.OutcomeDryRun},
		{name: "prior action puts the service in cooldown", incident: "cooldown-01", outcome: contracts.OutcomeRefused, reason: "cooldown_active"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
			require.NoError(t, err)
			t.Cleanup(func() { _ = f.Close() })
			now := service.Since(incidentNow)
			dir, err := filepath.Abs(filepath.Join("testdata", "incidents", c.incident))
			require.NoError(t, err)
			env := map[string]string{"AGENTK_DEPLOYER_RUNTIME": "dryrun", "AGENTK_INCIDENT_DIR": dir}
			d, err := f.Deps(ctx, envelope.RoleDeployer, now, func(k string) string { return env[k] })
			require.NoError(t, err)
			runService(ctx, t, d, deployer.Run)

			a := publishApproval(ctx, t, f, testkit.Decision("dec-"+c.incident, "shop-api", now()), now())

			act := nextAction(ctx, t, f, now())
			require.Equal(t, c.outcome, act.Outcome, act.Reason)
			require.Equal(t, "action."+a.ApprovalID, act.ActionID)
			if c.reason != "" {
				require.Contains(t, act.Reason, c.reason)
				return
			}
			require.Equal(t, "agentk-demo/shop-api:v1", act.ToImage, "the target is releases.yaml's previous image")
			require.Equal(t, "agentk-demo/shop-api:v2", act.FromImage)
			require.Equal(t, []string{"-p", "shop"}, act.Command[len(act.Command)-11:len(act.Command)-9])
			require.Equal(t, []string{"up", "-d", "--force-recreate", "--no-deps", "shop-api"}, act.Command[len(act.Command)-5:])
			require.Nil(t, act.Recovered, "a dry run claims no recovery")
			require.False(t, act.ContainerVerified)
		})
	}
}

// nextAction reads the first action on the stream as an operator would.
func nextAction(ctx context.Context, t *testing.T, f *fabric.Fabric, now time.Time) contracts.ActionV1 {
	t.Helper()
	return actionWhere(ctx, t, f, now, func(contracts.ActionV1) bool { return true })
}

// actionWhere reads the actions on the stream, from the first, until one
// deployer-signed action satisfies match.
func actionWhere(ctx context.Context, t *testing.T, f *fabric.Fabric, now time.Time, match func(contracts.ActionV1) bool) contracts.ActionV1 {
	t.Helper()
	admin, err := f.Admin(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = admin.Close() })
	js := admin.JetStream()
	stream, err := js.StreamNameBySubject(ctx, contracts.SubjectAction)
	require.NoError(t, err)
	cons, err := js.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{contracts.SubjectAction}})
	require.NoError(t, err)
	for {
		msg, err := cons.Next(jetstream.FetchMaxWait(20 * time.Second))
		require.NoError(t, err, "no matching action")
		var act contracts.ActionV1
		_, err = f.Keyring().Open(msg.Data(), contracts.SubjectAction, now, &act)
		require.NoError(t, err, "the action is deployer-signed")
		if match(act) {
			return act
		}
	}
}
