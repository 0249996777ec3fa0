package livedemo

// pipeline.go: every agentk service in this process over an embedded NATS,
// the deployer with the docker runtime, and the demo's view of its ledger.

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"agentk/cmd/agentk/internal/harness"
	"agentk/cmd/agentk/stack"
	"agentk/contracts"
	"agentk/platform/fabric"
	"agentk/platform/service"
	"agentk/platform/topology"
	"agentk/services/bridge/fakeslack"

	"github.com/nats-io/nats.go"
)

// servicesEnv is the services' configuration for the run.
func (d *demo) servicesEnv(state string) map[string]string {
	scope := Service
	if d.o.TwoServices {
		scope = Service + "," + Origin
	}
	return map[string]string{
		"AGENTK_OTEL_DISABLED":             "1",
		"AGENTK_SIGNOZ_URL":                d.sigURL,
		"AGENTK_SIGNOZ_BASE_URL":           d.sigURL,
		"AGENTK_SIGNOZ_API_KEY":            d.apiKey,
		"AGENTK_INVESTIGATOR":              "rules",
		"AGENTK_BRIDGE_ADDR":               d.bridgeAddr,
		"AGENTK_SLACK_API_URL":             d.slack.APIURL(),
		"AGENTK_SLACK_BOT_TOKEN":           liveBotToken,
		"AGENTK_SLACK_SIGNING_SECRET":      d.secret,
		"AGENTK_SLACK_CHANNEL":             "#agentk-demo-live",
		"AGENTK_SLACK_RESPONSE_URL_PREFIX": d.slack.ResponseURLPrefix(),
		"AGENTK_APPROVERS":                 "slack:" + liveApproverID + "=" + liveApproverName,
		"AGENTK_SANDBOX_SERVICES":          scope,
		"AGENTK_DEPLOYER_SERVICES":         scope,
		"AGENTK_DEPLOYER_RUNTIME":          "docker",
		"AGENTK_COMPOSE_PROJECT":           d.res.Project,
		"AGENTK_COMPOSE_FILE":              d.file,
		"AGENTK_DEPLOYER_STATE_DIR":        state,
		"AGENTK_DEPLOYER_STABILISE":        d.o.Stabilise.String(),
		"AGENTK_DEPLOYER_RECOVERY":         "sandbox",
		"AGENTK_DEPLOYER_MARKER_ENDPOINT":  d.markerURL, // its markers to the live store, as to SigNoz's collector
		"AGENTK_INGEST_ADDR":               d.ingestAddr,
		"AGENTK_INGEST_TOKEN":              d.ingestToken,
		"PATH":                             os.Getenv("PATH"),
		"HOME":                             os.Getenv("HOME"),
		"DOCKER_HOST":                      os.Getenv("DOCKER_HOST"),
		"DOCKER_CONFIG":                    os.Getenv("DOCKER_CONFIG"),
		"DOCKER_CERT_PATH":                 os.Getenv("DOCKER_CERT_PATH"),
		"DOCKER_TLS_VERIFY":                os.Getenv("DOCKER_TLS_VERIFY"),
	}
}

// pipeline starts every service, the deployer with the docker runtime, and
// waits for v1 in the deployer's ledger.
func (d *demo) pipeline(ctx context.Context) error {
	d.slack = fakeslack.New(liveBotToken)
	d.closers = append(d.closers, d.slack.Close)
	d.secret = harness.RandHex(16)
	var err error
	if d.bridgeAddr, err = harness.FreeAddr(); err != nil {
		return err
	}
	if d.ingestAddr, err = harness.FreeAddr(); err != nil {
		return err
	}
	d.ingestToken = harness.RandHex(16)
	state := filepath.Join(d.dir, "deployer-state")
	if err := os.MkdirAll(state, 0o700); err != nil {
		return err
	}
	env := d.servicesEnv(state)
	d.now = func() time.Time { return time.Now().UTC() }
	if err := d.startFabric(ctx); err != nil {
		return err
	}
	running, err := stack.Start(ctx, nil, func(ctx context.Context, role string) (service.Deps, error) {
		return d.fabric.Deps(ctx, role, d.now, func(k string) string { return env[k] })
	}, d.o.Logger, 30*time.Second)
	if err != nil {
		return err
	}
	d.closers = append(d.closers, func() {
		if serr := running.Stop(); serr != nil {
			d.o.Logger.Warn("services stopped with errors", "err", serr)
		}
	})
	d.p.step("7 services running on an embedded NATS (rules investigator, deployer runtime docker, recovery check through the sandbox)")
	if err := waitFor(ctx, 30*time.Second, "v1 in the deployer's ledger", func() bool {
		return d.ledgerLen(ctx, Service) == 1 && (!d.o.TwoServices || d.ledgerLen(ctx, Origin) == 1)
	}); err != nil {
		return err
	}
	if d.o.TwoServices {
		d.p.step("deployer's release ledgers (built from the Docker API): %s [v1], %s [v1]", Service, Origin)
		return nil
	}
	d.p.step("deployer's release ledger (built from the Docker API): [v1]")
	return nil
}

// startFabric starts the embedded NATS and subscribes the demo's observer to
// every subject.
func (d *demo) startFabric(ctx context.Context) error {
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: filepath.Join(d.dir, "nats"), Logger: d.o.Logger})
	if err != nil {
		return err
	}
	d.fabric = f
	d.closers = append(d.closers, func() { _ = f.Close() })
	admin, err := f.Admin(ctx)
	if err != nil {
		return err
	}
	d.admin = admin
	d.closers = append(d.closers, func() { _ = admin.Close() })
	d.msgs = make(chan *nats.Msg, 4096)
	sub, err := admin.NATS().ChanSubscribe("agentk.>", d.msgs)
	if err != nil {
		return err
	}
	d.closers = append(d.closers, func() { _ = sub.Unsubscribe() })
	return admin.NATS().Flush()
}

// ledgerLen is the number of releases in the deployer's signed ledger of
// service: 0 when there is none or it does not verify.
func (d *demo) ledgerLen(ctx context.Context, service string) int {
	kv, err := d.admin.KeyValue(ctx, topology.BucketReleases)
	if err != nil {
		return 0
	}
	e, err := kv.Get(ctx, service)
	if err != nil {
		return 0
	}
	var l contracts.ReleaseLedgerV1
	if _, err := d.fabric.Keyring().Open(e.Value(), contracts.SubjectLedger, d.now(), &l); err != nil {
		return 0
	}
	return len(l.Releases)
}
