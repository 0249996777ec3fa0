package health_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"agentk/platform/health"

	"github.com/stretchr/testify/require"
)

func get(t *testing.T, h http.Handler, path string) int {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code
}

func TestChecker(t *testing.T) {
	t.Parallel()
	var up atomic.Bool
	c := health.New("gate", up.Load)
	h := c.Handler()
	cases := []struct {
		name      string
		ready, up bool
		wantReady int
	}{
		{name: "starting", wantReady: 503},
		{name: "ready but bus down", ready: true, wantReady: 503},
		{name: "bus up but not ready", up: true, wantReady: 503},
		{name: "ready and bus up", ready: true, up: true, wantReady: 200},
	}
	for _, tc := range cases {
		if tc.ready {
			c.Ready()
		} else {
			c.NotReady()
		}
		up.Store(tc.up)
		require.Equal(t, 200, get(t, h, "/healthz"), tc.name)
		require.Equal(t, tc.wantReady, get(t, h, "/readyz"), tc.name)
	}
}

func TestMuxMountsEachService(t *testing.T) {
	t.Parallel()
	m := health.NewMux()
	gate := m.Add(health.New("gate", nil))
	bridge := m.Add(health.New("bridge", nil))
	require.Equal(t, 503, get(t, m, "/readyz"))
	gate.Ready()
	require.Equal(t, 200, get(t, m, "/gate/readyz"))
	require.Equal(t, 503, get(t, m, "/bridge/readyz"))
	require.Equal(t, 503, get(t, m, "/readyz"), "process ready only when every service is")
	bridge.Ready()
	require.Equal(t, 200, get(t, m, "/readyz"))
	require.Equal(t, 200, get(t, m, "/bridge/healthz"))
	require.Equal(t, 404, get(t, m, "/nope/readyz"))
	require.Panics(t, func() { m.Add(health.New("gate", nil)) })
}

func TestFailingDependencyMakesNotReady(t *testing.T) {
	t.Parallel()
	c := health.New("bridge", nil)
	c.Ready()
	require.True(t, c.Status().Ready)
	c.Dependency("slack", errors.New("auth.test: invalid_auth"))
	st := c.Status()
	require.False(t, st.Ready)
	require.Equal(t, map[string]string{"slack": "auth.test: invalid_auth"}, st.Failing)
	rec := httptest.NewRecorder()
	c.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	require.Contains(t, rec.Body.String(), "invalid_auth")
	c.Dependency("slack", nil)
	require.True(t, c.Status().Ready)
	require.Empty(t, c.Status().Failing)
}

// TestModeIsShownAndLeavesReadiness: a standby is ready (it takes over
// without a restart) and says so in the /readyz body.
func TestModeIsShownAndLeavesReadiness(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, mode string
		wantBody   string
	}{
		{name: "no mode", mode: "", wantBody: `{"service":"deployer","ready":true,"started":true,"bus_connected":true}`},
		{name: "standby", mode: "standby", wantBody: `{"service":"deployer","ready":true,"started":true,"bus_connected":true,"mode":"standby"}`},
		{name: "leader", mode: "leader", wantBody: `{"service":"deployer","ready":true,"started":true,"bus_connected":true,"mode":"leader"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := health.New("deployer", nil)
			c.Ready()
			c.Mode(tc.mode)
			rec := httptest.NewRecorder()
			c.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
			require.Equal(t, 200, rec.Code)
			require.JSONEq(t, tc.wantBody, rec.Body.String())
		})
	}
}

// TestReasonNamesTheCause: a not-ready status says why, every cause at once,
// in a fixed order; a ready one says nothing.
func TestReasonNamesTheCause(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    health.Status
		want string
	}{
		{name: "ready", s: health.Status{Ready: true, Started: true, Connected: true}, want: ""},
		{name: "failing dependencies, sorted", s: health.Status{Started: true, Connected: true,
			Failing: map[string]string{"slack": "invalid_auth", "signoz": "401 Unauthorized"}},
			want: "signoz: 401 Unauthorized; slack: invalid_auth"},
		{name: "bus down", s: health.Status{Started: true}, want: "not connected to NATS"},
		{name: "starting", s: health.Status{Connected: true}, want: "not started yet"},
		{name: "stopped", s: health.Status{Connected: true, Restarts: 2, LastError: "router stopped"}, want: "stopped: router stopped"},
		{name: "everything", s: health.Status{Failing: map[string]string{"signoz": "down"}},
			want: "signoz: down; not connected to NATS; not started yet"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, tc.s.Reason())
		})
	}
}
