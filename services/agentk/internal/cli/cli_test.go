package cli

import (
	"context"
	"encoding/json"

	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentk/cmd/agentk/internal/chain"
	"agentk/cmd/agentk/internal/command"
	"agentk/cmd/agentk/internal/envdoc"
	"agentk/contracts"
	"agentk/platform/identity"

	"github.com/stretchr/testify/require"
)

// repoRoot is the repository, from this package.
const repoRoot = "../../../.."

// Flags are accepted before, between and after the positional arguments.
func TestInterspersedFlags(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		args   []string
		json   bool
		dur    time.Duration
		reason string
		pos    []string
	}{
		{name: "flags first", args: []string{"--json", "--for", "1h", "shop-api"}, json: true, dur: time.Hour, pos: []string{"shop-api"}},
		{name: "flags last", args: []string{"shop-api", "--for", "1h"}, dur: time.Hour, pos: []string{"shop-api"}},
		{name: "between", args: []string{"a", "--reason", "deploy freeze", "b", "-json"}, json: true, dur: 4 * time.Hour, reason: "deploy freeze", pos: []string{"a", "b"}},
		{name: "equals form", args: []string{"a", "--for=2h"}, dur: 2 * time.Hour, pos: []string{"a"}},
		{name: "double dash ends flags", args: []string{"a", "--", "--json", "b"}, dur: 4 * time.Hour, pos: []string{"a", "--json", "b"}},
		{name: "no arguments", dur: 4 * time.Hour},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _, _ := testCLI(nil)
			fs := command.NewFlags(c, "x", "x")
			asJSON := fs.Bool("json", false, "")
			d := fs.Duration("for", 4*time.Hour, "")
			reason := fs.String("reason", "", "")
			require.NoError(t, fs.Parse(tc.args))
			require.Equal(t, tc.json, *asJSON)
			require.Equal(t, tc.dur, *d)
			require.Equal(t, tc.reason, *reason)
			require.Equal(t, len(tc.pos), fs.NArg())
			if len(tc.pos) > 0 {
				require.Equal(t, tc.pos, fs.Args())
			}
		})
	}
	t.Run("an unknown flag after an argument is still an error", func(t *testing.T) {
		c, _, _ := testCLI(nil)
		fs := command.NewFlags(c, "x", "x")
		require.Error(t, fs.Parse([]string{"a", "--nope"}))
	})
}

// The README's own example: `agentk freeze shop-api --for 1h --reason …`
// reaches the bridge with the service and the duration.
func TestFreezeFlagsAfterService(t *testing.T) {
	t.Parallel()
	var got map[string]string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "/api/v1/freezes", r.URL.Path)
		require.NoError(t, json.NewDecoder(r.Body).Decode(&got))
		_ = json.NewEncoder(w).Encode(contracts.FreezeV1{FreezeID: "frz-1", Scope: got["scope"], Active: true, Reason: got["reason"], By: "oncall", ExpiresAt: time.Now().Add(time.Hour)})
	}))
	defer srv.Close()
	c, out, errb := testCLI(map[string]string{"AGENTK_CONSOLE_URL": srv.URL, "AGENTK_APPROVER_TOKEN": "tok-0123456789abcdef"})
	require.Equal(t, 0, run(context.Background(), c, []string{"freeze", "shop-api", "--for", "1h", "--reason", "release train"}), errb.String())
	require.Equal(t, map[string]string{"scope": "shop-api", "duration": "1h0m0s", "reason": "release train"}, got)
	require.Contains(t, out.String(), "frozen: shop-api by oncall")
}

// The README's other example: `agentk replay <dir> --investigator persona:liar`.
func TestReplayFlagsAfterDir(t *testing.T) {
	if testing.Short() {
		t.Skip("replays an incident")
	}
	c, out, errb := testCLI(nil)
	dir := filepath.Join(repoRoot, "e2e", "incidents", "db-pool-exhaustion-01")
	require.Equal(t, 0, run(context.Background(), c, []string{"replay", dir, "--investigator", "persona:liar", "--json"}), errb.String())
	var res struct {
		Investigator string `json:"investigator"`
		Verdict      string `json:"verdict"`
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &res))
	require.Equal(t, "persona:liar", res.Investigator, "the flag after the folder took effect")
	require.Equal(t, "deny", res.Verdict, "the README's showcase: the liar gets no rollback here")
}

func TestVersion(t *testing.T) {
	t.Parallel()
	// The wording from the build information: command's TestVersionInfo.
	c, out, _ := testCLI(nil)
	require.Equal(t, 0, run(context.Background(), c, []string{"version"}))
	require.True(t, strings.HasPrefix(out.String(), "agentk "), out.String())
}

// -ldflags "-X main.version=…" names the release.
func TestVersionLdflags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "agentk")
	b, err := exec.Command("go", "build", "-ldflags", "-X main.version=v9.8.7", "-o", bin, "agentk/cmd/agentk").CombinedOutput()
	require.NoError(t, err, string(b))
	out, err := exec.Command(bin, "version").Output()
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(out), "agentk v9.8.7"), string(out))
}

func TestHelpCommand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, cmd string
		want      []string
		not       []string
	}{
		{name: "an operator command", cmd: "incidents", want: []string{"Usage: agentk incidents", "--since", "--connect-timeout", "AGENTK_NATS_URL", "AGENTK_CONNECT_TIMEOUT"}, not: []string{"AGENTK_GATE_"}},
		{name: "freeze reads the bridge's address and token", cmd: "freeze", want: []string{"--for", "--reason", "AGENTK_APPROVER_TOKEN", "AGENTK_CONSOLE_URL"}},
		{name: "a service", cmd: "gate", want: []string{"AGENTK_GATE_BURN_RATE_THRESHOLD", "AGENTK_HEALTH_ADDR", "AGENTK_NATS_URL"}, not: []string{"AGENTK_SLACK_", "AGENTK_STREAM_REPLICAS"}},
		{name: "up reads every service's", cmd: "up", want: []string{"checked first", "AGENTK_SLACK_BOT_TOKEN", "bridge: ", "AGENTK_DEPLOYER_RUNTIME", "AGENTK_HEALTH_ADDR"}, not: []string{"AGENTK_STREAM_REPLICAS"}},
		{name: "provision", cmd: "provision", want: []string{"--timeout", "AGENTK_STREAM_REPLICAS", "AGENTK_NATS_URL"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, out, errb := testCLI(nil)
			require.Equal(t, 0, run(context.Background(), c, []string{"help", tc.cmd}), errb.String())
			for _, w := range tc.want {
				require.Contains(t, out.String(), w)
			}
			for _, n := range tc.not {
				require.NotContains(t, out.String(), n)
			}
		})
	}
	c, _, errb := testCLI(nil)
	require.Equal(t, 2, run(context.Background(), c, []string{"help", "nope"}))
	require.Contains(t, errb.String(), `unknown command "nope"`)
}

// The bash script completes commands and each command's own flags.
func TestBashCompletion(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	c, out, _ := testCLI(nil)
	require.Equal(t, 0, run(context.Background(), c, []string{"completion", "bash"}))
	script := filepath.Join(t.TempDir(), "agentk.bash")
	require.NoError(t, os.WriteFile(script, out.Bytes(), 0o644))
	complete := func(words ...string) string {
		sh := `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _agentk; echo "${COMPREPLY[*]}"`
		b, err := exec.Command(bash, append([]string{"-c", sh, "_", script}, words...)...).CombinedOutput()
		require.NoError(t, err, string(b))
		return strings.TrimSpace(string(b))
	}
	de := strings.Fields(complete("agentk", "de"))
	require.Subset(t, de, []string{"decisions", "deny", "demo", "deployer"})
	for _, w := range de {
		require.True(t, strings.HasPrefix(w, "de"), w)
	}
	require.Equal(t, "--for", complete("agentk", "freeze", "shop-api", "--f"))
	require.Contains(t, complete("agentk", "replay", "--inv"), "--investigator")
	require.Equal(t, "incidents", complete("agentk", "help", "inc"))
}

func TestZshCompletion(t *testing.T) {
	t.Parallel()
	c, out, _ := testCLI(nil)
	require.Equal(t, 0, run(context.Background(), c, []string{"completion", "zsh"}))
	require.True(t, strings.HasPrefix(out.String(), "#compdef agentk\n"))
	require.Contains(t, out.String(), "freeze) _arguments")
	require.Contains(t, out.String(), "'--reason[]'")
	if zsh, err := exec.LookPath("zsh"); err == nil {
		b, err := exec.Command(zsh, "-n", "-c", out.String()).CombinedOutput()
		require.NoError(t, err, string(b))
	}
	c, _, _ = testCLI(nil)
	require.Equal(t, 2, run(context.Background(), c, []string{"completion", "fish"}))
}

// An operator command against an address where nothing answers fails within
// its connect timeout, naming the address, instead of hanging.
func TestOperatorConnectTimeout(t *testing.T) {
	t.Parallel()
	// A listener that accepts and never speaks NATS: a black hole.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() }) // after the parallel subtests
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			defer conn.Close()
		}
	}()
	keys := t.TempDir()
	_, err = identity.Ensure(keys)
	require.NoError(t, err)
	cases := []struct {
		name string
		env  map[string]string
		args []string
	}{
		{name: "incidents, flag", env: map[string]string{"AGENTK_NATS_URL": "nats://" + l.Addr().String(), "AGENTK_KEYS_DIR": keys}, args: []string{"incidents", "--connect-timeout", "500ms"}},
		{name: "audit, variable", env: map[string]string{"AGENTK_NATS_URL": "nats://" + l.Addr().String(), "AGENTK_KEYS_DIR": keys, "AGENTK_CONNECT_TIMEOUT": "500ms"}, args: []string{"audit", "inc-1"}},
		{name: "decisions, refused port", env: map[string]string{"AGENTK_NATS_URL": "nats://" + freePort(t), "AGENTK_KEYS_DIR": keys, "AGENTK_CONNECT_TIMEOUT": "500ms"}, args: []string{"decisions"}},
		{name: "approve, bridge", env: map[string]string{"AGENTK_CONSOLE_URL": "http://" + l.Addr().String(), "AGENTK_APPROVER_TOKEN": "tok-0123456789abcdef", "AGENTK_CONNECT_TIMEOUT": "500ms"}, args: []string{"approve", "dec-1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _, errb := testCLI(tc.env)
			start := time.Now()
			require.Equal(t, 1, run(context.Background(), c, tc.args), errb.String())
			require.Less(t, time.Since(start), 5*time.Second, "fails fast")
			require.Contains(t, errb.String(), l.Addr().String()[:len("127.0.0.1:")])
			require.Contains(t, errb.String(), "deadline exceeded")
		})
	}
	t.Run("a bad timeout is refused by name", func(t *testing.T) {
		c, _, errb := testCLI(map[string]string{"AGENTK_CONNECT_TIMEOUT": "soon"})
		require.Equal(t, 2, run(context.Background(), c, []string{"incidents"}))
		require.Contains(t, errb.String(), `AGENTK_CONNECT_TIMEOUT="soon"`)
	})
}

// Without a reachable NATS and without an embedded store, an operator
// command says so (a compose host has .data/keys but no store: it used to
// print "no incidents" from a fresh empty server).
func TestOperatorNoPipeline(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	_, err := identity.Ensure(filepath.Join(data, "keys"))
	require.NoError(t, err)
	port := freePort(t)
	c, out, errb := testCLI(map[string]string{"AGENTK_DATA_DIR": data, "AGENTK_NATS_PORT": port[strings.LastIndex(port, ":")+1:]})
	require.Equal(t, 1, run(context.Background(), c, []string{"incidents"}))
	require.Empty(t, out.String())
	require.Contains(t, errb.String(), "nothing answers on nats://127.0.0.1:")
	require.Contains(t, errb.String(), "AGENTK_NATS_URL")
}

func TestAuditUnknownIncident(t *testing.T) {
	t.Parallel()
	require.True(t, chain.Report{Links: []chain.Link{{Link: "alert", What: "missing"}, {Link: "review", What: "missing"}}}.Unknown())
	require.False(t, chain.Report{Links: []chain.Link{{Link: "alert", What: "firing"}, {Link: "review", What: "missing"}}}.Unknown())
}

func TestSecretFromDeclarations(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		secret bool
	}{
		{"AGENTK_SLACK_SIGNING_SECRET", true},
		{"AGENTK_INGEST_BASIC_USER", true}, // declared with _FILE, though the name is no secret's
		{"AGENTK_APPROVERS", true},
		{"OTEL_EXPORTER_OTLP_HEADERS", true},
		{"AGENTK_SLACK_BOT_TOKEN_FILE", false}, // a path
		{"AGENTK_GATE_COOLDOWN", false},
		{"AGENTK_INGEST_MAX_INVESTIGATIONS", false},
		{"AGENTK_MY_TOKEN", false}, // undeclared: not judged by its name; agentk config never shows its value
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.secret, envdoc.Secret(tc.name))
		})
	}
}

// `agentk config` lists unknown variables and redacts declared secrets.
func TestConfigWarnsAndRedacts(t *testing.T) {
	t.Parallel()
	env := map[string]string{"AGENTK_GATE_COLDOWN": "1m", "AGENTK_INGEST_BASIC_USER": "alice-the-user", "AGENTK_INGEST_BASIC_PASSWORD": "hunter2-hunter2", "AGENTK_MY_TOKEN": "undeclared-value"}
	c, out, _ := testCLI(env)
	c.ListEnv = func() []string {
		var kv []string
		for k, v := range env {
			kv = append(kv, k+"="+v)
		}
		return kv
	}
	run(context.Background(), c, []string{"config"})
	require.Contains(t, out.String(), "did you mean AGENTK_GATE_COOLDOWN?")
	require.NotContains(t, out.String(), "alice-the-user")
	require.NotContains(t, out.String(), "hunter2")
	require.NotContains(t, out.String(), "undeclared-value", "an undeclared variable's value is never shown")
	require.Contains(t, out.String(), "AGENTK_MY_TOKEN is not a variable agentk reads")
}

// `agentk up` checks every service first and names every problem at once.
func TestUpReportsEveryProblem(t *testing.T) {
	t.Parallel()
	env := map[string]string{"AGENTK_GATE_COOLDOWN": "forever", "AGENTK_DEPLOYER_RUNTIME": "teleport", "AGENTK_INGEST_MAX_BODY": "-1",
		"AGENTK_BUS_MAX_DELIVER": "0", "AGENTK_DATA_DIR": t.TempDir(), "AGENTK_GATE_COLDOWN": "1m"}
	c, _, errb := testCLI(env)
	c.ListEnv = func() []string { return []string{"AGENTK_GATE_COLDOWN=1m"} }
	require.Equal(t, 2, run(context.Background(), c, []string{"up"}))
	for _, w := range []string{"service(s) would refuse to start", "platform:", "AGENTK_BUS_MAX_DELIVER", "gate:", "AGENTK_GATE_COOLDOWN", "deployer:", "AGENTK_DEPLOYER_RUNTIME", "ingester:", "AGENTK_INGEST_MAX_BODY",
		"unknown variable: AGENTK_GATE_COLDOWN", "did you mean AGENTK_GATE_COOLDOWN?"} {
		require.Contains(t, errb.String(), w)
	}
}

// FuzzInterspersedParse: whatever the command line, Parse never panics, and
// the arguments are the words a flag did not take, in order (everything after
// the first "--").
func FuzzInterspersedParse(f *testing.F) {
	f.Add("shop-api --for 1h --reason x")
	f.Add("--json a -- --b c")
	f.Add("a b c")
	f.Add("-for=2h - -- -- x")
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		c, _, _ := testCLI(nil)
		fs := command.NewFlags(c, "x", "x")
		fs.Bool("json", false, "")
		fs.Duration("for", time.Hour, "")
		fs.String("reason", "", "")
		if fs.Parse(args) != nil {
			return
		}
		var want []string
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "--":
				want = append(want, args[i+1:]...)
				i = len(args)
			case len(a) > 1 && a[0] == '-':
				name := strings.TrimLeft(a, "-")
				if !strings.Contains(name, "=") && (name == "for" || name == "reason") {
					i++ // its value
				}
			default:
				want = append(want, a)
			}
		}
		if len(want) == 0 {
			want = []string{}
		}
		got := append([]string{}, fs.Args()...)
		require.Equal(t, want, got, "%q", args)
	})
}
