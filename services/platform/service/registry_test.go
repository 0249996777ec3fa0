package service_test

import (
	"context"
	"errors"
	"testing"

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
