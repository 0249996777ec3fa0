package service_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"agentk/contracts/wiring"
	"agentk/platform/config"
	"agentk/platform/service"

	"github.com/stretchr/testify/require"
)

func TestRegistry(t *testing.T) {
	bad := errors.New("bad")
	run := func(context.Context, service.Deps) error { return nil }
	check := service.Checker(func(getenv func(string) string) (int, error) {
		if getenv("X") != "" {
			return 0, bad
		}
		return 1, nil
	})
	service.Register(service.Registration{Role: "zz-test", Config: config.Spec{Component: "zz-test"}, Check: check, Run: run})
	service.Register(service.Registration{Role: "aa-test", Check: check, Run: run})
	require.Panics(t, func() { service.Register(service.Registration{Role: "zz-test", Check: check, Run: run}) }, "a role registers once")
	require.Panics(t, func() { service.Register(service.Registration{Role: "no-run", Check: check}) })

	var roles []string
	for _, r := range service.Registered() {
		roles = append(roles, r.Role)
	}
	require.Equal(t, []string{"aa-test", "zz-test"}, roles, "sorted by role")
	r, ok := service.Lookup("zz-test")
	require.True(t, ok)
	require.Equal(t, "zz-test", r.Config.Component)
	require.NoError(t, r.Check(func(string) string { return "" }))
	require.ErrorIs(t, r.Check(func(string) string { return "1" }), bad)
	_, ok = service.Lookup("nope")
	require.False(t, ok)
}

// TestInStartOrder: consumers start before producers, which is the pipeline
// backwards; a role outside the pipeline starts after every pipeline role.
func TestInStartOrder(t *testing.T) {
	run := func(context.Context, service.Deps) error { return nil }
	check := func(func(string) string) error { return nil }
	for _, role := range []string{"mm-order-test", wiring.RoleIngester, wiring.RoleDeployer, wiring.RoleGate} {
		service.Register(service.Registration{Role: role, Check: check, Run: run})
	}
	var pipeline, others []string
	for _, r := range service.InStartOrder() {
		if slices.Contains(wiring.Roles, r.Role) {
			require.Empty(t, others, "%s starts after a role outside the pipeline", r.Role)
			pipeline = append(pipeline, r.Role)
			continue
		}
		others = append(others, r.Role)
	}
	require.Equal(t, []string{wiring.RoleDeployer, wiring.RoleGate, wiring.RoleIngester}, pipeline)
	require.Contains(t, others, "mm-order-test")
	require.True(t, slices.IsSorted(others), "%v", others)
}
