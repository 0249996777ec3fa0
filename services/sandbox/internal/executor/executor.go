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
	// Rules reads the alert's own rule for service_overview (its onset is
	// one more signal); nil reads none.
	Rules RuleReader
	// MaxParallel bounds the queries of one stage that run at once
	// (DefaultParallel when zero).
	MaxParallel int

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
	env, err := envelope.Parse(data)
	r, err := e.handle(ctx, env, err)
	return r.Envelope, err
}

// HandleEnvelope answers one request already parsed (the bus parsed it) as
// Handle answers its bytes, and returns the reply with what it says.
func (e *Executor) HandleEnvelope(ctx context.Context, env envelope.Envelope) (Reply, error) {
	return e.handle(ctx, env, nil)
}

// Reply is a sealed reply beside what it carries, for the sandbox's own
// wrappers (telemetry) to read without decoding it again.
type Reply struct {
	Envelope envelope.Envelope
	Value    contracts.ToolReplyV1
	// Evidence is the evidence the reply carries; nil when it carries none.
	Evidence *contracts.EvidenceV1
}

// handle answers a request that parsed as env, or did not (parseErr).
func (e *Executor) handle(ctx context.Context, env envelope.Envelope, parseErr error) (Reply, error) {
	now := e.Now()
	a := admit(e.Keyring, e.Limits, env, parseErr, now)
	log := e.Logger
	if a.role != "" {
		log = e.Logger.With("investigation_id", a.call.InvestigationID, "incident_id", a.call.IncidentID, "tool", a.call.Tool, "call_id", a.call.CallID, "caller", a.role)
	}
	if a.refusal != "" {
		if a.logMsg != "" {
			log.Log(ctx, a.logLevel, a.logMsg, "err", a.logErr)
		}
		return e.seal(contracts.ToolReplyV1{CallID: a.call.CallID, Error: a.refusal}, now)
	}
	if a.call.Tool == contracts.ToolListFields {
		return e.handleFields(ctx, a.call, a.alert, now, log)
	}
	if err := e.spend(a.call.InvestigationID, now); err != nil {
		log.InfoContext(ctx, "tool call over budget", "err", err)
		return e.seal(contracts.ToolReplyV1{CallID: a.call.CallID, Error: err.Error()}, now)
	}
	return e.answer(ctx, a, now, log)
}

// answer runs an admitted call's queries, records the evidence they make and
// replies with it.
func (e *Executor) answer(ctx context.Context, a admission, now time.Time, log *slog.Logger) (Reply, error) {
	c, call := a.tool, a.call
	reply := contracts.ToolReplyV1{CallID: call.CallID}
	var ruleBodies [][]byte
	var ruleNotes []contracts.SourceNote
	if c.Tool == contracts.ToolServiceOverview && e.Rules != nil {
		c.Rule, ruleBodies, ruleNotes = e.readRule(ctx, c, a.alert, log)
	}
	plan := tools.PlanCall(c, e.LinkBase, e.Limits)
	resps, digest, notes, fail := e.runPlan(ctx, plan, ruleBodies, log)
	notes = append(notes, ruleNotes...)
	if fail != nil {
		reply.Error, reply.Retryable = fail.text, fail.retryable
		return e.seal(reply, now)
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
		RawSHA256: digest, Compact: out.Compact, Link: plan.Link,
		Facts: out.Facts, RecordedAt: now.UTC(), SourceNotes: notes,
	}
	if ev.Service == "" {
		ev.Service = a.alert.Service
	}
	return e.record(ctx, reply, ev, now, log, "markers", len(ev.Facts.DeploymentMarkers))
}

// record seals ev, records it durably and replies with it; a recording that
// failed is a retryable reply. Every tool (the queries and list_fields)
// records through it. attrs are further attributes of the log line.
func (e *Executor) record(ctx context.Context, reply contracts.ToolReplyV1, ev contracts.EvidenceV1, now time.Time, log *slog.Logger, attrs ...any) (Reply, error) {
	env, err := e.Signer.SealJSON(contracts.SubjectEvidence, ev, now, 0)
	if err != nil {
		return Reply{}, fmt.Errorf("%w: seal: %v", ErrRecord, err)
	}
	if err := e.Record.RecordEvidence(ctx, env, ev.ID); err != nil {
		log.ErrorContext(ctx, "evidence not recorded", "evidence_id", ev.ID, "err", err)
		reply.Error = "the sandbox could not record the evidence; try again"
		reply.Retryable = true
		return e.seal(reply, now)
	}
	log.InfoContext(ctx, "evidence recorded", append([]any{"evidence_id", ev.ID, "compact_bytes", len(ev.Compact)}, attrs...)...)
	return e.sealEvidence(reply, env, &ev, now)
}

// failure is a call that could not be answered: the reply's error.
type failure struct {
	text      string
	retryable bool
}

// runPlan runs a plan's stages in turn and returns every response in plan
// order with the SHA-256 of their bodies (newline-separated, in that order,
// then extra's: the alert rule's and its series'), and the notes the
// evidence must carry about them (sourceNotes).
func (e *Executor) runPlan(ctx context.Context, plan tools.Plan, extra [][]byte, log *slog.Logger) ([]signoz.Response, string, []contracts.SourceNote, *failure) {
	hash := sha256.New()
	var resps []signoz.Response
	var notes []contracts.SourceNote
	queries := plan.Queries
	for stage := 0; len(queries) > 0; stage++ {
		results, failed, err := e.runStage(ctx, queries)
		if err != nil {
			log.WarnContext(ctx, "signoz query failed", "query", queries[failed].Name, "err", err)
			return nil, "", nil, &failure{text: "SigNoz query failed: " + infraWords(err) + err.Error(), retryable: errors.Is(err, signoz.ErrUnavailable)}
		}
		for i, res := range results {
			if len(resps) > 0 {
				hash.Write([]byte{'\n'})
			}
			hash.Write(res.Body)
			resps = append(resps, res.Response)
			notes = append(notes, sourceNotes(queries[i], res)...)
		}
		queries = nil
		if plan.Then != nil && stage < tools.MaxStages {
			if queries, err = plan.Then(resps); err != nil {
				log.WarnContext(ctx, "signoz response unusable", "err", err)
				return nil, "", nil, &failure{text: err.Error()}
			}
		}
	}
	for _, b := range extra {
		hash.Write([]byte{'\n'})
		hash.Write(b)
	}
	return resps, hex.EncodeToString(hash.Sum(nil)), notes, nil
}

// sourceNotes are what the evidence says about one query's answer beyond
// its data: the route's own notes (an MCP server's), and every place SigNoz
// cut the answer (signoz.Cut), so that no decision rests on a silently cut
// answer.
func sourceNotes(q tools.Query, res signoz.Result) []contracts.SourceNote {
	var out []contracts.SourceNote
	for _, n := range res.Notes {
		n.Query = q.Name
		out = append(out, n)
	}
	for _, text := range signoz.Cut(q.Request, res.Response) {
		out = append(out, contracts.SourceNote{Kind: contracts.NoteRowsCut, Query: q.Name, Text: text})
	}
	return out
}

// runStage runs one stage's queries, which do not depend on each other,
// concurrently (at most MaxParallel at once) and returns their results in
// order. The first query to fail cancels the others; its index and error are
// returned. An optional query that SigNoz refuses does not fail (Query.Optional).
func (e *Executor) runStage(ctx context.Context, queries []tools.Query) ([]signoz.Result, int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]signoz.Result, len(queries))
	slots := make(chan struct{}, e.parallel())
	var (
		wg     sync.WaitGroup
		once   sync.Once
		failed int
		first  error
	)
	fail := func(i int, err error) {
		once.Do(func() {
			failed, first = i, err
			cancel()
		})
	}
	for i, q := range queries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			if err := ctx.Err(); err != nil {
				fail(i, err) // the caller's context ended; a no-op after a failure
				return
			}
			res, err := e.Query.QueryRange(ctx, q.Request)
			if err != nil && q.Optional && errors.Is(err, signoz.ErrAPI) {
				// An optional measurement SigNoz cannot make (a field it
				// has never seen): the call goes on without it, and says so.
				res, err = signoz.Result{Response: signoz.Response{Refused: err.Error()}}, nil
			}
			if err != nil {
				fail(i, err)
				return
			}
			results[i] = res
		}()
	}
	wg.Wait()
	return results, failed, first
}

// DefaultParallel is how many queries of one stage run at once unless
// MaxParallel says otherwise: the nine of service_overview's first stage.
const DefaultParallel = 9

func (e *Executor) parallel() int {
	if e.MaxParallel > 0 {
		return e.MaxParallel
	}
	return DefaultParallel
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

// open verifies env as a tool call signed by one of callerRoles, decodes it
// into call and returns that role. A key of any other role fails as for the
// investigator.
func open(kr *envelope.Keyring, env envelope.Envelope, now time.Time, call *contracts.ToolCallV1) (string, error) {
	var first error
	for _, role := range callerRoles {
		err := kr.Verify(env, contracts.SubjectToolCall, role, now)
		if err == nil {
			if err := json.Unmarshal(env.Payload, call); err != nil {
				*call = contracts.ToolCallV1{}
				return "", fmt.Errorf("%w: payload of %s: %v", envelope.ErrMalformed, env.Subject, err)
			}
			return role, nil
		}
		if first == nil {
			first = err
		}
		if !errors.Is(err, envelope.ErrWrongRole) {
			break
		}
	}
	return "", first
}

func (e *Executor) seal(r contracts.ToolReplyV1, now time.Time) (Reply, error) {
	env, err := e.Signer.SealJSON(contracts.SubjectToolReply, r, now, 0)
	if err != nil {
		return Reply{}, fmt.Errorf("executor: seal reply: %w", err)
	}
	return Reply{Envelope: env, Value: r}, nil
}

// sealEvidence seals the successful reply carrying evidence env (ev).
func (e *Executor) sealEvidence(r contracts.ToolReplyV1, env envelope.Envelope, ev *contracts.EvidenceV1, now time.Time) (Reply, error) {
	r.OK = true
	r.Evidence = env.Marshal()
	out, err := e.seal(r, now)
	out.Evidence = ev
	return out, err
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
