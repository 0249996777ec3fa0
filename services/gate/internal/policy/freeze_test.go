package policy_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"
)

func freeze(scope string, active bool, expires time.Time) contracts.FreezeV1 {
	return contracts.FreezeV1{FreezeID: "fz-" + scope, Scope: scope, Active: active, Reason: "release freeze",
		By: "alice", Channel: contracts.ChannelCLI, At: tNow.Add(-time.Hour), ExpiresAt: expires}
}

func TestFreezeCheck(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		state  policy.FreezeState
		denied bool
		reason string
	}{
		{name: "nothing frozen allows"},
		{name: "service frozen denies", state: policy.FreezeState{Freezes: []contracts.FreezeV1{freeze("shop-api", true, tNow.Add(time.Hour))}},
			denied: true, reason: "freeze fz-shop-api on shop-api by alice"},
		{name: "global freeze denies", state: policy.FreezeState{Freezes: []contracts.FreezeV1{freeze(contracts.FreezeGlobal, true, tNow.Add(time.Minute))}},
			denied: true, reason: "on every service"},
		{name: "freeze expiring exactly now no longer holds", state: policy.FreezeState{Freezes: []contracts.FreezeV1{freeze("shop-api", true, tNow)}}},
		{name: "freeze expiring a second later holds", state: policy.FreezeState{Freezes: []contracts.FreezeV1{freeze("shop-api", true, tNow.Add(time.Second))}}, denied: true},
		{name: "lifted freeze allows", state: policy.FreezeState{Freezes: []contracts.FreezeV1{freeze("shop-api", false, tNow.Add(time.Hour))}}},
		{name: "another service's freeze allows", state: policy.FreezeState{Freezes: []contracts.FreezeV1{freeze("cart-api", true, tNow.Add(time.Hour))}}},
		{name: "unreadable store fails closed", state: policy.FreezeState{Err: "bad signature"}, denied: true, reason: "could not be read"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := allowing()
			in.Freezes = tc.state
			d := policy.Evaluate(in)
			c := d.Checks[len(d.Checks)-1]
			require.Equal(t, contracts.CheckFreeze, c.Name)
			if !tc.denied {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%+v", d.Checks)
				require.True(t, c.Passed)
				return
			}
			require.Equal(t, contracts.VerdictDeny, d.Verdict)
			require.Equal(t, []string{contracts.CheckFreeze}, d.FailedChecks, "the freeze alone is named")
			require.False(t, c.Passed)
			require.Contains(t, c.Reason, tc.reason)
			require.Contains(t, d.NextStep, "agentk unfreeze")
		})
	}
}

func TestShadowMode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		all      bool
		services []string
		want     bool
	}{
		{name: "off by default"},
		{name: "all", all: true, want: true},
		{name: "this service", services: []string{"cart-api", "shop-api"}, want: true},
		{name: "other services only", services: []string{"cart-api"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := allowing()
			in.Config.ShadowAll, in.Config.ShadowServices = tc.all, tc.services
			d := policy.Evaluate(in)
			require.Equal(t, tc.want, d.Shadow)
			require.Equal(t, contracts.VerdictAllow, d.Verdict, "shadow changes nothing the gate decides")
		})
	}
}
