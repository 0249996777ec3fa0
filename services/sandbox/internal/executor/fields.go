package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"agentk/contracts"
	"agentk/platform/links"
	"agentk/services/sandbox/internal/fieldtool"
	"agentk/services/sandbox/internal/signoz"
	"agentk/services/sandbox/internal/tools"
)

// handleFields answers list_fields like any other tool: the caller and its
// alert already verified, the arguments validated, the budget spent, the
// answer recorded as signed evidence before the reply.
func (e *Executor) handleFields(ctx context.Context, call contracts.ToolCallV1, alert contracts.AlertV1, now time.Time, log *slog.Logger) (Reply, error) {
	reply := contracts.ToolReplyV1{CallID: call.CallID}
	if e.Fields == nil {
		reply.Error = "list_fields is not available on this sandbox"
		return e.seal(reply, now)
	}
	c, err := fieldtool.Validate(call.Arguments, e.Limits)
	if err != nil {
		log.InfoContext(ctx, "tool call refused", "err", err)
		reply.Error = err.Error()
		return e.seal(reply, now)
	}
	if err := e.spend(call.InvestigationID, now); err != nil {
		log.InfoContext(ctx, "tool call over budget", "err", err)
		reply.Error = err.Error()
		return e.seal(reply, now)
	}
	out, err := fieldtool.Run(ctx, e.Fields, c, e.Limits, e.Compact)
	if err != nil {
		log.WarnContext(ctx, "signoz field query failed", "err", err)
		reply.Error = "SigNoz query failed: " + err.Error()
		reply.Retryable = errors.Is(err, signoz.ErrUnavailable)
		return e.seal(reply, now)
	}
	w := tools.IncidentWindow(alert.StartsAt, now)
	ex := links.Explorer{From: w.From, To: w.To}
	if c.Key != "" {
		ex.Filter = c.Key + " EXISTS"
	}
	link := links.Traces(e.LinkBase, ex)
	if c.Signal == signoz.SignalLogs {
		link = links.Logs(e.LinkBase, ex)
	}
	sum := sha256.Sum256(out.Body)
	args, _ := json.Marshal(c)
	ev := contracts.EvidenceV1{
		ID: newID(), InvestigationID: call.InvestigationID, IncidentID: call.IncidentID, Service: alert.Service,
		Tool: call.Tool, Arguments: args, From: w.From, To: w.To,
		RawSHA256: hex.EncodeToString(sum[:]), Compact: out.Compact, Link: link,
		Facts: out.Facts, RecordedAt: now.UTC(),
	}
	return e.record(ctx, reply, ev, now, log)
}
