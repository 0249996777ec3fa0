package policy_test

import (
	"testing"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"

	"github.com/stretchr/testify/require"
)

// TestImageTagReleaseNeedsLedger: a release comparison read from image
// tags (a service whose spans name no service.version) counts only where
// the release ledger's running release is that tag, by version or image;
// otherwise the checks that need the comparison fail closed.
func TestImageTagReleaseNeedsLedger(t *testing.T) {
	for _, tc := range []struct {
		name, version, ledgerVersion, ledgerImage string
		allow                                     bool
	}{
		{"the ledger runs that version", "v2", "v2", "agentk-demo/shop-api:v2", true},
		{"the ledger's image has that tag", "2.4.1", "v2", "agentk-demo/shop-api:2.4.1", true},
		{"a mutable tag", "latest", "v2", "agentk-demo/shop-api:v2", false},
		{"a sidecar's image", "1.29.3", "v2", "agentk-demo/shop-api:v2", false},
		{"the previous release's tag", "v1", "v2", "agentk-demo/shop-api:v2", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			r := goodRelease()
			r.Version, r.VersionKey = tc.version, "container.image.tag"
			in.Evidence[0].Facts.Release = r
			rs := in.Ledger.Ledger.Releases
			rs[len(rs)-1].Version, rs[len(rs)-1].Image = tc.ledgerVersion, tc.ledgerImage
			d := policy.Evaluate(in)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks, "%v", d.Checks)
			require.Contains(t, d.Checks[4].Reason, "no evidence compared the errors of")
		})
	}
	// Read from service.version, the ledger is not asked.
	in := allowing()
	in.Evidence[0].Facts.Release.Version = "v2"
	require.Equal(t, contracts.VerdictAllow, policy.Evaluate(in).Verdict)
}

// TestFaaSVersionReleaseNeedsLedger: a release comparison read from
// faas.version (heldout11's Python and Java Lambda functions, "42") counts
// only where the release ledger's running release is that version: by its
// version, or as the whole last ':' part of its image (the version's ARN);
// a version the ledger does not run, a part of its number, the alias or
// the unpublished $LATEST buy no rollback, and neither does a key that is
// no fallback version key.
func TestFaaSVersionReleaseNeedsLedger(t *testing.T) {
	const arn = "arn:aws:lambda:ap-south-1:482113907561:function:"
	for _, tc := range []struct {
		name, key, version, ledgerVersion, ledgerImage string
		allow                                          bool
	}{
		{"the ledger runs that version", "faas.version", "v2", "v2", arn + "booking-fn:42", true},
		{"the ledger's ARN ends in that version", "faas.version", "58", "v2", arn + "locker-api:58", true},
		{"the previous version", "faas.version", "41", "v2", arn + "booking-fn:42", false},
		{"a part of the ARN's version", "faas.version", "7", "v2", arn + "locker-api:57", false},
		{"the function's name and version", "faas.version", "locker-api:57", "v2", arn + "locker-api:57", false},
		{"the unpublished version", "faas.version", "$LATEST", "v2", arn + "booking-fn:42", false},
		{"the alias", "faas.version", "live", "v2", arn + "booking-fn:42", false},
		{"no fallback key", "faas.name", "58", "v2", arn + "locker-api:58", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			r := goodRelease()
			r.Version, r.VersionKey = tc.version, tc.key
			in.Evidence[0].Facts.Release = r
			rs := in.Ledger.Ledger.Releases
			rs[len(rs)-1].Version, rs[len(rs)-1].Image = tc.ledgerVersion, tc.ledgerImage
			d := policy.Evaluate(in)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks, "%v", d.Checks)
			require.Contains(t, d.Checks[4].Reason, "no evidence compared the errors of")
		})
	}
}

// TestPoolSignatureDenies: most of the running version's errors carrying a
// new status that says a connection pool gave out deny every deployment
// class, as the pool's own failing spans do.
func TestPoolSignatureDenies(t *testing.T) {
	for _, tc := range []struct {
		name, sig string
		allow     bool
	}{
		{"pgxpool", "failed to acquire connection: context deadline exceeded (pgxpool: # of # in use)", false},
		{"HikariCP", "HikariPool-# - Connection is not available, request timed out after #ms.", false},
		{"Prisma", "Timed out fetching a new connection from the connection pool. (Current connection pool timeout: #, connection limit: #)", false},
		{"a nil map", "panic: assignment to entry in nil map", true},
		{"a thread pool's name alone", "pool-2-thread-7: NullPointerException in PriceMapper", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			in.Evidence[0].Facts.Release.NewSignature = tc.sig
			d := policy.Evaluate(in)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks, "%v", d.Checks)
			require.Contains(t, d.Checks[4].Reason, "say a connection pool gave out")
		})
	}
}
