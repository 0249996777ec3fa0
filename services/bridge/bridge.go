// Package bridge is agentk's approval bridge: it receives gate-signed
// decisions, shows them to humans (Slack, the web console, the CLI's API) and
// turns the first valid human answer into one bridge-signed agentk.approval.v1.
package bridge

import (
	"agentk/platform/topology"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"agentk/contracts"
	"agentk/platform/service"
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
	log := d.Logger
	kv, err := d.Bus.KeyValue(ctx, store.Bucket)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStart, err)
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
		slackAPI  *slackport.Client
	)
	if cfg.SlackEnabled() {
		slackAPI = slackport.New(slackport.Options{
			APIURL: cfg.SlackAPIURL, BotToken: cfg.SlackBotToken, Channel: cfg.SlackChannel,
			ResponseURLPrefix: cfg.SlackResponseURLPrefix, Links: links,
			Report: slackReporter(d, log),
		})
		notifier, responder = slackAPI, slackAPI
	}
	ikv, err := d.Bus.KeyValue(ctx, topology.BucketIncidents)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	dk := desk.New(desk.Deps{
		Store: store.NewKV(kv), Signer: d.Signer, Keyring: d.Keyring,
		Publisher: natsport.Publisher{Conn: d.Bus}, Notifier: notifier, Now: d.Now, Logger: log,
		Incidents: kvIncidents{ikv},
	})
	if err := dk.Republish(ctx); err != nil {
		log.Warn("could not re-publish pending approvals", "err", err)
	}
	// An answer accepted while the bus could not take it (a stream leader
	// election, a partition) is published by this loop once it can.
	go republishLoop(ctx, republishInterval, dk.Republish, log)

	fkv, err := d.Bus.KeyValue(ctx, freezes.Bucket)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	fd := &freezes.Desk{KV: fkv, Signer: d.Signer, Keyring: d.Keyring, Now: d.Now}
	rkv, err := d.Bus.KeyValue(ctx, topology.BucketReports)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	hs := httpport.New(httpport.Options{
		Desk: dk, Approvers: cfg.Approvers, Freezes: fd, SigningSecret: cfg.SlackSigningSecret, Slack: responder, Reports: kvReports{rkv},
		DeadLetters: busDeadLetters{d.Bus}, InsecureCookies: cfg.InsecureCookies, Now: d.Now, Logger: log,
		Links: func(rec approval.Record) view.Links { l := links(rec); l.Report = ""; return l },
	})
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("%w: listen %s: %w", ErrStart, cfg.Addr, err)
	}
	srv := &http.Server{
		Handler: hs.Handler(), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 15 * time.Second,
		WriteTimeout: 15 * time.Second, IdleTimeout: 60 * time.Second,
	}

	router, err := d.Bus.NewRouter(log)
	if err != nil {
		_ = ln.Close()
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	h := &natsport.Handler{Desk: dk, Logger: log}
	router.Handle(natsport.HandlerName, contracts.SubjectDecision, h.Handle)
	ah := &natsport.ActionHandler{Desk: dk, Logger: log}
	router.Handle(natsport.ActionHandlerName, contracts.SubjectAction, ah.Handle)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	routerErr, err := service.StartRouter(ctx, router)
	if routerErr == nil {
		_ = ln.Close()
		return fmt.Errorf("%w: router: %w", ErrStart, err)
	}
	httpErr := make(chan error, 1)
	go func() { httpErr <- srv.Serve(ln) }()
	if slackAPI != nil {
		// Readiness says whether Slack takes the token, checked now and then
		// (every post reports too), so a revoked token is not a silence.
		go watchSlack(ctx, slackAPI, slackCheckInterval)
	}
	log.Info("bridge running", "addr", ln.Addr().String(), "slack", cfg.SlackEnabled(), "approvers", len(cfg.Approvers.Names()))
	d.MarkReady()

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
		log.Warn("http shutdown", "err", err)
	}
	hs.Close(shutCtx)
	if err := <-routerErr; err != nil && runErr == nil {
		runErr = err
	}
	return runErr
}
