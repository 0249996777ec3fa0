package cli

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"
	"agentk/platform/fabric"
	"agentk/platform/freeport"
	"agentk/platform/service"
	"agentk/services/sandbox/fakesignoz"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// TestMain lets a test run Main in a child process: the real binary's
// entry, real signals.
func TestMain(m *testing.M) {
	if os.Getenv("AGENTK_TEST_RUN_MAIN") == "1" {
		os.Exit(Main(os.Args[1:], ""))
	}
	os.Exit(m.Run())
}

// freePort is a loopback address for a server the child process binds
// later, outside the ephemeral range (freeport): a port from Listen(":0")
// was once taken by another connection before `agentk up` bound it.
func freePort(t *testing.T) string {
	t.Helper()
	return freeport.Addr(t)
}

type upProcess struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	done   chan error
}

func startUp(t *testing.T, env []string) *upProcess {
	cmd := exec.Command(os.Args[0], "up")
	cmd.Env = append(os.Environ(), append(env, "AGENTK_TEST_RUN_MAIN=1")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	p := &upProcess{cmd: cmd, stderr: &stderr, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return p
}

func waitReady(t *testing.T, p *upProcess, healthAddr string) {
	deadline := time.After(60 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for _, svc := range service.Roles() {
		for {
			resp, err := http.Get("http://" + healthAddr + "/" + svc + "/readyz")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
			select {
			case err := <-p.done:
				t.Fatalf("agentk up exited early: %v\n%s", err, p.stderr)
			case <-deadline:
				t.Fatalf("%s never became ready\n%s", svc, p.stderr)
			case <-tick.C:
			}
		}
	}
}

func (p *upProcess) stop(t *testing.T, sig syscall.Signal) {
	require.NoError(t, p.cmd.Process.Signal(sig))
	select {
	case err := <-p.done:
		require.NoError(t, err, "agentk up must exit 0 on %s\n%s", sig, p.stderr)
	case <-time.After(60 * time.Second):
		t.Fatalf("agentk up did not stop on %s\n%s", sig, p.stderr)
	}
}

// TestUpHealthAndCleanStop starts `agentk up` as a real process, waits for
// every service's /readyz, posts an alert, stops it with SIGTERM straight
// away, starts it again on the same data directory, and finds the incident
// decided: a signal loses nothing in flight.
func TestUpHealthAndCleanStop(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole stack twice")
	}
	inc, err := incident.Load(filepath.Join(repoRoot, "e2e", "incidents", "db-pool-exhaustion-01"))
	require.NoError(t, err)
	sig := httptest.NewServer(fakesignoz.New(inc, fakesignoz.Options{APIKey: "ro"}))
	defer sig.Close()
	data := t.TempDir()
	health, ingest, bridge, natsAddr := freePort(t), freePort(t), freePort(t), freePort(t)
	_, natsPort, _ := net.SplitHostPort(natsAddr)
	env := []string{
		"AGENTK_DATA_DIR=" + data, "AGENTK_NATS_PORT=" + natsPort, "AGENTK_HEALTH_ADDR=" + health, "AGENTK_OTEL_DISABLED=1", "AGENTK_LOG_LEVEL=warn",
		"AGENTK_INGEST_ADDR=" + ingest, "AGENTK_INGEST_TOKEN=tok-0123456789abcdef",
		"AGENTK_SIGNOZ_URL=" + sig.URL, "AGENTK_SIGNOZ_API_KEY=ro",
		"AGENTK_BRIDGE_ADDR=" + bridge, "AGENTK_CONSOLE_TOKENS=alice=console-token-0123456789",
		"AGENTK_SANDBOX_SERVICES=shop-api", "AGENTK_DEPLOYER_SERVICES=shop-api", "AGENTK_DEPLOYER_RUNTIME=dryrun",
	}
	p := startUp(t, env)
	waitReady(t, p, health)

	// The alert was sent a minute after it started firing: the services run on
	// the wall clock, so shift the recorded incident's times to now.
	body := bytes.ReplaceAll(inc.AlertJSON, []byte(inc.Meta.Now.Add(-time.Minute).Format(time.RFC3339)), []byte(time.Now().UTC().Add(-time.Minute).Format(time.RFC3339)))
	req, _ := http.NewRequest(http.MethodPost, "http://"+ingest+"/v1/alerts", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer tok-0123456789abcdef")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	p.stop(t, syscall.SIGTERM)

	p = startUp(t, env)
	waitReady(t, p, health)
	defer p.stop(t, syscall.SIGINT)

	// Read the decision stream as the operator would.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f, err := fabric.Remote(ctx, "nats://"+natsAddr, filepath.Join(data, "keys"), fabric.Options{})
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	admin, err := f.Admin(ctx)
	require.NoError(t, err)
	defer func() { _ = admin.Close() }()
	cons, err := admin.JetStream().OrderedConsumer(ctx, "AGENTK_DECISIONS", jetstream.OrderedConsumerConfig{})
	require.NoError(t, err)
	msg, err := cons.Next(jetstream.FetchMaxWait(55 * time.Second))
	require.NoError(t, err, "the incident posted before SIGTERM must still reach a decision\n%s", p.stderr)
	var d contracts.DecisionV1
	_, err = f.Keyring().Open(msg.Data(), contracts.SubjectDecision, time.Now(), &d)
	require.NoError(t, err)
	require.Equal(t, "shop-api", d.Service)
	require.Equal(t, contracts.VerdictDeny, d.Verdict, "a runtime incident is denied")
}

// A bad AGENTK_LOG_LEVEL is refused before anything starts, not ignored:
// `agentk up` and `agentk <service>` read it as platform/config/global.go does.
func TestBadLogLevelIsRefused(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
		env  map[string]string
	}{
		{name: "up", args: []string{"up"}},
		{name: "one service", args: []string{"gate"}, env: map[string]string{"AGENTK_NATS_URL": "nats://127.0.0.1:1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"AGENTK_LOG_LEVEL": "loud", "AGENTK_DATA_DIR": t.TempDir()}
			for k, v := range tc.env {
				env[k] = v
			}
			c, _, errb := testCLI(env)
			c.ListEnv = func() []string { return nil }
			require.Equal(t, 2, run(context.Background(), c, tc.args))
			require.Contains(t, errb.String(), "AGENTK_LOG_LEVEL")
			require.Contains(t, errb.String(), "platform:")
		})
	}
}
