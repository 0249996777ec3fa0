package slackmsg

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/bridge/internal/approval"
	"agentk/services/bridge/internal/view"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// golden decision: the contracts' own example (it carries the signed alert),
// with the gate inputs the links and the move come from.
func goldenRecord(t *testing.T) approval.Record {
	t.Helper()
	var d contracts.DecisionV1
	require.NoError(t, json.Unmarshal(contracts.Golden(contracts.SubjectDecision), &d))
	d.Checks[4].Inputs = map[string]string{
		"current_image": "agentk-demo/shop-api:v2", "current_version": "v2",
		"marker":          "shop-api@v2@2026-11-30T10:02:00Z",
		"marker_trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
		"window":          "2026-11-30T09:35:00Z/2026-11-30T10:05:00Z",
	}
	d.Checks[0].Inputs["threshold"] = "1"
	return approval.Record{
		DecisionID: d.DecisionID, Digest: "9f2c4e1d7a3b5c6e8f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60",
		Decision: d, ExpiresAt: d.ExpiresAt, ReceivedAt: d.DecidedAt,
	}
}

func goldenLinks(rec approval.Record) Links {
	l := view.SigNoz("http://signoz:8080", rec.Decision)
	l.Report = "https://agentk.example.com/console/incidents/" + rec.Decision.IncidentID
	return l
}

func goldenAction(t *testing.T) contracts.ActionV1 {
	t.Helper()
	var a contracts.ActionV1
	require.NoError(t, json.Unmarshal(contracts.Golden(contracts.SubjectAction), &a))
	return a
}

type rendered struct {
	Text   string        `json:"text"`
	Blocks []slack.Block `json:"blocks"`
}

func checkGolden(t *testing.T, name, text string, blocks []slack.Block) {
	t.Helper()
	got, err := json.MarshalIndent(rendered{Text: text, Blocks: blocks}, "", "  ")
	require.NoError(t, err)
	got = append(got, '\n')
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create %s", path)
	require.Equal(t, string(want), string(got), "%s differs; regenerate with go test -update if intended", path)
	requireWithinLimits(t, blocks)
}

// TestGoldenMessages covers the three messages of one incident: posted,
// answered, and the outcome in the thread (with the parent as it then stands).
func TestGoldenMessages(t *testing.T) {
	rec := goldenRecord(t)
	links := goldenLinks(rec)

	text, blocks := Decision(rec, links)
	checkGolden(t, "posted", text, blocks)
	require.Contains(t, text, "awaits approval")

	denied := rec
	denied.Decision.Checks = slices.Clone(rec.Decision.Checks)
	denied.Decision.Verdict = contracts.VerdictDeny
	denied.Decision.Checks[2].Passed, denied.Decision.Checks[2].Reason = false, "last action act-00 is within the 10m0s cooldown"
	denied.Decision.FailedChecks = []string{contracts.CheckCooldown}
	denied.Decision.NextStep = "cooldown: an action on shop-api ran recently; check whether it recovered before acting again."
	text, blocks = Decision(denied, links)
	checkGolden(t, "denied", text, blocks)

	down := denied
	down.Decision.Checks = slices.Clone(denied.Decision.Checks)
	down.Decision.Checks[3].Passed = false
	down.Decision.Checks[3].Reason = "the investigation did not complete (minimum_plan_failed: " + contracts.IncompleteSigNozUnreachable +
		" (tool error: SigNoz query failed: SigNoz unreachable: signoz: unavailable: connection refused)): an incomplete investigation can never approve"
	text, blocks = Decision(down, links)
	checkGolden(t, "denied-signoz-down", text, blocks)
	require.Contains(t, blocks[1].(*slack.SectionBlock).Text.Text, "SigNoz unreachable")

	resolved := rec
	resolved.ResolvedAt = time.Date(2026, 11, 30, 10, 18, 5, 0, time.UTC)
	text, blocks = Decision(resolved, links)
	checkGolden(t, "resolved", text, blocks)
	require.Contains(t, text, "needs re-confirmation")
	answer := blocks[len(blocks)-3].(*slack.ActionBlock).Elements.ElementSet
	require.Equal(t, ActionApproveResolved, answer[0].(*slack.ButtonBlockElement).ActionID)
	require.Equal(t, ResolvedButtonValue(rec.DecisionID, rec.Digest, resolved.ResolvedAt), answer[0].(*slack.ButtonBlockElement).Value)
	require.Equal(t, ActionDeny, answer[1].(*slack.ButtonBlockElement).ActionID)
	unanswered, _ := Answered(resolved, links)
	require.Equal(t, text, unanswered, "an unanswered record's update is the resolved message")

	answered := rec
	answered.Answer = &approval.Answer{ApprovalID: "apr-01", Answer: contracts.AnswerApprove, Approver: "alice",
		Channel: contracts.ChannelSlack, AnsweredAt: time.Date(2026, 11, 30, 10, 20, 42, 0, time.UTC)}
	text, blocks = Answered(answered, links)
	checkGolden(t, "answered", text, blocks)
	header := blocks[0].(*slack.HeaderBlock).Text.Text
	require.NotContains(t, header, "awaits approval")
	require.Contains(t, header, "approved by alice")

	act := goldenAction(t)
	text, blocks = Outcome(answered, act, links)
	checkGolden(t, "outcome", text, blocks)
	require.Contains(t, text, "Rolled back and recovered")

	done := answered
	done.Action = &act
	text, blocks = Answered(done, links)
	checkGolden(t, "answered-outcome", text, blocks)
	require.Equal(t, "Rolled back and recovered: shop-api", blocks[0].(*slack.HeaderBlock).Text.Text)
}

func TestOutcomeTitles(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	tests := []struct {
		name string
		act  contracts.ActionV1
		want string
	}{
		{"recovered", contracts.ActionV1{Outcome: contracts.OutcomeRolledBack, Recovered: &yes}, "Rolled back and recovered"},
		{"not recovered", contracts.ActionV1{Outcome: contracts.OutcomeRolledBack, Recovered: &no}, "Rolled back, NOT recovered"},
		{"unverified", contracts.ActionV1{Outcome: contracts.OutcomeRolledBack}, "Rolled back, recovery not verified"},
		{"dry run", contracts.ActionV1{Outcome: contracts.OutcomeDryRun}, "Dry run: rollback planned, nothing changed"},
		{"failed", contracts.ActionV1{Outcome: contracts.OutcomeFailed, Reason: "compose exited 1"}, "Rollback FAILED"},
		{"refused", contracts.ActionV1{Outcome: contracts.OutcomeRefused}, "Rollback refused by the deployer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, OutcomeTitle(tt.act))
			_, blocks := Outcome(approval.Record{}, tt.act, Links{})
			requireWithinLimits(t, blocks)
		})
	}
}

// TestEveryTextWithinBlockKitLimits: a service name, a diagnosis, reasons and
// a next step far past every limit still give a message Slack accepts,
// the freeze confirmation included.
func TestEveryTextWithinBlockKitLimits(t *testing.T) {
	t.Parallel()
	long := func(s string, n int) string { return strings.Repeat(s, n) }
	rec := goldenRecord(t)
	d := &rec.Decision
	d.Service = long("very-long-service-name-", 40)
	d.Diagnosis = long("<&>", 400)
	d.RollbackTarget = "registry.example.com/" + long("deep/", 300) + "image:v1"
	for i := range d.Checks {
		d.Checks[i].Reason = long("a reason with <html> & more ", 300)
	}
	d.NextStep = long("do this & that; ", 500)
	d.IncidentID, d.DecisionID = long("i", 3000), long("d", 2500)
	links := goldenLinks(rec)
	act := goldenAction(t)
	act.Reason, act.FromImage = long("compose said no & ", 400), long("x", 5000)
	rec.Answer = &approval.Answer{Answer: contracts.AnswerDeny, Approver: long("bob", 900), Channel: contracts.ChannelWeb}

	for name, f := range map[string]func() (string, []slack.Block){
		"posted": func() (string, []slack.Block) { r := rec; r.Answer = nil; return Decision(r, links) },
		"resolved": func() (string, []slack.Block) {
			r := rec
			r.Answer, r.ResolvedAt = nil, time.Date(2026, 11, 30, 10, 18, 5, 0, time.UTC)
			return Decision(r, links)
		},
		"denied": func() (string, []slack.Block) {
			r := rec
			r.Answer = nil
			r.Decision.Verdict = "deny"
			return Decision(r, links)
		},
		"answered": func() (string, []slack.Block) { return Answered(rec, links) },
		"outcome":  func() (string, []slack.Block) { return Outcome(rec, act, links) },
		"parent":   func() (string, []slack.Block) { r := rec; r.Action = &act; return Answered(r, links) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			text, blocks := f()
			require.LessOrEqual(t, runes(text), MaxMessageText)
			requireWithinLimits(t, blocks)
		})
	}
	// The freeze confirmation keeps its instruction however long the name.
	c := freezeButton(d.Service).Confirm
	require.LessOrEqual(t, runes(c.Text.Text), MaxConfirmText)
	require.LessOrEqual(t, runes(c.Title.Text), MaxConfirmTitle)
}

func TestFitNeverLeavesHalfAnEscapeOrLink(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"short is kept", "abc", "abc"},
		{"half entity dropped", "abcd&amp;efgh", "abcd…"},
		{"half link dropped", "ab <http://x/yyyyyy|label>", "ab …"},
		{"open code closed", "a `bcdefghij`", "a …"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := fit(tt.in, 8)
			require.Equal(t, tt.want, got)
			require.LessOrEqual(t, runes(got), 8)
		})
	}
}

// requireWithinLimits walks the blocks as Slack receives them (JSON) and
// checks every documented limit.
func requireWithinLimits(t *testing.T, blocks []slack.Block) {
	t.Helper()
	require.LessOrEqual(t, len(blocks), MaxBlocks)
	b, err := json.Marshal(blocks)
	require.NoError(t, err)
	var raw []map[string]any
	require.NoError(t, json.Unmarshal(b, &raw))
	txt := func(v any) string {
		m, _ := v.(map[string]any)
		s, _ := m["text"].(string)
		return s
	}
	le := func(what string, s string, max int) {
		require.LessOrEqual(t, runes(s), max, "%s is %d characters, the limit is %d", what, runes(s), max)
	}
	for _, blk := range raw {
		switch blk["type"] {
		case "header":
			le("header text", txt(blk["text"]), MaxHeaderText)
		case "section":
			le("section text", txt(blk["text"]), MaxSectionText)
			fields, _ := blk["fields"].([]any)
			require.LessOrEqual(t, len(fields), MaxFields)
			for _, f := range fields {
				le("section field", txt(f), MaxFieldText)
			}
		case "context":
			els, _ := blk["elements"].([]any)
			require.LessOrEqual(t, len(els), MaxContextItems)
			for _, e := range els {
				le("context element", txt(e), MaxContextText)
			}
		case "actions":
			els, _ := blk["elements"].([]any)
			for _, e := range els {
				m := e.(map[string]any)
				le("button text", txt(m["text"]), MaxButtonText)
				v, _ := m["value"].(string)
				le("button value", v, MaxButtonValue)
				u, _ := m["url"].(string)
				le("button url", u, MaxButtonURL)
				id, _ := m["action_id"].(string)
				le("action id", id, MaxActionID)
				if c, ok := m["confirm"].(map[string]any); ok {
					le("confirm title", txt(c["title"]), MaxConfirmTitle)
					le("confirm text", txt(c["text"]), MaxConfirmText)
					le("confirm button", txt(c["confirm"]), MaxConfirmButton)
					le("deny button", txt(c["deny"]), MaxConfirmButton)
				}
			}
		}
	}
}
