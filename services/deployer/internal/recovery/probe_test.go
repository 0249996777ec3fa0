package recovery_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"agentk/services/deployer/internal/recovery"
	"agentk/services/deployer/internal/rollback"

	"github.com/stretchr/testify/require"
)

func TestHTTPProbe(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		failEvery uint64 // 0: never fail
		want      bool
	}{
		{name: "healthy", want: true},
		{name: "half failing", failEvery: 2, want: false},
		{name: "one in ten failing is over a 5% SLO", failEvery: 10, want: false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var n atomic.Uint64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if i := n.Add(1); c.failEvery > 0 && i%c.failEvery == 0 {
					w.WriteHeader(http.StatusInternalServerError)
				}
			}))
			t.Cleanup(srv.Close)
			ok, detail, err := recovery.HTTPProbe{URL: srv.URL, Requests: 20, MaxErrorRate: 0.05}.Recovered(context.Background(), rollback.RecoveryQuery{Service: "shop-api"})
			require.NoError(t, err)
			require.Equal(t, c.want, ok, detail)
			require.Contains(t, detail, "not telemetry")
		})
	}
}

func TestHTTPProbeUnreachableIsNotRecovered(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	ok, _, err := recovery.HTTPProbe{URL: url, Requests: 3, MaxErrorRate: 0.05}.Recovered(context.Background(), rollback.RecoveryQuery{Service: "shop-api"})
	require.NoError(t, err)
	require.False(t, ok)
}
