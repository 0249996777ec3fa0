package facts_test

import (
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// TestAuthRefusedPeers: a peer whose failed calls since the onset mostly
// answer 401, 403 or 407 (gRPC UNAUTHENTICATED, PERMISSION_DENIED) refuses
// the caller's credential, and so does a call with no status whose text says
// the database refused it (MySQL 1045, PostgreSQL 28P01, SQL Server 18456,
// Redis WRONGPASS; mutant sandbox.database_auth_refusal); a 5xx, a 400 or a
// call with no status that says nothing of it does not
// (lm7-trap-expired-token-search-api: the partner's 401s).
func TestAuthRefusedPeers(t *testing.T) {
	t.Parallel()
	onset := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	call := func(attrs map[string]any) signoz.RawRow {
		a := map[string]any{"net.peer.name": "api.partner.example"}
		for k, v := range attrs {
			a[k] = v
		}
		d := map[string]any{"kind_string": "Client", "has_error": true,
			"resources_string": map[string]any{"service.name": "search-api"}, "attributes_string": a}
		return signoz.RawRow{Timestamp: onset.Add(time.Minute), Data: d}
	}
	peer := []string{"api.partner.example"}
	for _, tt := range []struct {
		name  string
		attrs map[string]any
		want  []string
	}{
		{"401", map[string]any{"http.status_code": 401.0}, peer},
		{"403 (stable conventions)", map[string]any{"http.response.status_code": 403.0}, peer},
		{"gRPC UNAUTHENTICATED", map[string]any{"rpc.grpc.status_code": 16.0}, peer},
		{"503", map[string]any{"http.status_code": 503.0}, nil},
		{"400", map[string]any{"http.status_code": 400.0}, nil},
		{"no status", map[string]any{"error.type": "ConnectionError"}, nil},
		// A database's refusal, with no HTTP or gRPC status (mutant
		// sandbox.database_auth_refusal; heldout12's Key Vault rotation).
		{"MySQL 1045 through PDO", map[string]any{"error.type": "PDOException", "status_message": "SQLSTATE[HY000] [1045] Access denied for user 'portal_app'@'10.244.3.17' (using password: YES)"}, peer},
		{"PostgreSQL 28P01", map[string]any{"error.type": "28P01", "status_message": "FATAL: password authentication failed for user \"app\""}, peer},
		{"SQL Server 18456", map[string]any{"status_message": "Login failed for user 'svc_reporting'."}, peer},
		{"Redis WRONGPASS", map[string]any{"error.type": "Redis::CommandError", "status_message": "WRONGPASS invalid username-password pair or user is disabled."}, peer},
		{"a database that went away is no refused credential", map[string]any{"error.type": "PDOException", "status_message": "SQLSTATE[HY000] [2002] Connection refused"}, nil},
		{"a status decides where there is one (503)", map[string]any{"http.status_code": 503.0, "status_message": "authentication failed upstream"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rows := []signoz.RawRow{call(tt.attrs), call(tt.attrs), call(tt.attrs)}
			require.Equal(t, tt.want, facts.AuthRefusedPeers(rows, "search-api", onset, peer, []string{"server.address", "net.peer.name"}))
		})
	}
}

// TestAuthRefusedPeersTLSCertificate: a TLS handshake that fails on a
// certificate's validity, either side's, with no HTTP or gRPC status,
// refuses the credential (mutant sandbox.tls_certificate_refusal;
// heldout13's expired client certificate); a handshake that fails for any
// other reason does not.
func TestAuthRefusedPeersTLSCertificate(t *testing.T) {
	t.Parallel()
	onset := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	peer := []string{"api.partner.example"}
	for _, tt := range []struct {
		name  string
		attrs map[string]any
		want  []string
	}{
		{"the peer's alert (Java)", map[string]any{"error.type": "javax.net.ssl.SSLHandshakeException", "status_message": "javax.net.ssl.SSLHandshakeException: Received fatal alert: certificate_expired"}, peer},
		{"the peer's alert (OpenSSL)", map[string]any{"status_message": "SSL_connect: sslv3 alert certificate expired"}, peer},
		{"Go's verification", map[string]any{"status_message": "tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time 2026-12-07T12:00:01Z is after 2026-12-07T12:00:00Z"}, peer},
		{"Java's verification", map[string]any{"error.type": "java.security.cert.CertificateExpiredException", "status_message": "PKIX path validation failed: java.security.cert.CertificateExpiredException: NotAfter: Mon Dec 07 09:00:00 BRT 2026"}, peer},
		{"revoked", map[string]any{"status_message": "Received fatal alert: certificate_revoked"}, peer},
		{"an unknown CA is no lapsed credential", map[string]any{"status_message": "x509: certificate signed by unknown authority"}, nil},
		{"a plaintext peer is no lapsed credential", map[string]any{"status_message": "tls: first record does not look like a TLS handshake"}, nil},
		{"a status decides where there is one (502)", map[string]any{"http.status_code": 502.0, "status_message": "upstream certificate has expired"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := map[string]any{"net.peer.name": "api.partner.example"}
			for k, v := range tt.attrs {
				a[k] = v
			}
			d := map[string]any{"kind_string": "Client", "has_error": true,
				"resources_string": map[string]any{"service.name": "pricing"}, "attributes_string": a}
			row := signoz.RawRow{Timestamp: onset.Add(time.Minute), Data: d}
			rows := []signoz.RawRow{row, row, row}
			require.Equal(t, tt.want, facts.AuthRefusedPeers(rows, "pricing", onset, peer, []string{"server.address", "net.peer.name"}))
		})
	}
}

// TestCallsSinceRelease: the minutes from the running version's first
// served minute up to the first with a failed call to the peer, each with
// the other versions' entry spans, in time order whatever the series'
// order; no baseline is read, so minutes before the release change nothing.
func TestCallsSinceRelease(t *testing.T) {
	t.Parallel()
	at := func(m int) time.Time {
		return time.Date(2026, 12, 6, 23, 50, 0, 0, time.UTC).Add(time.Duration(m) * time.Minute)
	}
	min := func(m int, calls, errs float64) facts.Minute {
		return facts.Minute{At: at(m), Requests: calls, Errors: errs}
	}
	const p = "api.partner.example"
	series := []facts.Minute{min(0, 7, 1), min(6, 4, 0), min(7, 7, 0), min(8, 13, 0), min(9, 10, 0), min(10, 2, 2), min(11, 4, 4)}
	others := map[int64]float64{at(7).UnixMilli(): 20, at(8).UnixMilli(): 5}
	want := []contracts.CallsSinceRelease{{Peer: p, FailureStart: at(10), Minutes: []contracts.PeerCallMinute{
		{At: at(7), Calls: 7, OtherVersions: 20}, {At: at(8), Calls: 13, OtherVersions: 5}, {At: at(9), Calls: 10}}}}
	require.Equal(t, want, facts.CallsSinceRelease(map[string][]facts.Minute{p: series}, []string{p}, at(7), others))
	reversed := make([]facts.Minute, len(series))
	for i, m := range series {
		reversed[len(series)-1-i] = m
	}
	require.Equal(t, want, facts.CallsSinceRelease(map[string][]facts.Minute{p: reversed}, []string{p}, at(7), others), "the series in another order")
	require.Equal(t, want, facts.CallsSinceRelease(map[string][]facts.Minute{p: series[1:]}, []string{p}, at(7), others), "less history before the release")
	require.Empty(t, facts.CallsSinceRelease(map[string][]facts.Minute{p: series}, nil, at(7), others), "no refusing peer")
	require.Empty(t, facts.CallsSinceRelease(map[string][]facts.Minute{p: series[:5]}, []string{p}, at(7), others), "no failure since the release")
}

// TestCallsBeforeSlowing: the minutes from the running version's first
// served minute up to the onset, each with the other versions' entry
// spans, whatever the series' order; the onset is the failure start.
func TestCallsBeforeSlowing(t *testing.T) {
	t.Parallel()
	at := func(m int) time.Time { return time.Date(2026, 12, 7, 14, m, 0, 0, time.UTC) }
	const p = "opensearch.example"
	series := []facts.Minute{{At: at(6), Requests: 40}, {At: at(1), Requests: 30}, {At: at(4), Requests: 38}, {At: at(3), Requests: 35}, {At: at(7), Requests: 41, Errors: 20}}
	others := map[int64]float64{at(3).UnixMilli(): 12}
	want := []contracts.CallsSinceRelease{{Peer: p, FailureStart: at(7), Minutes: []contracts.PeerCallMinute{
		{At: at(3), Calls: 35, OtherVersions: 12}, {At: at(4), Calls: 38}, {At: at(6), Calls: 40}}}}
	require.Equal(t, want, facts.CallsBeforeSlowing(map[string][]facts.Minute{p: series}, []string{p, "absent"}, at(3), at(7), others))
	require.Nil(t, facts.CallsBeforeSlowing(map[string][]facts.Minute{p: series}, []string{p}, time.Time{}, at(7), others))
}
