package facts_test

import (
	"fmt"
	"testing"

	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

func TestCallPath(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://ledger-svc:8080/holds/void", "/holds/void"},
		{"http://ledger-svc:8080/entries?batch=1#x", "/entries"},
		{"https://api.example.com/v1/payments/123/refunds", "/v1/payments/{id}/refunds"},
		{"https://api.example.com/v2.1/orders/9f1c2b7e-4d3a-4c8e-9a7b-1c2d3e4f5a6b", "/v2.1/orders/{id}"},
		{"http://carts/carts/7f3a9b2c1d0e4f5a/items", "/carts/{id}/items"},
		{"http://users/users/user_42/profile", "/users/{id}/profile"},
		{"http://search/products/blue-shirt", "/products/blue-shirt"},
		{"/entries/2026-10-16", "/entries/{id}"},
		{"http://host", "/"},
		{"", ""},
		{"http://[::1", ""},
	} {
		require.Equal(t, tc.want, facts.CallPath(tc.in), tc.in)
	}
}

// TestManyPaths: a peer's paths are kinds of calls only while they are few
// (at most facts.MaxCallPaths) and few against the calls (one for every
// five at most); a path per request (a slug) is refused.
func TestManyPaths(t *testing.T) {
	paths := func(n int, calls float64) map[string]*facts.PeerCall {
		out := map[string]*facts.PeerCall{}
		for i := range n {
			out[fmt.Sprint("/p/", i)] = &facts.PeerCall{BaseCalls: calls / 2, Calls: calls / 2}
		}
		return out
	}
	require.False(t, facts.ManyPaths(paths(3, 400)), "three routes of many calls")
	require.False(t, facts.ManyPaths(paths(24, 100)), "24 routes of 100 calls each")
	require.True(t, facts.ManyPaths(paths(25, 100)), "more routes than MaxCallPaths")
	require.True(t, facts.ManyPaths(paths(20, 2)), "20 paths of 2 calls each: one path per 2 calls")
	require.True(t, facts.ManyPaths(paths(1, 1)), "one call under one path says nothing about kinds")
}

// FuzzCallPath: any span's URL gives a path or "", never a query string,
// and a path read again is the same key.
func FuzzCallPath(f *testing.F) {
	for _, s := range []string{"http://ledger-svc:8080/holds/void", "/v1/payments/123?x=1", "http://[::1", "%zz", "//a//b/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		p := facts.CallPath(raw)
		if p == "" {
			return
		}
		require.NotContains(t, p, "?")
		require.Equal(t, "/", p[:1])
	})
}
