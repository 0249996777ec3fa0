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

// TestBestClaimIsAboutTheReportsService: a kept claim about another service
// (the origin) stays in Kept but is never the review's best claim, whatever
// its confidence: the gate reads the best claim as the report's service's.
func TestBestClaimIsAboutTheReportsService(t *testing.T) {
	t.Parallel()
	ledger := ev("ev-ledger")
	ledger.Value.Service, ledger.Value.Link = "ledger", "http://localhost:8080/services/ledger"
	origin := contracts.Claim{ID: "c1", Class: "bad_release", Statement: "a release of the callee broke it", Confidence: 0.9, EvidenceIDs: []string{"ev-ledger"}, Service: "ledger"}
	own := contracts.Claim{ID: "c2", Class: "dependency_outage", Statement: "a callee fails", Confidence: 0.5, EvidenceIDs: []string{"ev-1"}}
	tests := []struct {
		name   string
		claims []contracts.Claim
		best   string // "" for none
	}{
		{"the origin's claim and the service's own", []contracts.Claim{origin, own}, "c2"},
		{"only the origin's claim", []contracts.Claim{origin}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := input(tt.claims...)
			in.Evidence = append(in.Evidence, ledger)
			r := review.Review(in)
			require.Len(t, r.Kept, len(tt.claims))
			if tt.best == "" {
				require.Nil(t, r.Best)
				return
			}
			require.NotNil(t, r.Best)
			require.Equal(t, tt.best, r.Best.ID)
		})
	}
}
