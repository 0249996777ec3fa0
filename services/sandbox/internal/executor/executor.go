// Package executor runs one tool call end to end: it verifies the call and the
// alert inside it, validates and bounds the arguments, enforces the per
// investigation budget, queries SigNoz, records the evidence durably and seals
// the reply. Its I/O goes through three small ports, so tests use fakes.
package executor

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/fieldtool"
	"agentk/services/sandbox/internal/signoz"
	"agentk/services/sandbox/internal/tools"
)

// Errors of the executor.
var (
	ErrBudget   = errors.New("executor: call budget spent")
	ErrRejected = errors.New("executor: call rejected")
	ErrRecord   = errors.New("executor: evidence not recorded")
)

// Querier runs one SigNoz query.
type Querier interface {
	QueryRange(ctx context.Context, req signoz.QueryRangeRequest) (signoz.Result, error)
}

// Recorder publishes an evidence envelope durably (MsgID = evidence id) and
// returns once the stream has stored it.
type Recorder interface {
	RecordEvidence(ctx context.Context, env envelope.Envelope, msgID string) error
}

// Executor answers tool calls.
type Executor struct {
	Keyring  *envelope.Keyring
	Signer   *envelope.Signer
	Query    Querier
	Record   Recorder
	Now      func() time.Time
	Logger   *slog.Logger
	Limits   tools.Limits
	Compact  compact.Limits
	LinkBase string
	// MaxCalls caps calls per investigation.
	MaxCalls int
	// Fields answers list_fields (field discovery); nil refuses it.
	Fields fieldtool.Querier

	mu    sync.Mutex
	calls map[string]*budget
}

type budget struct {
	n    int
	last time.Time
}

// Handle answers one request (the bytes of a ToolCallV1 envelope) with a
// sealed ToolReplyV1 envelope. It never panics on input and never
// fails silently: every refusal is a reply the model can read.
func (e *Executor) Handle(ctx context.Context, data []byte) (envelope.Envelope, error) {
	now := e.Now()
	var call contracts.ToolCallV1
	reply := contracts.ToolReplyV1{}
	role, err := e.open(data, now, &call)
	if err != nil {
		e.Logger.WarnContext(ctx, "tool call rejected", "err", err)
		reply.Error = fmt.Sprintf("%v: the call is not a valid investigator-signed tool call: %v", ErrRejected, err)
		return e.seal(reply, now)
	}
	reply.CallID = call.CallID
	log := e.Logger.With("investigation_id", call.InvestigationID, "incident_id", call.IncidentID, "tool", call.Tool, "call_id", call.CallID, "caller", role)
	if err := checkCaller(role, call); err != nil {
		log.WarnContext(ctx, "tool call refused for its caller", "err", err)
		reply.Error = err.Error()
		return e.seal(reply, now)
	}

	var alert contracts.AlertV1
	if _, err := e.Keyring.Open(call.Alert, contracts.SubjectAlert, now, &alert); err != nil {
		log.WarnContext(ctx, "alert in tool call rejected", "err", err)
		reply.Error = fmt.Sprintf("%v: the alert inside the call is not ingester-signed: %v", ErrRejected, err)
		return e.seal(reply, now)
	}
	if alert.IncidentID != call.IncidentID || call.InvestigationID == "" {
		reply.Error = fmt.Sprintf("%v: call names incident %q but carries the alert of %q", ErrRejected, call.IncidentID, alert.IncidentID)
		return e.seal(reply, now)
	}
	if call.Tool == contracts.ToolListFields {
		return e.handleFields(ctx, call, alert, now, log)
	}
	c, err := tools.Validate(call.Tool, call.Arguments, alert.StartsAt, now, e.Limits)
	if err != nil {
		log.InfoContext(ctx, "tool call refused", "err", err)
		reply.Error = err.Error()
		return e.seal(reply, now)
	}
	if role == envelope.RoleDeployer {
		if err := checkVerification(c, alert, now); err != nil {
			log.WarnContext(ctx, "recovery verification refused", "err", err)
			reply.Error = err.Error()
			return e.seal(reply, now)
		}
	}
	if err := e.spend(call.InvestigationID, now); err != nil {
		log.InfoContext(ctx, "tool call over budget", "err", err)
		reply.Error = err.Error()
		return e.seal(reply, now)
	}

	plan := tools.PlanCall(c, e.LinkBase, e.Limits)
	hash := sha256.New()
	var resps []signoz.Response
	queries := plan.Queries
	for stage := 0; len(queries) > 0; stage++ {
		for _, q := range queries {
			res, err := e.Query.QueryRange(ctx, q.Request)
			if err != nil {
				log.WarnContext(ctx, "signoz query failed", "query", q.Name, "err", err)
				reply.Error = "SigNoz query failed: " + infraWords(err) + err.Error()
				reply.Retryable = errors.Is(err, signoz.ErrUnavailable)
				return e.seal(reply, now)
			}
			if len(resps) > 0 {
				hash.Write([]byte{'\n'})
			}
			hash.Write(res.Body)
			resps = append(resps, res.Response)
		}
		queries = nil
		if plan.Then != nil && stage < tools.MaxStages {
			if queries, err = plan.Then(resps); err != nil {
				log.WarnContext(ctx, "signoz response unusable", "err", err)
				reply.Error = err.Error()
				return e.seal(reply, now)
			}
		}
	}
	out, err := tools.Build(c, resps, e.Limits, e.Compact)
	if err != nil {
		log.WarnContext(ctx, "signoz response unusable", "err", err)
		reply.Error = err.Error()
		return e.seal(reply, now)
	}
	args, _ := json.Marshal(c.Args) // the bounded arguments as understood
	ev := contracts.EvidenceV1{
		ID: newID(), InvestigationID: call.InvestigationID, IncidentID: call.IncidentID, Service: c.Service,
		Tool: c.Tool, Arguments: args, From: c.Window.From, To: c.Window.To,
		RawSHA256: hex.EncodeToString(hash.Sum(nil)), Compact: out.Compact, Link: plan.Link,
		Facts: out.Facts, RecordedAt: now.UTC(),
	}
	if ev.Service == "" {
		ev.Service = alert.Service
	}
	env, err := e.Signer.SealJSON(contracts.SubjectEvidence, ev, now, 0)
	if err != nil {
		return envelope.Envelope{}, fmt.Errorf("%w: seal: %v", ErrRecord, err)
	}
	if err := e.Record.RecordEvidence(ctx, env, ev.ID); err != nil {
		log.ErrorContext(ctx, "evidence not recorded", "evidence_id", ev.ID, "err", err)
		reply.Error = "the sandbox could not record the evidence; try again"
		reply.Retryable = true
		return e.seal(reply, now)
	}
	log.InfoContext(ctx, "evidence recorded", "evidence_id", ev.ID, "compact_bytes", len(ev.Compact), "markers", len(ev.Facts.DeploymentMarkers))
	reply.OK = true
	reply.Evidence = env.Marshal()
	return e.seal(reply, now)
}

// infraWords names a failure of SigNoz itself in the words every reader
// looks for (contracts.IncompleteSigNoz*), so that the report says "SigNoz
// rejected the API key" and not "insufficient evidence".
func infraWords(err error) string {
	switch {
	case errors.Is(err, signoz.ErrAuth):
		return contracts.IncompleteSigNozRejected + ": "
	case errors.Is(err, signoz.ErrUnavailable):
		return contracts.IncompleteSigNozUnreachable + ": "
	}
	return ""
}

// open verifies data as a tool call signed by one of callerRoles and returns
// that role. A key of any other role fails as for the investigator.
func (e *Executor) open(data []byte, now time.Time, call *contracts.ToolCallV1) (string, error) {
	var first error
	for _, role := range callerRoles {
		*call = contracts.ToolCallV1{}
		_, err := e.Keyring.OpenAs(data, contracts.SubjectToolCall, role, now, call)
		if err == nil {
			return role, nil
		}
		if first == nil {
			first = err
		}
		if !errors.Is(err, envelope.ErrWrongRole) {
			break
		}
	}
	*call = contracts.ToolCallV1{}
	return "", first
}

func (e *Executor) seal(r contracts.ToolReplyV1, now time.Time) (envelope.Envelope, error) {
	env, err := e.Signer.SealJSON(contracts.SubjectToolReply, r, now, 0)
	if err != nil {
		return envelope.Envelope{}, fmt.Errorf("executor: seal reply: %w", err)
	}
	return env, nil
}

// spend takes one call from the investigation's budget. Budgets idle for a
// day are forgotten.
func (e *Executor) spend(investigation string, now time.Time) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.calls == nil {
		e.calls = map[string]*budget{}
	}
	for id, b := range e.calls {
		if now.Sub(b.last) > 24*time.Hour {
			delete(e.calls, id)
		}
	}
	b := e.calls[investigation]
	if b == nil {
		b = &budget{}
		e.calls[investigation] = b
	}
	if b.n >= e.MaxCalls {
		return fmt.Errorf("%w: investigation %s has used all %d tool calls; conclude from the evidence gathered", ErrBudget, investigation, e.MaxCalls)
	}
	b.n++
	b.last = now
	return nil
}

func newID() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return "ev-" + hex.EncodeToString(b[:])
}
