package facts

import (
	"slices"
	"sort"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// Refused credentials (e2e/incidents-heldout7's
// lm7-trap-expired-token-search-api): a peer that answers a service's calls
// with 401 or 403 (gRPC UNAUTHENTICATED, PERMISSION_DENIED) refuses the
// credential the service presents. A configuration release that broke the
// credential and a credential that expired on its own answer alike, and
// nothing the peer said there (the span, the exception, the log line:
// "Response code 401 (Unauthorized)") tells them apart. What the recording
// can show is whether the running version's credential was accepted after
// that version started and before the refusals began
// (contracts.CallsSinceRelease); the gate reads it.

// httpAuthRefusals and grpcAuthRefusals are the statuses by which a peer
// refuses the caller's credential: HTTP 401, 403 and 407; gRPC
// UNAUTHENTICATED (16) and PERMISSION_DENIED (7).
var (
	httpAuthRefusals = []int{401, 403, 407}
	grpcAuthRefusals = []int{16, 7}
)

// authRefusal reports whether a failed outbound span's status refuses the
// caller's credential (httpAuthRefusals, grpcAuthRefusals).
func authRefusal(d map[string]any) bool {
	v, http, ok := statusOf(d)
	switch {
	case !ok:
		return databaseAuthRefusal(d) || tlsCertificateRefusal(d)
	case http:
		return slices.Contains(httpAuthRefusals, int(v))
	}
	return slices.Contains(grpcAuthRefusals, int(v))
}

// databaseAuthRefusalWords are how a database refuses the caller's
// credential in the status message or error.type of a client span that
// carries no HTTP or gRPC status: MySQL's and MariaDB's 1045 ("Access denied
// for user"), PostgreSQL's 28P01 ("password authentication failed"), SQL
// Server's 18456 ("Login failed for user"), Redis's WRONGPASS and NOAUTH,
// MongoDB's and SASL's "Authentication failed". A rotated password refuses
// every pod that still holds the old one exactly as a configuration release
// that shipped a wrong one would: pr12-trap-keyvault-rotation-course-portal
// (Key Vault rotated the MySQL password four minutes after course-portal's
// release, PDO answered SQLSTATE[HY000] [1045]) had the rules', the
// oracle's and persona:quality's config_regression rolled back while only
// HTTP and gRPC statuses were read as refused credentials. Matched
// lower-cased, as substrings.
var databaseAuthRefusalWords = []string{
	"[1045]", "access denied for user", "28p01", "password authentication failed", "login failed for user",
	"wrongpass", "noauth", "authentication failed",
}

// databaseAuthRefusal reports whether a failed outbound span with no HTTP or
// gRPC status says the database refused the caller's credential
// (databaseAuthRefusalWords).
func databaseAuthRefusal(d map[string]any) bool {
	if mutant.Off(mutant.SandboxDatabaseAuthRefusal) {
		return false
	}
	return saysAny(d, databaseAuthRefusalWords)
}

// tlsCertificateRefusalWords are how a TLS handshake fails on a
// certificate's validity, either side's, in the status message or
// error.type of a client span that carries no HTTP or gRPC status: the
// peer's alert refusing the caller's certificate (certificate_expired,
// certificate_revoked; OpenSSL's "sslv3 alert certificate expired") and the
// caller's own verification refusing the peer's (Go's "x509: certificate
// has expired or is not yet valid", Java's CertificateExpiredException and
// CertificateNotYetValidException, "Certificate has been revoked"). The
// certificates of a TLS connection are its credential: one that lapses on
// its own answers exactly as a configuration release that shipped a lapsed
// one would (e2e/incidents-heldout13-twins'
// pr13tw-trap-cert-expired-ratio-pricing: the certificate expired 70 s
// after pricing's last VM was upgraded; the oracle's and persona:quality's
// config_regression were rolled back while only HTTP, gRPC and database
// refusals were read). A handshake that fails for any other reason (an
// unknown CA, a protocol mismatch, a plaintext peer) is no refused
// credential. Matched lower-cased, as substrings.
var tlsCertificateRefusalWords = []string{
	"certificate_expired", "certificate expired", "certificate has expired", "certificateexpiredexception",
	"certificatenotyetvalidexception", "certificate is not yet valid", "certificate_revoked", "certificate revoked",
	"certificate has been revoked",
}

// tlsCertificateRefusal reports whether a failed outbound span with no HTTP
// or gRPC status says its TLS handshake failed on a certificate's validity
// (tlsCertificateRefusalWords).
func tlsCertificateRefusal(d map[string]any) bool {
	if mutant.Off(mutant.SandboxTLSCertificateRefusal) {
		return false
	}
	return saysAny(d, tlsCertificateRefusalWords)
}

// AuthRefusedPeers returns the peers among peers whose failed outbound spans
// of svc since the onset, in rows, number at least MinFaultCalls and more
// than half of them refuse the credential (authRefusal), in peers' order.
// Peers are named as DependencyFaults names them.
func AuthRefusedPeers(rows []signoz.RawRow, svc string, onset time.Time, peers, keys []string) []string {
	return judgeFaults(rows, svc, onset, peers, keys, authRefusal)
}

// CallsBeforeSlowing describes, for each peer of slow (dependencies that
// slowed at the onset at their usual call rate, SlowDependencies), the
// service's calls to it in every minute from the running version's first
// served minute (since) up to the onset, each with the other versions'
// entry spans that minute (others, by Unix milliseconds); FailureStart is
// the onset. A peer with no such minute is left out.
func CallsBeforeSlowing(byPeer map[string][]Minute, slow []string, since, onset time.Time, others map[int64]float64) []contracts.CallsSinceRelease {
	if since.IsZero() || onset.IsZero() {
		return nil
	}
	var out []contracts.CallsSinceRelease
	for _, p := range slow {
		ms := slices.Clone(byPeer[p])
		sort.Slice(ms, func(i, j int) bool { return ms[i].At.Before(ms[j].At) })
		c := contracts.CallsSinceRelease{Peer: p, FailureStart: onset}
		for _, m := range ms {
			if !m.At.Before(since) && m.At.Before(onset) && m.Requests > 0 {
				c.Minutes = append(c.Minutes, contracts.PeerCallMinute{At: m.At, Calls: m.Requests, OtherVersions: others[m.At.UnixMilli()]})
			}
		}
		if len(c.Minutes) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// CallsSinceRelease describes, for each peer of refused (failing
// dependencies whose failed calls refuse the credential, AuthRefusedPeers),
// the service's calls to it in every minute from the running version's
// first served minute (since, ReleaseErrors.FirstSeen) up to the peer's
// failure start, each minute with the other versions' entry spans that
// minute (others, by Unix milliseconds). The failure start is the first
// minute from since on with a failed call to the peer; no baseline is
// read, so the fact does not move with how much history precedes the
// release. A peer with no such minute is left out; minutes are written in
// time order.
func CallsSinceRelease(byPeer map[string][]Minute, refused []string, since time.Time, others map[int64]float64) []contracts.CallsSinceRelease {
	if since.IsZero() {
		return nil
	}
	var out []contracts.CallsSinceRelease
	for _, p := range refused {
		ms := slices.Clone(byPeer[p])
		sort.Slice(ms, func(i, j int) bool { return ms[i].At.Before(ms[j].At) })
		c := contracts.CallsSinceRelease{Peer: p}
		for _, m := range ms {
			if !m.At.Before(since) && m.Errors > 0 {
				c.FailureStart = m.At
				break
			}
		}
		if c.FailureStart.IsZero() {
			continue
		}
		for _, m := range ms {
			if !m.At.Before(since) && m.At.Before(c.FailureStart) && m.Requests > 0 {
				c.Minutes = append(c.Minutes, contracts.PeerCallMinute{At: m.At, Calls: m.Requests, OtherVersions: others[m.At.UnixMilli()]})
			}
		}
		if len(c.Minutes) > 0 {
			out = append(out, c)
		}
	}
	return out
}
