package main

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// TestCalleeReleaseBreaksTheCaller: shop-api (healthy) calls payment; with
// payment's bad release half of shop-api's /ask fail with 502, and each
// failing trace continues into payment's failing /charge span (the origin
// of the caller's failures, DESIGN.md rule 17).
func TestCalleeReleaseBreaksTheCaller(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault string
		want  map[int]int
	}{
		{name: "healthy callee", want: map[int]int{200: 10}},
		{name: "the callee's bad release", fault: "bad_release", want: map[int]int{200: 5, 502: 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pay, payExp := newTestApp(t, tc.fault, faultSet{})
			pay.service = "payment"
			srv := httptest.NewServer(pay.routes())
			t.Cleanup(srv.Close)
			shop, shopExp := newTestApp(t, "", faultSet{})
			var err error
			shop.callee, err = newCallee(srv.URL, "payment")
			require.NoError(t, err)
			require.Equal(t, tc.want, statuses(t, shop.routes(), 10))

			clients := map[trace.SpanID]bool{}
			for _, s := range shopExp.GetSpans() {
				if s.SpanKind == trace.SpanKindClient {
					require.Equal(t, "POST", s.Name)
					clients[s.SpanContext.SpanID()] = s.Status.Code == codes.Error
				}
			}
			require.Len(t, clients, 10)
			failed := 0
			for _, s := range payExp.GetSpans() {
				require.Equal(t, "POST /charge", s.Name)
				clientFailed, ok := clients[s.Parent.SpanID()]
				require.True(t, ok, "the callee's span continues the caller's trace")
				require.Equal(t, s.Status.Code == codes.Error, clientFailed)
				if clientFailed {
					failed++
				}
			}
			require.Equal(t, tc.want[502], failed)
		})
	}
}

func TestNewCallee(t *testing.T) {
	t.Parallel()
	c, err := newCallee("", "")
	require.NoError(t, err)
	require.Nil(t, c)
	c, err = newCallee("http://payment:8080", "")
	require.NoError(t, err)
	require.Equal(t, "payment", c.name)
	_, err = newCallee("payment:8080", "")
	require.ErrorContains(t, err, "CALLEE_URL")
}

// TestChargeWithoutCallee: /charge answers on any instance.
func TestChargeWithoutCallee(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t, "", faultSet{})
	rec := httptest.NewRecorder()
	a.routes().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/charge", nil))
	require.Equal(t, http.StatusOK, rec.Code)
}
