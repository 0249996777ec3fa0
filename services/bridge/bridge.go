// Package bridge is agentk's approval bridge: it receives gate-signed
// decisions, shows them to humans (Slack, the web console, the CLI's API) and
// turns the first valid human answer into one bridge-signed agentk.approval.v1.
package bridge

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"agentk/contracts"
	"agentk/platform/bus"
	"agentk/platform/service"
	"agentk/platform/topology"
	"agentk/services/bridge/client"
	"agentk/services/bridge/internal/approval"
	"agentk/services/bridge/internal/config"
	"agentk/services/bridge/internal/desk"
	"agentk/services/bridge/internal/freezes"
	"agentk/services/bridge/internal/httpport"
	"agentk/services/bridge/internal/natsport"
	"agentk/services/bridge/internal/slackmsg"
	"agentk/services/bridge/internal/slackport"
	"agentk/services/bridge/internal/store"
	"agentk/services/bridge/internal/view"
)

// ErrStart is returned when the bridge cannot start.
var ErrStart = errors.New("bridge: start")

// Answer sends approve or deny for decisionID to the console's API with an
// approver token; what `agentk approve|deny` calls. See client.Answer.
func Answer(ctx context.Context, consoleURL, token, decisionID, answer string) error {
	_, err := client.Answer(ctx, consoleURL, token, decisionID, answer)
	return err
}

// Run runs the bridge until ctx is done: the durable "bridge" consumer on
// agentk.decision.v1, and the HTTP listener for /slack/interactions, /console
// and /api/v1. It calls d.Ready once both are up.
func Run(ctx context.Context, d service.Deps) error {
	cfg, err := config.FromEnv(d.Getenv)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p, err := build(ctx, cfg, d)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("%w: listen %s: %w", ErrStart, cfg.Addr, err)
	}
	srv := &http.Server{
		Handler: p.http.Handler(), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 15 * time.Second,
		WriteTimeout: 15 * time.Second, IdleTimeout: 60 * time.Second,
	}
	router, err := d.Bus.NewRouter(d.Logger)
	if err != nil {
		_ = ln.Close()
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	// A decision not yet recorded or posted (a store without a leader,
	// Slack down) is retried until it is, never dead-lettered after
	// MaxDeliver with its message unposted or its ts unrecorded: once the
	// decision expires the desk refuses it (ErrRejected, permanent), and
	// that refusal is dead-lettered.
	router.Handle(natsport.HandlerName, contracts.SubjectDecision, (&natsport.Handler{Desk: p.desk, Logger: d.Logger}).Handle, bus.UntilAnswered())
	router.Handle(natsport.ActionHandlerName, contracts.SubjectAction, (&natsport.ActionHandler{Desk: p.desk, Logger: d.Logger}).Handle)
	routerErr, err := service.StartRouter(ctx, router)
	if routerErr == nil {
		_ = ln.Close()
		return fmt.Errorf("%w: router: %w", ErrStart, err)
	}
	httpErr := make(chan error, 1)
	go func() { httpErr <- srv.Serve(ln) }()
	p.background(ctx, d)
	d.Logger.Info("bridge running", "addr", ln.Addr().String(), "slack", cfg.SlackEnabled(), "approvers", len(cfg.Approvers.Names()))
	d.MarkReady()
	return stop(ctx, cancel, d, srv, p.http, routerErr, httpErr)
}

// parts are the bridge's pieces, wired on the bus.
type parts struct {
	desk      *desk.Desk
	http      *httpport.Server
	slack     *slackport.Client
	incidents jetstream.KeyValue
}

// build wires the desk on its buckets, Slack when configured, and the HTTP
// server, and re-publishes pending approvals.
func build(ctx context.Context, cfg config.Config, d service.Deps) (parts, error) {
	var p parts
	kv, err := d.Bus.KeyValue(ctx, topology.BucketDecisions)
	if err != nil {
		return p, err
	}
	links := func(rec approval.Record) slackmsg.Links {
		l := view.SigNoz(cfg.SigNozURL, rec.Decision)
		if cfg.ConsoleURL != "" {
			l.Report = cfg.ConsoleURL + "/console/incidents/" + url.PathEscape(rec.Decision.IncidentID)
		}
		return l
	}
	var (
		notifier  desk.Notifier
		responder httpport.Responder
	)
	if cfg.SlackEnabled() {
		p.slack = slackport.New(slackport.Options{
			APIURL: cfg.SlackAPIURL, BotToken: cfg.SlackBotToken, Channel: cfg.SlackChannel,
			ResponseURLPrefix: cfg.SlackResponseURLPrefix, Links: links,
			Report: slackReporter(d, d.Logger),
		})
		notifier, responder = p.slack, p.slack
	}
	if p.incidents, err = d.Bus.KeyValue(ctx, topology.BucketIncidents); err != nil {
		return p, err
	}
	p.desk = desk.New(desk.Deps{
		Store: store.NewKV(kv), Signer: d.Signer, Keyring: d.Keyring,
		Publisher: natsport.Publisher{Conn: d.Bus}, Notifier: notifier, Now: d.Now, Logger: d.Logger,
		Incidents: kvIncidents{p.incidents},
	})
	if err := p.desk.Republish(ctx); err != nil {
		d.Logger.Warn("could not re-publish pending approvals", "err", err)
	}
	fkv, err := d.Bus.KeyValue(ctx, topology.BucketFreezes)
	if err != nil {
		return p, err
	}
	rkv, err := d.Bus.KeyValue(ctx, topology.BucketReports)
	if err != nil {
		return p, err
	}
	p.http = httpport.New(httpport.Options{
		Desk: p.desk, Approvers: cfg.Approvers, SigningSecret: cfg.SlackSigningSecret, Slack: responder, Reports: kvReports{rkv},
		Freezes:     &freezes.Desk{KV: fkv, Signer: d.Signer, Keyring: d.Keyring, Now: d.Now},
		DeadLetters: busDeadLetters{d.Bus}, InsecureCookies: cfg.InsecureCookies, Now: d.Now, Logger: d.Logger,
		Links: func(rec approval.Record) view.Links { l := links(rec); l.Report = ""; return l },
	})
	return p, nil
}

// background starts the loops that run beside the handlers.
func (p parts) background(ctx context.Context, d service.Deps) {
	// An answer accepted while the bus could not take it (a stream leader
	// election, a partition) is published by this loop once it can.
	go republishLoop(ctx, republishInterval, republishFullEvery, p.desk.RepublishOwn, p.desk.Republish, d.Logger)
	if p.slack == nil {
		return
	}
	// Readiness says whether Slack takes the token, checked now and then
	// (every post reports too), so a revoked token is not a silence.
	go watchSlack(ctx, p.slack, slackCheckInterval)
	// A resolved alert rewrites the open decision's message.
	go followResolves(ctx, p.incidents, p.desk, resolveSweepInterval, d.Logger)
}

// stop waits for ctx, the router or the HTTP server to end, then shuts the
// others down.
func stop(ctx context.Context, cancel context.CancelFunc, d service.Deps, srv *http.Server, hs *httpport.Server, routerErr, httpErr chan error) error {
	var runErr error
	select {
	case <-ctx.Done():
	case err := <-routerErr:
		runErr = fmt.Errorf("bridge: router stopped: %w", err)
		routerErr <- nil
	case err := <-httpErr:
		runErr = fmt.Errorf("bridge: http: %w", err)
	}
	cancel()
	shutCtx, shutCancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer shutCancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		d.Logger.Warn("http shutdown", "err", err)
	}
	hs.Close(shutCtx)
	if err := <-routerErr; err != nil && runErr == nil {
		runErr = err
	}
	return runErr
}
