package review_test

import (
	"testing"

	"agentk/contracts"
	"agentk/services/reviewer/internal/review"

	"github.com/stretchr/testify/require"
)

// TestClaimAboutAnotherServiceCitesItsEvidence: a claim that diagnoses
// another service than the report's (Claim.Service, the origin of the
// failures) is kept only when it cites evidence about that service; citing
// only the alerted service's evidence drops it. A claim naming the report's
// own service, or none, is checked as before.
func TestClaimAboutAnotherServiceCitesItsEvidence(t *testing.T) {
	t.Parallel()
	ledger := ev("ev-ledger")
	ledger.Value.Service, ledger.Value.Link = "ledger", "http://localhost:8080/services/ledger"
	tests := []struct {
		name    string
		service string
		cites   []string
		kept    bool
	}{
		{"the origin's own evidence", "ledger", []string{"ev-ledger", "ev-1"}, true},
		{"only the alerted service's evidence", "ledger", []string{"ev-1", "ev-2"}, false},
		{"the report's service named", "shop-api", []string{"ev-1"}, true},
		{"no service named", "", []string{"ev-1"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := contracts.Claim{ID: "c1", Class: "bad_release", Statement: "a release of the callee broke it", Confidence: 0.8, EvidenceIDs: tt.cites, Service: tt.service}
			in := input(c)
			in.Evidence = append(in.Evidence, ledger)
			r := review.Review(in)
			if tt.kept {
				require.Len(t, r.Kept, 1, r.Dropped)
				require.Equal(t, tt.service, r.Kept[0].Service)
				return
			}
			require.Empty(t, r.Kept)
			require.Len(t, r.Dropped, 1)
			require.Contains(t, r.Dropped[0].Reasons, `the claim diagnoses service "ledger" but cites no evidence about it`)
		})
	}
}
