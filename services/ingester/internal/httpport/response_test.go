package httpport

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// requireEncoderBytes checks appendResponse against json.NewEncoder: the
// same bytes, or a string it leaves to writeJSON.
func requireEncoderBytes(t *testing.T, resp Response) {
	t.Helper()
	var want bytes.Buffer
	require.NoError(t, json.NewEncoder(&want).Encode(resp))
	got, ok := appendResponse(nil, resp)
	if !ok {
		return
	}
	require.Equal(t, want.String(), string(got))
}

// TestResponseIsEncoderBytes: the answer to a delivery is written as
// json.NewEncoder writes it.
func TestResponseIsEncoderBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		resp  Response
		plain bool
	}{
		{"one opened", Response{Received: 1, Alerts: []Filed{{IncidentID: "inc-shop-api-0123456789abcdef", Outcome: "opened", Service: "shop-api"}}}, true},
		{"no service", Response{Received: 2, Alerts: []Filed{{IncidentID: "inc-unscoped-1", Outcome: "test_ack"}, {IncidentID: "x", Outcome: "queued", Service: "s"}}}, true},
		{"no alerts", Response{Alerts: []Filed{}}, true},
		{"nil alerts", Response{}, true},
		{"an HTML character", Response{Received: 1, Alerts: []Filed{{IncidentID: "a<b", Outcome: "opened"}}}, false},
		{"non-ASCII", Response{Received: 1, Alerts: []Filed{{IncidentID: "a", Outcome: "opened", Service: "shоp"}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, ok := appendResponse(nil, tc.resp)
			require.Equal(t, tc.plain, ok)
			requireEncoderBytes(t, tc.resp)
		})
	}
}

// FuzzResponse: on any strings, appendResponse writes json.NewEncoder's
// bytes or leaves the response to writeJSON.
func FuzzResponse(f *testing.F) {
	f.Add(1, "inc-shop-api-1", "opened", "shop-api")
	f.Add(-3, "a\"b", "<", "\xff")
	f.Fuzz(func(t *testing.T, n int, id, outcome, service string) {
		requireEncoderBytes(t, Response{Received: n, Alerts: []Filed{{IncidentID: id, Outcome: outcome, Service: service}, {IncidentID: service, Outcome: id}}})
	})
}
