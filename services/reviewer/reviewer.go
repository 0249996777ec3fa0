// Package reviewer is the reviewer service: it keeps only the claims that
// recorded, verified evidence of the same investigation backs, publishes the
// signed review, and keeps the incident report in KV agentk_reports current.
package reviewer

import (
	"context"
	"errors"
	"fmt"

	"agentk/contracts"
	"agentk/platform/evidence"
	"agentk/platform/service"
	"agentk/platform/topology"
	"agentk/services/reviewer/internal/config"
	"agentk/services/reviewer/internal/natsport"
)

// ErrStart is returned by Run when the reviewer cannot start consuming.
var ErrStart = errors.New("reviewer: start")

// Run consumes reports (durable "reviewer") and decisions, approvals and
// actions (for the stored report), calls d.Ready once consuming, and blocks
// until ctx is done.
func Run(ctx context.Context, d service.Deps) error {
	cfg, err := config.FromEnv(d.Getenv)
	if err != nil {
		return err // already "<service>: invalid configuration: …"
	}
	kv, err := d.Bus.KeyValue(ctx, topology.BucketReports)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	evs, err := d.Bus.KeyValue(ctx, topology.BucketEvidence)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	h := &natsport.Handler{Keyring: d.Keyring, Signer: d.Signer, Now: d.Now, Config: cfg, Reports: kv,
		Evidence: evidence.NewResolver(d.Keyring, evs), Logger: d.Logger}
	r, err := d.Bus.NewRouter(d.Logger)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	r.Handle(natsport.HandlerReports, contracts.SubjectReport, natsport.Traced(h.HandleReport))
	r.Handle(natsport.HandlerDecisions, contracts.SubjectDecision, h.HandleDecision)
	r.Handle(natsport.HandlerApprovals, contracts.SubjectApproval, h.HandleApproval)
	r.Handle(natsport.HandlerActions, contracts.SubjectAction, h.HandleAction)

	return service.Consume(ctx, d, r, func() {
		d.Logger.Info("reviewer consuming", "subject", contracts.SubjectReport, "signoz_base_url", cfg.BaseURL.String())
	})
}
