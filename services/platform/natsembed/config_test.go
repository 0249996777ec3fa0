package natsembed_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agentk/contracts/envelope"
	"agentk/platform/identity"
	"agentk/platform/natsembed"
	"agentk/platform/topology"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/require"
)

func users(t *testing.T) map[string]string {
	t.Helper()
	ids, err := identity.Ensure(t.TempDir())
	require.NoError(t, err)
	return ids.PublicKeys()
}

// The compose configuration is parsed by nats-server itself and carries the
// permissions of the table.
func TestRenderIsAValidServerConfig(t *testing.T) {
	t.Parallel()
	u := users(t)
	text, err := natsembed.Render(natsembed.ServerConfig{
		ServerName: "nats-1", Host: "0.0.0.0", Port: 4222, HTTPPort: 8222, StoreDir: "/data/jetstream",
		Users:   u,
		Cluster: &natsembed.Cluster{Name: "agentk", Port: 6222, Routes: []string{"nats://nats-2:6222", "nats://nats-3:6222"}},
	})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "nats.conf")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	opts, err := server.ProcessConfigFile(path)
	require.NoError(t, err)
	require.Equal(t, 4222, opts.Port)
	require.Equal(t, "/data/jetstream", opts.StoreDir)
	require.Len(t, opts.Routes, 2)
	require.Len(t, opts.Nkeys, len(envelope.Roles)+1)
	byKey := map[string]*server.NkeyUser{}
	for _, nu := range opts.Nkeys {
		byKey[nu.Nkey] = nu
		require.Equal(t, natsembed.Account, nu.Account.Name)
	}
	require.Nil(t, byKey[u[topology.RoleAdmin]].Permissions, "admin is unrestricted")
	for _, g := range topology.Grants {
		nu := byKey[u[g.Role]]
		require.NotNil(t, nu, g.Role)
		want, err := g.Permissions()
		require.NoError(t, err)
		require.ElementsMatch(t, want.PublishAllow, nu.Permissions.Publish.Allow, g.Role)
		require.ElementsMatch(t, want.SubscribeAllow, nu.Permissions.Subscribe.Allow, g.Role)
		require.Equal(t, want.AllowResponses, nu.Permissions.Response != nil, g.Role)
	}
}

func TestRenderReportsEveryMissingUser(t *testing.T) {
	t.Parallel()
	_, err := natsembed.Render(natsembed.ServerConfig{Users: map[string]string{}})
	require.ErrorIs(t, err, natsembed.ErrConfig)
	for _, r := range append(envelope.Roles, topology.RoleAdmin, "store dir") {
		require.Contains(t, err.Error(), r)
	}
}

func TestStartRefusesNonLoopback(t *testing.T) {
	t.Parallel()
	_, err := natsembed.Start(natsembed.Options{DataDir: t.TempDir(), Host: "0.0.0.0", Users: users(t)})
	require.ErrorIs(t, err, natsembed.ErrStart)
}

func TestStartServesOnLoopback(t *testing.T) {
	t.Parallel()
	s, err := natsembed.Start(natsembed.Options{DataDir: t.TempDir(), Users: users(t)})
	require.NoError(t, err)
	defer s.Shutdown()
	require.True(t, strings.HasPrefix(s.ClientURL(), "nats://127.0.0.1:"), s.ClientURL())
}

func TestPermissionsTable(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		role    string
		subject string
		allowed bool
	}{
		{name: "investigator reports", role: envelope.RoleInvestigator, subject: "agentk.report.v1", allowed: true},
		{name: "investigator decides", role: envelope.RoleInvestigator, subject: "agentk.decision.v1"},
		{name: "investigator under decision wildcard", role: envelope.RoleInvestigator, subject: "agentk.decision.v2"},
		{name: "investigator calls tools", role: envelope.RoleInvestigator, subject: "agentk.tool.v1", allowed: true},
		{name: "investigator pulls alerts", role: envelope.RoleInvestigator, subject: "$JS.API.CONSUMER.MSG.NEXT.AGENTK_ALERTS.investigate", allowed: true},
		{name: "investigator pulls decisions", role: envelope.RoleInvestigator, subject: "$JS.API.CONSUMER.MSG.NEXT.AGENTK_DECISIONS.x"},
		{name: "investigator deletes a stream", role: envelope.RoleInvestigator, subject: "$JS.API.STREAM.DELETE.AGENTK_ALERTS"},
		{name: "investigator dead-letters alerts", role: envelope.RoleInvestigator, subject: "agentk.dlq.agentk.alert.v1", allowed: true},
		{name: "investigator dead-letters decisions", role: envelope.RoleInvestigator, subject: "agentk.dlq.agentk.decision.v1"},
		{name: "deployer approves", role: envelope.RoleDeployer, subject: "agentk.approval.v1"},
		{name: "deployer writes cooldown", role: envelope.RoleDeployer, subject: "$KV.agentk_cooldown.api", allowed: true},
		{name: "gate writes cooldown", role: envelope.RoleGate, subject: "$KV.agentk_cooldown.api"},
		{name: "gate reads cooldown", role: envelope.RoleGate, subject: "$JS.API.DIRECT.GET.KV_agentk_cooldown.$KV.agentk_cooldown.api", allowed: true},
		{name: "bridge writes releases", role: envelope.RoleBridge, subject: "$KV.agentk_releases.api"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g, ok := topology.GrantFor(tc.role)
			require.True(t, ok)
			p, err := g.Permissions()
			require.NoError(t, err)
			require.Equal(t, tc.allowed, p.Allows(tc.subject))
		})
	}
}
