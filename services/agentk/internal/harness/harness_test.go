package harness

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRandHex(t *testing.T) {
	t.Parallel()
	a, b := RandHex(16), RandHex(16)
	require.Len(t, a, 32)
	require.NotEqual(t, a, b)
}

func TestServeAndFreePort(t *testing.T) {
	t.Parallel()
	port, err := FreePort()
	require.NoError(t, err)
	require.Positive(t, port)
	url, stop, err := Serve(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))
	require.NoError(t, err)
	resp, err := http.Get(url)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, "ok", string(b))
	stop()
	_, err = http.Get(url)
	require.Error(t, err, "stopped")
}

func TestPostAlert(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		status  int
		body    string
		refused string // the *Refused's text, "" when accepted
	}{
		{"accepted", http.StatusAccepted, "", ""},
		{"refused with the ingester's reason", http.StatusUnauthorized, "bad token\n", "401 Unauthorized: bad token"},
		{"refused, no body", http.StatusBadRequest, "", "400 Bad Request: "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer tok" || r.Header.Get("Content-Type") != "application/json" {
					http.Error(w, "headers", http.StatusTeapot)
					return
				}
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			status, err := PostAlert(context.Background(), srv.URL, "tok", []byte(`{}`))
			var refused *Refused
			if tc.refused == "" {
				require.NoError(t, err)
				require.Equal(t, "202 Accepted", status)
				return
			}
			require.True(t, errors.As(err, &refused), "%v", err)
			require.Equal(t, tc.refused, refused.Error())
		})
	}
	_, err := PostAlert(context.Background(), "http://127.0.0.1:1", "tok", nil)
	var refused *Refused
	require.Error(t, err)
	require.False(t, errors.As(err, &refused), "unreachable is not a refusal")
}

func TestMarkAndButtonName(t *testing.T) {
	t.Parallel()
	require.Equal(t, "pass", Mark(true))
	require.Equal(t, "FAIL", Mark(false))
	require.Equal(t, "approve", ButtonName("agentk_approve"))
}
