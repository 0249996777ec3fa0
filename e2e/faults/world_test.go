package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/contracts/incident"
	"agentk/e2e/corpusgen"
	"agentk/platform/bus"
	"agentk/platform/fabric"
	"agentk/platform/freeport"
	"agentk/platform/identity"
	"agentk/platform/natsembed"
	"agentk/platform/topology"
	"agentk/services/bridge/fakeslack"
	"agentk/services/sandbox/fakesignoz"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// The services of the pipeline, in the order an incident reaches them.
var services = []string{
	envelope.RoleIngester, envelope.RoleSandbox, envelope.RoleInvestigator, envelope.RoleReviewer,
	envelope.RoleGate, envelope.RoleBridge, envelope.RoleDeployer,
}

const (
	approverID = "UFAULTSAPPROVER"
	botToken   = "xoxb-faults-not-a-real-token"
)

// world is one deployment of the pipeline as separate processes: a real
// nats-server process with its file store, seven `agentk <service>` processes
// each holding only its own seed, a fake SigNoz serving a live incident and a
// fake Slack the test approves through.
type world struct {
	t       *testing.T
	dir     string
	natsBin string
	agentk  string
	port    int
	conf    string
	url     string
	nats    *proc
	procs   map[string]*proc
	env     map[string]string
	// once is extra environment for the next start of a role only (a crash
	// point for the process about to be killed, never for its restart).
	once   map[string][]string
	inc    *incident.Incident
	ingest string
	token  string
	bridge string
	secret string
	slack  *fakeslack.Server
	fab    *fabric.Fabric
	admin  *bus.Conn
	kr     *envelope.Keyring
}

type proc struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// newWorld builds the keys, the nats-server configuration and the live
// incident; nothing runs yet.
func newWorld(t *testing.T) *world {
	t.Helper()
	natsBin, agentk := binaries(t)
	dir := t.TempDir()
	w := &world{t: t, dir: dir, natsBin: natsBin, agentk: agentk, procs: map[string]*proc{}}

	ids, err := identity.Ensure(filepath.Join(dir, "keys"))
	require.NoError(t, err)
	// Each service gets a directory holding its own seed and the keyring,
	// as a production container does.
	for _, role := range services {
		d := filepath.Join(dir, "keys-"+role)
		require.NoError(t, os.MkdirAll(d, 0o700))
		for _, name := range []string{identity.KeyringFile, role + ".nk"} {
			b, err := os.ReadFile(filepath.Join(dir, "keys", name))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(d, name), b, 0o600))
		}
	}
	w.port = freeport.Port(t)
	text, err := natsembed.Render(natsembed.ServerConfig{
		ServerName: "agentk-faults", Host: "127.0.0.1", Port: w.port,
		StoreDir: filepath.Join(dir, "jetstream"), Users: ids.PublicKeys(),
	})
	require.NoError(t, err)
	w.conf = filepath.Join(dir, "nats.conf")
	require.NoError(t, os.WriteFile(w.conf, []byte(text), 0o600))
	w.url = fmt.Sprintf("nats://127.0.0.1:%d", w.port)

	w.inc = liveIncident(t, filepath.Join(dir, "incident"))
	t.Cleanup(w.stopAll)
	return w
}

// liveIncident writes bad-release-01 as if its alert fired now, so that
// processes running on the real clock see a fresh incident.
func liveIncident(t *testing.T, dir string) *incident.Incident {
	t.Helper()
	var sc corpusgen.Scenario
	for _, s := range corpusgen.Scenarios() {
		if s.ID == "bad-release-01" {
			sc = s
		}
	}
	require.NotEmpty(t, sc.ID, "bad-release-01 is no longer in the corpus")
	sc.ID = "live-bad-release"
	sc.Now = time.Now().UTC().Truncate(time.Second)
	require.NoError(t, corpusgen.Write(dir, []corpusgen.Scenario{sc}))
	inc, err := incident.Load(filepath.Join(dir, sc.ID))
	require.NoError(t, err)
	return inc
}

// start brings NATS up, provisions it, and starts every service.
func (w *world) start(ctx context.Context) {
	t := w.t
	t.Helper()
	w.startNATS(ctx)
	f, err := fabric.Remote(ctx, w.url, filepath.Join(w.dir, "keys"), fabric.Options{})
	require.NoError(t, err, "provision as admin")
	w.fab = f
	w.kr = f.Keyring()
	w.admin, err = f.Admin(ctx)
	require.NoError(t, err)

	sig := httptestServe(t, fakesignoz.New(w.inc, fakesignoz.Options{APIKey: "faults-key"}))
	w.slack = fakeslack.New(botToken)
	t.Cleanup(w.slack.Close)
	w.ingest = "127.0.0.1:" + fmt.Sprint(freeport.Port(t))
	w.bridge = "127.0.0.1:" + fmt.Sprint(freeport.Port(t))
	w.token = "ingest-token-faults"
	w.secret = "slack-signing-secret-faults"
	scope := strings.Join(w.inc.SandboxScope(), ",")
	w.env = map[string]string{
		"AGENTK_NATS_URL":                  w.url,
		"AGENTK_OTEL_DISABLED":             "1",
		"AGENTK_LOG_FORMAT":                "text",
		"AGENTK_LOG_LEVEL":                 "debug",
		"AGENTK_SIGNOZ_URL":                sig,
		"AGENTK_SIGNOZ_BASE_URL":           sig,
		"AGENTK_SIGNOZ_API_KEY":            "faults-key",
		"AGENTK_INVESTIGATOR":              "rules",
		"AGENTK_BRIDGE_ADDR":               w.bridge,
		"AGENTK_SLACK_API_URL":             w.slack.APIURL(),
		"AGENTK_SLACK_BOT_TOKEN":           botToken,
		"AGENTK_SLACK_SIGNING_SECRET":      w.secret,
		"AGENTK_SLACK_CHANNEL":             "#agentk-faults",
		"AGENTK_SLACK_RESPONSE_URL_PREFIX": w.slack.ResponseURLPrefix(),
		"AGENTK_APPROVERS":                 "slack:" + approverID + "=faults-approver",
		"AGENTK_SANDBOX_SERVICES":          scope,
		"AGENTK_DEPLOYER_SERVICES":         scope,
		"AGENTK_DEPLOYER_RUNTIME":          "dryrun",
		"AGENTK_INCIDENT_DIR":              w.inc.Dir,
		"AGENTK_COMPOSE_PROJECT":           w.inc.Releases.Project,
		"AGENTK_INGEST_ADDR":               w.ingest,
		"AGENTK_INGEST_TOKEN":              w.token,
		// A killed service's unacked message comes back after AckWait: a
		// short one keeps each crash test from waiting out the 30 s default.
		"AGENTK_BUS_ACK_WAIT": "3s",
		// A SIGKILLed deployer never releases its lease: its restart stands
		// by until the lease expires, so a short one.
		"AGENTK_DEPLOYER_LEASE": "1s",
		// Every process on this one host: each health endpoint on its own port.
		"AGENTK_HEALTH_ADDR": "127.0.0.1:0",
	}
	for _, role := range services {
		w.startService(role)
	}
}

func (w *world) startNATS(ctx context.Context) {
	w.t.Helper()
	w.nats = w.spawn("nats-server", w.natsBin, []string{"-c", w.conf}, nil)
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", w.port), time.Second)
		if err == nil {
			_ = c.Close()
			return
		}
		select {
		case <-w.nats.done:
			w.t.Fatalf("nats-server exited:\n%s", tail(w.nats.log, 30))
		case <-ctx.Done():
			w.t.Fatal(ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
		require.True(w.t, time.Now().Before(deadline), "nats-server not listening:\n%s", tail(w.nats.log, 30))
	}
}

func (w *world) startService(role string) {
	w.t.Helper()
	env := []string{"AGENTK_KEYS_DIR=" + filepath.Join(w.dir, "keys-"+role), "PATH=" + os.Getenv("PATH"), "HOME=" + w.dir}
	for k, v := range w.env {
		env = append(env, k+"="+v)
	}
	env = append(env, w.once[role]...)
	delete(w.once, role)
	p := w.spawn(role, w.agentk, []string{role}, env)
	w.procs[role] = p
	// Wait until the service says it is ready (it consumes and serves): an
	// alert fired before the deployer has seeded its ledger would be judged
	// against an empty one.
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(p.log); err == nil && bytes.Contains(b, []byte("msg=ready")) {
			return
		}
		select {
		case <-p.done:
			w.t.Fatalf("%s exited before it was ready:\n%s", role, tail(p.log, 20))
		case <-deadline.C:
			w.t.Fatalf("%s not ready after 30 s:\n%s", role, tail(p.log, 20))
		case <-tick.C:
		}
	}
}

func (w *world) spawn(name, bin string, args, env []string) *proc {
	w.t.Helper()
	log := filepath.Join(w.dir, fmt.Sprintf("%s.%d.log", name, time.Now().UnixNano()))
	f, err := os.Create(log)
	require.NoError(w.t, err)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = env
	require.NoError(w.t, cmd.Start())
	p := &proc{name: name, cmd: cmd, log: log, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); _ = f.Close(); close(p.done) }()
	return p
}

// kill SIGKILLs p and waits until it is gone.
func (p *proc) kill(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s survived SIGKILL", p.name)
	}
}

func (w *world) stopAll() {
	if w.admin != nil {
		_ = w.admin.Close()
	}
	if w.fab != nil {
		_ = w.fab.Close()
	}
	for _, p := range w.procs {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.done
	}
	if w.nats != nil {
		_ = w.nats.cmd.Process.Signal(syscall.SIGKILL)
		<-w.nats.done
	}
	if w.t.Failed() {
		for _, role := range services {
			if p, ok := w.procs[role]; ok {
				w.t.Logf("--- %s log (last lines):\n%s", role, tail(p.log, 25))
			}
		}
	}
}

// postAlert sends the incident's alert to the ingester as SigNoz does, and
// retries like Alertmanager while the ingester is not answering.
func (w *world) postAlert(ctx context.Context) {
	t := w.t
	t.Helper()
	poll(ctx, t, "ingester accepts the alert", func() (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+w.ingest+"/v1/alerts", bytes.NewReader(w.inc.AlertJSON))
		if err != nil {
			return false, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+w.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false, nil // not listening yet: the sender retries
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode/100 == 5 {
			return false, nil
		}
		if resp.StatusCode/100 != 2 {
			return false, fmt.Errorf("ingester: %s: %s", resp.Status, body)
		}
		return true, nil
	})
}

// approveInSlack clicks Approve, as the on-call human, on the first Slack
// message asking about decisionID, clicking again while the bridge is down.
func (w *world) approveInSlack(ctx context.Context, decisionID string) error {
	msg, err := w.slack.WaitMessage(ctx, func(m fakeslack.Message) bool {
		for _, b := range m.Buttons() {
			if b.ActionID == fakeslack.Approve && strings.Contains(b.Value, decisionID) {
				return true
			}
		}
		return false
	})
	if err != nil {
		return fmt.Errorf("no Slack approval request for %s: %w", decisionID, err)
	}
	for {
		status, err := w.slack.Click(ctx, "http://"+w.bridge+"/slack/interactions", w.secret, time.Now(), msg, approverID, fakeslack.Approve)
		if err == nil && status/100 == 2 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the bridge never took the click (last: %d, %v): %w", status, err, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// stored is what the streams hold: the audit trail, after every fault.
type stored struct {
	alerts    []contracts.AlertV1
	decisions []contracts.DecisionV1
	approvals []contracts.ApprovalV1
	actions   []contracts.ActionV1
}

// acted counts actions that moved (or, in a dry run, would have moved) a
// service.
func (s stored) acted() int {
	n := 0
	for _, a := range s.actions {
		if a.Outcome == contracts.OutcomeRolledBack || a.Outcome == contracts.OutcomeDryRun {
			n++
		}
	}
	return n
}

func (s stored) decisionIDs() []string {
	seen := map[string]bool{}
	for _, d := range s.decisions {
		seen[d.DecisionID] = true
	}
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// read reads every stored message of the pipeline's durable subjects,
// verifying each producer's signature.
func (w *world) read(ctx context.Context) stored {
	s, err := w.readStored(ctx)
	require.NoError(w.t, err)
	return s
}

// readStored is read returning its first error: follow calls it while the
// NATS server may be restarting.
func (w *world) readStored(ctx context.Context) (stored, error) {
	var s stored
	js := w.admin.JetStream()
	each := func(subject string, decode func([]byte) error) error {
		name, ok := topology.StreamFor(subject)
		if !ok {
			return fmt.Errorf("no stream holds %s", subject)
		}
		st, err := js.Stream(ctx, name)
		if err != nil {
			return err
		}
		info, err := st.Info(ctx)
		if err != nil {
			return err
		}
		for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
			m, err := st.GetMsg(ctx, seq)
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if m.Subject != subject {
				continue
			}
			env, err := envelope.Parse(m.Data)
			if err != nil {
				return err
			}
			if err := w.kr.VerifyProduced(env, subject, time.Now()); err != nil {
				return fmt.Errorf("stored %s #%d: %w", subject, seq, err)
			}
			if err := decode(env.Payload); err != nil {
				return err
			}
		}
		return nil
	}
	for _, r := range []struct {
		subject string
		decode  func([]byte) error
	}{
		{contracts.SubjectAlert, func(b []byte) error { return appendJSON(b, &s.alerts) }},
		{contracts.SubjectDecision, func(b []byte) error { return appendJSON(b, &s.decisions) }},
		{contracts.SubjectApproval, func(b []byte) error { return appendJSON(b, &s.approvals) }},
		{contracts.SubjectAction, func(b []byte) error { return appendJSON(b, &s.actions) }},
	} {
		if err := each(r.subject, r.decode); err != nil {
			return stored{}, err
		}
	}
	return s, nil
}

func appendJSON[T any](b []byte, dst *[]T) error {
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*dst = append(*dst, v)
	return nil
}

// quiet waits until every durable consumer of the pipeline has nothing
// pending and nothing unacknowledged: whatever a crash left to redeliver has
// been redelivered and handled, so the streams are final.
func (w *world) quiet(ctx context.Context) {
	t := w.t
	t.Helper()
	js := w.admin.JetStream()
	poll(ctx, t, "every consumer drained", func() (bool, error) {
		for _, sc := range topology.Streams {
			st, err := js.Stream(ctx, sc.Name)
			if err != nil {
				return false, nil // NATS restarting
			}
			lister := st.ListConsumers(ctx)
			for ci := range lister.Info() {
				if ci.NumPending > 0 || ci.NumAckPending > 0 {
					return false, nil
				}
			}
			if lister.Err() != nil {
				return false, nil
			}
		}
		return true, nil
	})
}

// poll calls f until it reports done, fails the test on f's error, and gives
// up when ctx ends.
func poll(ctx context.Context, t *testing.T, what string, f func() (bool, error)) {
	t.Helper()
	for {
		ok, err := f()
		require.NoError(t, err, what)
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v", what, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func httptestServe(t *testing.T, h http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + l.Addr().String()
}

func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
