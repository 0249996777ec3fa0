package review_test

import (
	"math"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/reviewer/internal/review"
)

var tNow = time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)

const rawHash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

func ev(id string) review.Evidence {
	return review.Evidence{ID: id, Value: &contracts.EvidenceV1{
		ID: id, InvestigationID: "inv-1", Service: "shop-api", Tool: contracts.ToolServiceOverview, RawSHA256: rawHash,
		Link:    "http://localhost:8080/services/shop-api",
		Compact: `{"p95_ms":2312,"error_rate":0.31,"retries":1018}`,
	}}
}

func input(claims ...contracts.Claim) review.Input {
	base, _ := url.Parse("http://localhost:8080")
	return review.Input{
		Now: tNow,
		Report: contracts.ReportV1{InvestigationID: "inv-1", IncidentID: "inc-1", Service: "shop-api", Investigator: "llm",
			Completed: true, Claims: claims, ToolCalls: 4, TokensIn: 1000, TokensOut: 200},
		Evidence: []review.Evidence{ev("ev-1"), ev("ev-2")},
		Config:   review.Config{BaseURL: base, Tolerance: 0.01, Catalogue: contracts.DefaultCatalogue()},
	}
}

func good() contracts.Claim {
	return contracts.Claim{ID: "c1", Class: "retry_storm", Statement: "p95 rose to 2.3s with 1,018 retries; error rate 31%", Confidence: 0.8, EvidenceIDs: []string{"ev-1"}}
}

func TestReviewKeepsSupportedClaim(t *testing.T) {
	t.Parallel()
	weaker := good()
	weaker.ID, weaker.Confidence = "c2", 0.6
	r := review.Review(input(weaker, good()))
	require.Len(t, r.Kept, 2)
	require.Empty(t, r.Dropped)
	require.NotNil(t, r.Best)
	require.Equal(t, "c1", r.Best.ID)
	require.False(t, r.InsufficientEvidence)
	require.Equal(t, "review.inv-1", r.ReviewID)
	require.True(t, r.InvestigationCompleted)
	require.Equal(t, 4, r.ToolCalls)
}

// Each case breaks one rule; the claim must be dropped with that reason.
func TestReviewDropsEachReason(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		mutate func(in *review.Input)
		reason string
	}{
		{"cites no evidence", func(in *review.Input) { in.Report.Claims[0].EvidenceIDs = nil }, "cites no evidence"},
		{"cites an id the report does not carry", func(in *review.Input) { in.Report.Claims[0].EvidenceIDs = []string{"ev-made-up"} }, "does not carry"},
		{"evidence that did not verify", func(in *review.Input) {
			in.Evidence[0] = review.Evidence{ID: "ev-1", Err: "envelope: bad signature"}
		}, "not the sandbox's record: envelope: bad signature"},
		{"real evidence id from a different investigation", func(in *review.Input) { in.Evidence[0].Value.InvestigationID = "inv-0" }, `recorded for investigation "inv-0"`},
		{"no raw hash", func(in *review.Input) { in.Evidence[0].Value.RawSHA256 = "" }, "no sha256"},
		{"fabricated link a naive check would pass", func(in *review.Input) {
			in.Evidence[0].Value.Link = "http://localhost:8080/deployments"
		}, "matches none of SigNoz's routes"},
		{"link on the old port", func(in *review.Input) {
			in.Evidence[0].Value.Link = "http://localhost:3301/traces-explorer"
		}, "not under the configured SigNoz"},
		{"link with an extra segment", func(in *review.Input) {
			in.Evidence[0].Value.Link = "http://localhost:8080/services/shop-api/overview"
		}, "matches none"},
		{"number not in the evidence", func(in *review.Input) {
			in.Report.Claims[0].Statement = "p95 rose to 4.7s"
		}, "number 4.7s is not in the cited evidence"},
		{"number only in evidence it did not cite", func(in *review.Input) {
			in.Evidence[1].Value.Compact = `{"p95_ms":4700}`
			in.Report.Claims[0].Statement = "p95 rose to 4.7s"
		}, "number 4.7s"},
		{"class not in the catalogue", func(in *review.Input) { in.Report.Claims[0].Class = "gremlins" }, `class "gremlins" is not in the catalogue`},
		{"confidence out of range", func(in *review.Input) { in.Report.Claims[0].Confidence = 1.5 }, "not in [0, 1]"},
		{"confidence NaN", func(in *review.Input) { in.Report.Claims[0].Confidence = math.NaN() }, "not in [0, 1]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := input(good())
			tc.mutate(&in)
			r := review.Review(in)
			require.Empty(t, r.Kept)
			require.Nil(t, r.Best, "the gate sees no confidence")
			require.True(t, r.InsufficientEvidence)
			require.Len(t, r.Dropped, 1)
			require.Contains(t, strings.Join(r.Dropped[0].Reasons, " | "), tc.reason)
		})
	}
}

func TestReviewKeepsEveryReasonAndDuplicates(t *testing.T) {
	t.Parallel()
	bad := contracts.Claim{ID: "c1", Class: "gremlins", Statement: "99 errors", Confidence: 2, EvidenceIDs: []string{"ev-x"}}
	r := review.Review(input(good(), bad))
	require.Len(t, r.Kept, 1)
	require.Len(t, r.Dropped, 1)
	require.Len(t, r.Dropped[0].Reasons, 5, "%v", r.Dropped[0].Reasons)
	require.Contains(t, r.Dropped[0].Reasons, "duplicate claim id c1")
}

func TestReviewIncompleteInvestigationPassesThrough(t *testing.T) {
	t.Parallel()
	in := input(good())
	in.Report.Completed, in.Report.IncompleteReason = false, "budget"
	r := review.Review(in)
	require.False(t, r.InvestigationCompleted)
	require.Equal(t, "budget", r.IncompleteReason)
}

func TestReviewNoClaims(t *testing.T) {
	t.Parallel()
	r := review.Review(input())
	require.True(t, r.InsufficientEvidence)
	require.Nil(t, r.Best)
	require.NotNil(t, r.Kept)
	require.NotNil(t, r.Dropped)
}
