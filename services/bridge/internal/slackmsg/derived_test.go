package slackmsg

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/bridge/internal/approval"
)

// derivedRecord is the contracts' golden derived decision (issue 33): the
// alert is on shop-api, the rollback offered is payment's.
func derivedRecord(t *testing.T) approval.Record {
	t.Helper()
	var d contracts.DecisionV1
	require.NoError(t, json.Unmarshal(contracts.Golden(contracts.SubjectDecision+".derived"), &d))
	require.NotNil(t, d.Origin)
	d.Checks[4].Inputs = map[string]string{
		"current_image": "agentk-demo/payment:2.2.0", "current_version": "2.2.0",
		"marker": "payment@2.2.0@2026-11-30T10:00:00Z",
		"window": "2026-11-30T09:35:00Z/2026-11-30T10:05:00Z",
	}
	d.Checks[0].Inputs["threshold"] = "1"
	return approval.Record{
		DecisionID: d.DecisionID, Digest: "7a1c4e1d7a3b5c6e8f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60",
		Decision: d, ExpiresAt: d.ExpiresAt, ReceivedAt: d.DecidedAt,
	}
}

// TestGoldenDerivedMessages: the message of a derived decision says which
// service it acts on and why that is not the alerted one, right under the
// header, in the gate's words; its buttons answer the derived decision.
func TestGoldenDerivedMessages(t *testing.T) {
	rec := derivedRecord(t)
	links := goldenLinks(rec)

	text, blocks := Decision(rec, links)
	checkGolden(t, "posted-derived", text, blocks)
	require.Equal(t, "agentk: rollback of payment for the alert on shop-api awaits approval (decision dec-01.origin.payment)", text)
	require.Equal(t, "Rollback awaits approval: payment (the alert is on shop-api)", blocks[0].(*slack.HeaderBlock).Text.Text)
	why := blocks[1].(*slack.SectionBlock).Text.Text
	require.Contains(t, why, "Acts on payment, not on the alerted shop-api:")
	require.Contains(t, why, "shop-api burns its budget; 71% of its new failures begin in payment, released 2.2.0 5m0s before")
	answer := blocks[len(blocks)-3].(*slack.ActionBlock).Elements.ElementSet
	require.Equal(t, ButtonValue(rec.DecisionID, rec.Digest), answer[0].(*slack.ButtonBlockElement).Value, "the approval binds the derived decision's digest")
	freeze := blocks[len(blocks)-2].(*slack.ActionBlock).Elements.ElementSet
	require.Equal(t, "payment", freeze[0].(*slack.ButtonBlockElement).Value, "the freeze offered is the acted-on service's")

	denied := rec
	denied.Decision.Checks = slices.Clone(rec.Decision.Checks)
	denied.Decision.Verdict = contracts.VerdictDeny
	denied.Decision.Checks[0].Passed = false
	denied.Decision.Checks[0].Reason = "only 30% of shop-api's new failures begin in payment, under the 50% threshold: payment is not where most of them begin"
	denied.Decision.FailedChecks = []string{contracts.CheckSLOBreach}
	denied.Decision.NextStep = "slo_breach: payment is not where most of shop-api's new failures begin; read the failure origin in the incident report and find where the rest begin before rolling anything back."
	o := *rec.Decision.Origin
	o.Share, o.Reason = 0.3, "shop-api burns its budget; 30% of its new failures begin in payment, released 2.2.0 5m0s before"
	denied.Decision.Origin = &o
	text, blocks = Decision(denied, links)
	checkGolden(t, "denied-derived", text, blocks)
	require.Contains(t, text, "rollback of payment for the alert on shop-api denied by the gate")
	require.Contains(t, blocks[1].(*slack.SectionBlock).Text.Text, "30% of its new failures begin in payment")

	// The alerted decision's message has no such section.
	_, plain := Decision(goldenRecord(t), goldenLinks(goldenRecord(t)))
	for _, b := range plain {
		if s, ok := b.(*slack.SectionBlock); ok && s.Text != nil {
			require.NotContains(t, s.Text.Text, "Acts on")
		}
	}
}
