package deployer_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/fabric"
	"agentk/platform/service"
	"agentk/services/deployer"
	"agentk/services/deployer/internal/lease"
	"agentk/services/deployer/internal/testkit"

	"github.com/stretchr/testify/require"
)

// replica is one deployer of TestOneDeployerActs: its mode and the actions
// it logged as settled.
type replica struct {
	mu      sync.Mutex
	mode    string
	actions []string // action ids, in the order this replica settled them
	stop    context.CancelFunc
	deps    service.Deps
}

func (r *replica) Enabled(context.Context, slog.Level) bool { return true }
func (r *replica) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *replica) WithGroup(string) slog.Handler            { return r }

// Handle keeps the action id of every action the replica logs (natsport.Log).
func (r *replica) Handle(_ context.Context, rec slog.Record) error {
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "action_id" {
			r.mu.Lock()
			r.actions = append(r.actions, a.Value.String())
			r.mu.Unlock()
		}
		return true
	})
	return nil
}

func (r *replica) setMode(m string) {
	r.mu.Lock()
	r.mode = m
	r.mu.Unlock()
}

func (r *replica) state() (string, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mode, append([]string(nil), r.actions...)
}

// startReplica runs one dry-run deployer of the recorded incident dir on f
// with a two-second lease: renewed every 667 ms, late after 1.33 s, room
// enough for a loaded CI machine.
func startReplica(ctx context.Context, t *testing.T, f *fabric.Fabric, dir string) *replica {
	t.Helper()
	r := &replica{}
	env := map[string]string{"AGENTK_DEPLOYER_RUNTIME": "dryrun", "AGENTK_INCIDENT_DIR": dir, "AGENTK_DEPLOYER_LEASE": "2s"}
	d, err := f.Deps(ctx, envelope.RoleDeployer, service.Since(incidentNow), func(k string) string { return env[k] })
	require.NoError(t, err)
	d.Logger = slog.New(r)
	d.Mode = r.setMode
	r.deps = d
	rctx, cancel := context.WithCancel(ctx)
	r.stop = cancel
	runService(rctx, t, d, deployer.Run)
	return r
}

// leaderOf returns the one replica in leader mode, nil unless exactly one is.
func leaderOf(rs ...*replica) *replica {
	var leader *replica
	for _, r := range rs {
		if m, _ := r.state(); m == lease.ModeLeader {
			if leader != nil {
				return nil
			}
			leader = r
		}
	}
	return leader
}

// actionFor waits for the action answering approval id on the stream.
func actionFor(ctx context.Context, t *testing.T, f *fabric.Fabric, approvalID string) contracts.ActionV1 {
	t.Helper()
	return actionWhere(ctx, t, f, time.Now(), func(a contracts.ActionV1) bool { return a.ApprovalID == approvalID })
}

// TestOneDeployerActs runs two deployers on one server: exactly one holds
// the lease and answers approvals, the other reports standby; when the
// leader stops (cleanly, or cut off from the bus so that it can neither
// renew nor release), the standby takes over within about a lease and
// answers the next approval. Every approval is answered once.
func TestOneDeployerActs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		crash  bool
		within time.Duration
	}{
		{name: "leader stopped", within: 3 * time.Second},
		{name: "leader cut off from the bus", crash: true, within: 8 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
			require.NoError(t, err)
			t.Cleanup(func() { _ = f.Close() })
			dir, err := filepath.Abs(filepath.Join("testdata", "incidents", "bad-release-01"))
			require.NoError(t, err)
			a, b := startReplica(ctx, t, f, dir), startReplica(ctx, t, f, dir)
			poll(t, 5*time.Second, "one leader, one standby", func() bool {
				ma, _ := a.state()
				mb, _ := b.state()
				return leaderOf(a, b) != nil && ma != "" && mb != ""
			})
			leader, standby := a, b
			if leaderOf(a, b) == b {
				leader, standby = b, a
			}

			now := service.Since(incidentNow)
			first := publishApproval(ctx, t, f, testkit.Decision("dec-lease-1", "shop-api", now()), now())
			act := actionFor(ctx, t, f, first.ApprovalID)
			require.Equal(t, contracts.OutcomeDryRun, act.Outcome, act.Reason)
			poll(t, 5*time.Second, "the leader logs its action", func() bool { _, acts := leader.state(); return len(acts) == 1 })
			_, acts := standby.state()
			require.Empty(t, acts, "the standby acts on nothing")

			stopped := time.Now()
			if tc.crash {
				require.NoError(t, leader.deps.Bus.Close())
			} else {
				leader.stop()
			}
			poll(t, tc.within, "the standby takes over", func() bool { m, _ := standby.state(); return m == lease.ModeLeader })
			t.Logf("standby leads %s after the leader stopped", time.Since(stopped).Round(10*time.Millisecond))

			second := publishApproval(ctx, t, f, testkit.Decision("dec-lease-2", "shop-api", now()), now())
			act = actionFor(ctx, t, f, second.ApprovalID)
			require.Equal(t, contracts.OutcomeRefused, act.Outcome, "the new leader meets the first action's cooldown: %s", act.Reason)
			poll(t, 5*time.Second, "the new leader logs its action", func() bool { _, acts := standby.state(); return len(acts) == 1 })
			_, acts = leader.state()
			require.Equal(t, []string{"action." + first.ApprovalID}, acts, "the old leader answered the first approval only")
		})
	}
}
