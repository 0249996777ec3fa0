// Package compose tests the root docker-compose.yml on the real Docker engine:
// the images `make images` builds, the stack up, an alert fired at the
// ingester reaching a gate decision, one trace of it across every service
// (collected by an OTLP receiver on the compose network), the secrets each
// container holds, and a clean tear-down.
package compose

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"agentk/platform/deadline"

	"github.com/stretchr/testify/require"
)

// incidentDir is the recorded incident the fake SigNoz serves.
const incidentDir = "e2e/incidents/retry-storm-01"

// agentkServices are the stack's agentk containers (every one runs `agentk <service>`).
var agentkServices = []string{"ingester", "sandbox", "investigator", "reviewer", "gate", "bridge", "deployer"}

func TestComposeStack(t *testing.T) {
	requireDocker(t)
	root := repoRoot(t)
	// 1. The images, exactly as `make images` builds them. On a fresh
	// machine this compiles Docker Compose from its module first (a few
	// minutes alone, many more beside the rest of `make test` on 2 cores).
	// Builds take what the machine takes: they are bounded by the test's
	// own deadline, less the stack's 8 minutes and one to clean up, and
	// report every 30 s; the stack's 8 minutes start once they are done.
	bctx, bcancel := deadline.Context(context.Background(), t, 9*time.Minute)
	defer bcancel()
	start := time.Now()
	stop := deadline.Report(30*time.Second, func(spent time.Duration) { t.Logf("make images: still running after %s", spent) })
	out, err := run(bctx, root, []string{"AGENTK_TAG=dev"}, "make", "-s", "images")
	stop()
	require.NoError(t, err)
	t.Logf("make images: %s\n%s", time.Since(start).Round(time.Second), lastLines(out, 6))

	// 2. Keys, nats.conf, per-service keys and secrets, .env: in a temp dir.
	tmp := t.TempDir()
	state, envFile := filepath.Join(tmp, "state"), filepath.Join(tmp, "compose.env")
	_, err = run(bctx, root, []string{"AGENTK_STATE=" + state, "AGENTK_ENV_FILE=" + envFile, "AGENTK_BIN=" + filepath.Join(root, "bin", "agentk")}, "bash", "scripts/keys.sh")
	require.NoError(t, err)
	signozKey := "e2e-" + randHex(t, 16)
	require.NoError(t, os.WriteFile(filepath.Join(state, "secrets", "sandbox", "signoz_api_key"), []byte(signozKey), 0o600))
	ingestToken := readSecret(t, filepath.Join(state, "secrets", "ingester", "ingest_token"))
	consoleToken := strings.TrimPrefix(readSecret(t, filepath.Join(state, "secrets", "bridge", "console_tokens")), "oncall=")

	// 3. The fake SigNoz and the OTLP receiver, FROM scratch, on the compose
	// network only.
	project := "agentke2e" + randHex(t, 4)
	fakeImage := "agentk-e2e/fakesignoz:" + project
	sinkImage := "agentk-e2e/otlpsink:" + project
	buildFakeSignoz(bctx, t, root, fakeImage)
	start = time.Now()
	buildOTLPSink(bctx, t, root, sinkImage)
	t.Logf("OTLP sink image: %s", time.Since(start).Round(100*time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()

	env := []string{
		"COMPOSE_PROJECT_NAME=" + project,
		"AGENTK_STATE=" + state,
		"AGENTK_E2E_FAKESIGNOZ_IMAGE=" + fakeImage,
		"AGENTK_E2E_OTLPSINK_IMAGE=" + sinkImage,
		// Every service exports to the in-stack receiver, nowhere else.
		"AGENTK_OTEL_DISABLED=0",
		"SIGNOZ_OTLP_ENDPOINT=http://otlp:4318",
		// Random loopback ports: the test never collides with a running stack.
		"AGENTK_INGEST_PUBLISH=127.0.0.1:",
		"AGENTK_BRIDGE_PUBLISH=127.0.0.1:",
		"AGENTK_NATS_PUBLISH=127.0.0.1:",
		"SHOP_API_PUBLISH=127.0.0.1:",
	}
	compose := func(ctx context.Context, args ...string) (string, error) {
		base := []string{"--env-file", envFile, "-p", project,
			"-f", filepath.Join(root, "docker-compose.yml"),
			"-f", filepath.Join(root, "e2e", "compose", "testdata", "compose.test.yml")}
		return run(ctx, root, env, "docker-compose", append(base, args...)...)
	}
	down := func(ctx context.Context) error {
		_, err := compose(ctx, "down", "-v", "--remove-orphans", "--rmi", "local", "--timeout", "10")
		return err
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if t.Failed() {
			logs, _ := compose(ctx, "logs", "--no-color", "--tail", "15")
			t.Logf("compose logs:\n%s", logs)
		}
		if err := down(ctx); err != nil {
			t.Errorf("cleanup: %v", err)
		}
		if _, err := run(ctx, "", nil, "docker", "rmi", "-f", fakeImage, sinkImage); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})

	// 4. Up.
	start = time.Now()
	_, err = compose(ctx, "up", "-d")
	require.NoError(t, err)

	// 5. Streams and buckets: the one-shot provision container creates them
	// as the admin; every service waits for it to complete.
	waitProvision(ctx, t, project)

	ingestURL := "http://" + publishedPort(ctx, t, compose, "ingester", "8081")
	bridgeURL := "http://" + publishedPort(ctx, t, compose, "bridge", "8082")
	sinkURL := "http://" + publishedPort(ctx, t, compose, "otlp", "4319")
	// OTLP itself is for the containers alone: not published.
	if out, err := compose(ctx, "port", "otlp", "4318"); err == nil && strings.TrimSpace(out) != "" && !strings.HasSuffix(strings.TrimSpace(out), ":0") {
		t.Fatalf("the OTLP sink's 4318 is published on %q", out)
	}
	poll(t, ctx, 90*time.Second, "ingester healthy", func(ctx context.Context) (bool, error) {
		code, _, err := get(ctx, ingestURL+"/healthz", "")
		return code == http.StatusOK, err
	})
	poll(t, ctx, 90*time.Second, "bridge answering its API", func(ctx context.Context) (bool, error) {
		code, _, err := get(ctx, bridgeURL+"/api/v1/decisions", consoleToken)
		return code == http.StatusOK, err
	})
	poll(t, ctx, 30*time.Second, "OTLP sink answering", func(ctx context.Context) (bool, error) {
		_, err := readSink(ctx, sinkURL)
		return err == nil, err
	})
	t.Logf("stack up (images present, every service answering): %s", time.Since(start).Round(100*time.Millisecond))

	// 6. The alert, as SigNoz sends it, with the webhook's bearer token.
	alert, err := os.ReadFile(filepath.Join(root, incidentDir, "alert.json"))
	require.NoError(t, err)
	fired := time.Now()
	poll(t, ctx, 30*time.Second, "ingester accepting the alert", func(ctx context.Context) (bool, error) {
		code, body, err := post(ctx, ingestURL+"/v1/alerts", ingestToken, alert)
		if err != nil {
			return false, err
		}
		if code/100 != 2 {
			return false, fmt.Errorf("status %d: %s", code, body)
		}
		return true, nil
	})

	// 7. A gate decision on shop-api, seen where a human sees it: the bridge.
	var decision map[string]any
	poll(t, ctx, 2*time.Minute, "a decision on the bridge", func(ctx context.Context) (bool, error) {
		code, body, err := get(ctx, bridgeURL+"/api/v1/decisions", consoleToken)
		if err != nil || code != http.StatusOK {
			return false, fmt.Errorf("status %d: %s: %v", code, body, err)
		}
		var ds []map[string]any
		if err := json.Unmarshal(body, &ds); err != nil {
			return false, err
		}
		for _, d := range ds {
			if d["service"] == "shop-api" {
				decision = d
				return true, nil
			}
		}
		return false, nil
	})
	require.Contains(t, []any{"allow", "deny"}, decision["verdict"], "decision %v", decision)
	require.NotEmpty(t, decision["decision_id"])
	t.Logf("alert → decision in %s: %v", time.Since(fired).Round(100*time.Millisecond), decision)

	// 7b. The operator's commands on the host, as docs/deploy.md says: NATS
	// published on loopback, the admin seed keys.sh left in the state's keys.
	natsURL := "nats://" + publishedPort(ctx, t, compose, "nats", "4222")
	opEnv := []string{"AGENTK_NATS_URL=" + natsURL, "AGENTK_KEYS_DIR=" + filepath.Join(state, "keys"), "AGENTK_DATA_DIR=" + filepath.Join(tmp, "host-data")}
	out, err = run(ctx, root, opEnv, filepath.Join(root, "bin", "agentk"), "incidents", "--json")
	require.NoError(t, err, out)
	require.Contains(t, out, fmt.Sprint(decision["incident_id"]), "agentk incidents on the host lists the stack's incident")
	out, err = run(ctx, root, opEnv, filepath.Join(root, "bin", "agentk"), "decisions")
	require.NoError(t, err, out)
	if decision["verdict"] == "allow" {
		require.Contains(t, out, fmt.Sprint(decision["decision_id"]), "an allowed decision awaits an answer")
	}
	checkConfig(ctx, t, root, compose, append(opEnv, "AGENTK_CONSOLE_URL="+bridgeURL, "AGENTK_APPROVER_TOKEN="+consoleToken))

	// 8. The incident as one trace, read back from the OTLP sink.
	start = time.Now()
	checkTrace(ctx, t, sinkURL, decision)
	t.Logf("the incident's trace collected %s after the decision", time.Since(start).Round(100*time.Millisecond))

	// 9. What each container holds, from the Docker API.
	cs := inspectProject(ctx, t, project)
	checkIsolation(t, cs, state)

	// 10. Down, and nothing of the project left.
	start = time.Now()
	require.NoError(t, down(ctx))
	left, err := leftovers(ctx, project)
	require.NoError(t, err)
	require.Empty(t, left, "left behind after down")
	t.Logf("down -v: %s", time.Since(start).Round(100*time.Millisecond))
}

// checkConfig is `agentk config` as docs/deploy.md tells an operator to run
// it (issue 34 #2): on the host with the documented exports it checks what
// the operator's commands need and passes (it used to call four healthy
// services INVALID), and each service's own check, run where the service
// runs (`docker-compose exec -T <svc> agentk config --service <svc>`), says ok.
func checkConfig(ctx context.Context, t *testing.T, root string, compose func(context.Context, ...string) (string, error), opEnv []string) {
	t.Helper()
	// A healthy stack: Docker's healthcheck (each service's /readyz) says so.
	poll(t, ctx, 3*time.Minute, "every agentk service healthy", func(ctx context.Context) (bool, error) {
		out, err := compose(ctx, "ps")
		if err != nil {
			return false, err
		}
		for _, svc := range agentkServices {
			if !healthy(out, svc) {
				return false, fmt.Errorf("%s not healthy:\n%s", svc, out)
			}
		}
		return true, nil
	})
	out, err := run(ctx, root, opEnv, filepath.Join(root, "bin", "agentk"), "config")
	require.NoError(t, err, out)
	require.NotContains(t, out, "INVALID")
	require.Regexp(t, `nats +ok: `, out)
	require.Regexp(t, `bridge api +ok: `, out)
	for _, svc := range agentkServices {
		out, err := compose(ctx, "exec", "-T", svc, "/usr/local/bin/agentk", "config", "--service", svc)
		require.NoError(t, err, "%s: %s", svc, out)
		require.Regexp(t, `(?m)^  `+svc+` +ok$`, out, svc)
		require.NotContains(t, out, "NOT READY", svc)
	}
}

// healthy reports whether `docker-compose ps` shows svc's container up and
// healthy.
func healthy(ps, svc string) bool {
	for _, line := range strings.Split(ps, "\n") {
		named := strings.Contains(line, "_"+svc+"_") || strings.Contains(line, "-"+svc+"-") // compose v1, v2
		if named && strings.Contains(line, "(healthy)") {
			return true
		}
	}
	return false
}

// checkIsolation asserts DESIGN.md's table on the running containers: the
// Docker socket in the deployer alone, each service's keys dir holding only
// its own seed, the SigNoz key in the sandbox alone, the LLM key in the
// investigator alone.
func checkIsolation(t *testing.T, cs map[string]container, state string) {
	t.Helper()
	for _, svc := range append(slices.Clone(agentkServices), "nats", "shop-api", "provision", "signoz", "otlp") {
		c, ok := cs[svc]
		require.True(t, ok, "no %s container", svc)
		require.Equal(t, svc == "deployer", c.hasDockerSocket(), "%s: Docker socket mounted = %v", svc, c.hasDockerSocket())
	}
	require.True(t, cs["deployer"].hasDockerSocket())
	require.Empty(t, cs["otlp"].Mounts, "the OTLP sink mounts nothing")

	for _, svc := range agentkServices {
		c := cs[svc]
		src, ok := c.mountAt("/run/agentk/keys")
		require.True(t, ok, "%s: no keys mount", svc)
		require.Equal(t, filepath.Join(state, "keys-"+svc), src, "%s: keys dir", svc)
		require.ElementsMatch(t, []string{svc + ".nk", "keyring.json"}, dirNames(t, src), "%s holds a seed that is not its own", svc)

		if src, ok := c.mountAt("/run/secrets"); ok {
			require.Equal(t, filepath.Join(state, "secrets", svc), src, "%s: mounts another service's secrets", svc)
		}
		for _, m := range c.Mounts {
			require.NotEqual(t, filepath.Join(state, "keys"), m.Source, "%s mounts every seed", svc)
			require.NotEqual(t, filepath.Join(state, "keys-admin"), m.Source, "%s mounts the admin seed", svc)
		}
		if svc != "sandbox" {
			require.Empty(t, c.envWithPrefix("AGENTK_SIGNOZ_API_KEY"), "%s has a SigNoz key variable", svc)
			_, ok := c.mountAt("/run/secrets")
			require.False(t, ok && slices.Contains(dirNames(t, filepath.Join(state, "secrets", svc)), "signoz_api_key"), "%s has a SigNoz key file", svc)
		}
		if svc != "investigator" {
			require.Empty(t, c.envWithPrefix("AGENTK_LLM_API_KEY"), "%s has an LLM key variable", svc)
		}
	}

	inv := cs["investigator"]
	require.False(t, inv.hasDockerSocket(), "investigator has the Docker socket")
	require.Empty(t, inv.envWithPrefix("AGENTK_SIGNOZ"), "investigator knows SigNoz")
	src, _ := inv.mountAt("/run/secrets")
	require.Equal(t, []string{"llm_api_key"}, dirNames(t, src), "investigator's secrets")

	dep := cs["deployer"]
	require.Empty(t, dep.envWithPrefix("AGENTK_LLM"), "deployer has LLM settings")
	_, hasSecrets := dep.mountAt("/run/secrets")
	require.False(t, hasSecrets, "deployer mounts secrets")

	sb := cs["sandbox"]
	src, _ = sb.mountAt("/run/secrets")
	require.Equal(t, []string{"signoz_api_key"}, dirNames(t, src), "sandbox's secrets")
	require.Empty(t, sb.envWithPrefix("AGENTK_LLM"), "sandbox has LLM settings")
}

// waitProvision waits for the provision container to exit 0.
func waitProvision(ctx context.Context, t *testing.T, project string) {
	t.Helper()
	poll(t, ctx, 90*time.Second, "provision container finished", func(ctx context.Context) (bool, error) {
		c, ok := inspectProject(ctx, t, project)["provision"]
		if !ok {
			return false, fmt.Errorf("no provision container")
		}
		if c.State.Status == "exited" && c.State.ExitCode == 0 {
			return true, nil
		}
		logs, _ := run(ctx, "", nil, "docker", "logs", c.ID)
		return false, fmt.Errorf("provision: %s (exit %d): %s", c.State.Status, c.State.ExitCode, lastLines(logs, 3))
	})
}

func buildFakeSignoz(ctx context.Context, t *testing.T, root, tag string) {
	t.Helper()
	bctx := t.TempDir()
	rootfs := filepath.Join(bctx, "rootfs")
	require.NoError(t, os.MkdirAll(rootfs, 0o755))
	_, err := run(ctx, filepath.Join(root, "e2e"), []string{"CGO_ENABLED=0", "GOOS=linux"},
		"go", "build", "-trimpath", "-o", filepath.Join(rootfs, "fakesignoz"), "./compose/testdata/cmd/fakesignoz")
	require.NoError(t, err)
	// Under its own name: a folder whose name is not its incident.yaml id is
	// refused (contracts/incident), and the fake SigNoz would exit.
	require.NoError(t, os.MkdirAll(filepath.Join(rootfs, "incidents"), 0o755))
	_, err = run(ctx, "", nil, "cp", "-r", filepath.Join(root, incidentDir), filepath.Join(rootfs, "incidents", filepath.Base(incidentDir)))
	require.NoError(t, err)
	dockerfile := "FROM scratch\nCOPY rootfs/ /\nUSER 65532:65532\nENTRYPOINT [\"/fakesignoz\"]\n"
	require.NoError(t, os.WriteFile(filepath.Join(bctx, "Dockerfile"), []byte(dockerfile), 0o644))
	_, err = run(ctx, "", nil, "docker", "build", "--pull=false", "-q", "-t", tag, bctx)
	require.NoError(t, err)
}

func publishedPort(ctx context.Context, t *testing.T, compose func(context.Context, ...string) (string, error), svc, port string) string {
	t.Helper()
	// A container in a restart back-off has no published port: wait for one.
	var addr string
	poll(t, ctx, 90*time.Second, svc+" publishing "+port, func(ctx context.Context) (bool, error) {
		out, err := compose(ctx, "port", svc, port)
		addr = strings.TrimSpace(out)
		return err == nil && addr != "" && !strings.HasSuffix(addr, ":0"), err
	})
	require.True(t, strings.HasPrefix(addr, "127.0.0.1:"), "%s:%s published on %q, not loopback", svc, port, addr)
	return addr
}

func get(ctx context.Context, url, bearer string) (int, []byte, error) {
	return do(ctx, http.MethodGet, url, bearer, nil)
}

func post(ctx context.Context, url, bearer string, body []byte) (int, []byte, error) {
	return do(ctx, http.MethodPost, url, bearer, body)
}

func do(ctx context.Context, method, url, bearer string, body []byte) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, b, err
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func readSecret(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return strings.TrimSpace(string(b))
}

func randHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return hex.EncodeToString(b)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
