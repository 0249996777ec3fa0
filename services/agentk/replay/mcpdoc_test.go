package replay_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"agentk/cmd/agentk/replay"
	"agentk/platform/freeport"

	"github.com/stretchr/testify/require"
)

// officialBinary is where docs/signoz.md installs the official server.
const officialBinary = "/usr/local/bin/signoz-mcp-server"

// officialSteps returns the shell blocks of docs/signoz.md's "The official
// server, step by step", in order: the stdio variables, the HTTP server's
// command line, the HTTP variables.
func officialSteps(t *testing.T) [3]string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "signoz.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(doc), "### The official server, step by step")
	require.True(t, ok, "docs/signoz.md has lost its official-server section")
	section, _, _ = strings.Cut(section, "\n## ")
	section, _, _ = strings.Cut(section, "\n### ") // the measurements after the steps
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(section, -1)
	require.Len(t, blocks, 3, "the section's three shell blocks")
	return [3]string{blocks[0][1], blocks[1][1], blocks[2][1]}
}

// assignments reads KEY=VALUE words.
func assignments(t *testing.T, block string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, w := range strings.Fields(block) {
		k, v, ok := strings.Cut(w, "=")
		if ok {
			out[k] = v
		}
	}
	return out
}

// standIn builds services/sandbox/cmd/fakesignoz-mcp, configured like the
// official server, into dir.
func standIn(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "fakesignoz-mcp")
	out, err := exec.Command("go", "build", "-o", bin, "agentk/services/sandbox/cmd/fakesignoz-mcp").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// TestOfficialMCPServerDocFollowedLiterally follows docs/signoz.md's steps
// for the official SigNoz MCP server word for word, with our stand-in at the
// binary's place (CI cannot build the official one): over stdio, and over
// HTTP with the documented command line (on 127.0.0.1, without a key). Each
// replays a deployment-class incident, which must be allowed, and the
// server must have been used: the stdio server started with only the
// documented environment, the HTTP server answering requests.
func TestOfficialMCPServerDocFollowedLiterally(t *testing.T) {
	if testing.Short() {
		t.Skip("replays an incident twice")
	}
	t.Setenv("AGENTK_OTEL_DISABLED", "1")
	steps := officialSteps(t)
	dir := t.TempDir()
	bin := standIn(t, dir)
	incident := filepath.Join(repoRoot, "e2e", "incidents", "bad-release-01")

	t.Run("stdio", func(t *testing.T) {
		// The binary's place: a script that writes the environment it was
		// started with, then runs the stand-in.
		envFile := filepath.Join(dir, "stdio-env")
		wrapper := filepath.Join(dir, "signoz-mcp-server")
		require.NoError(t, os.WriteFile(wrapper, []byte(fmt.Sprintf("#!/bin/sh\nenv > %q\nexec %q \"$@\"\n", envFile, bin)), 0o755))
		env := assignments(t, strings.ReplaceAll(steps[0], officialBinary, wrapper))
		require.Equal(t, "mcp", env["AGENTK_SANDBOX_BACKEND"])
		require.Equal(t, wrapper, env["AGENTK_SIGNOZ_MCP_COMMAND"])
		t.Setenv("SIGNOZ_CUSTOM_HEADERS", "X-Org:replay")
		t.Setenv("AGENTK_DOC_TEST_SECRET", "never-passed")
		replayAllowed(t, incident, env)
		got, err := os.ReadFile(envFile)
		require.NoError(t, err, "the sandbox started the documented command")
		require.Contains(t, string(got), "SIGNOZ_URL=http://127.0.0.1:")
		require.Contains(t, string(got), "SIGNOZ_CUSTOM_HEADERS=X-Org:replay", "a declared variable reaches the server")
		require.NotContains(t, string(got), "AGENTK_", "none of agentk's variables does")
	})

	t.Run("http", func(t *testing.T) {
		server := assignments(t, steps[1])
		require.Equal(t, "127.0.0.1", server["MCP_SERVER_HOST"], "the documented server listens on loopback only")
		require.Equal(t, "http", server["TRANSPORT_MODE"])
		require.NotContains(t, server, "SIGNOZ_API_KEY", "the documented HTTP server holds no key")
		port := freePort(t)
		line := strings.Fields(strings.ReplaceAll(steps[1], "MCP_SERVER_PORT=8000", "MCP_SERVER_PORT="+port))
		require.Equal(t, officialBinary, line[len(line)-1], "the command line ends with the binary")
		var stderr bytes.Buffer
		cmd := exec.Command(bin)
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, line[:len(line)-1]...)
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		waitListening(t, "127.0.0.1:"+port)
		env := assignments(t, strings.ReplaceAll(steps[2], "127.0.0.1:8000", "127.0.0.1:"+port))
		require.Equal(t, "http://127.0.0.1:"+port+"/mcp", env["AGENTK_SIGNOZ_MCP_URL"])
		replayAllowed(t, incident, env)
		require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
		_ = cmd.Wait()
		m := regexp.MustCompile(`served (\d+) MCP requests`).FindStringSubmatch(stderr.String())
		require.NotNil(t, m, "%s", stderr.String())
		require.NotEqual(t, "0", m[1], "the sandbox's queries went through the server")
	})
}

func replayAllowed(t *testing.T, dir string, env map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := replay.Run(ctx, dir, replay.Options{Env: env, Timeout: 3 * time.Minute})
	require.NoError(t, err)
	require.Equal(t, "allow", res.Verdict, "failed checks: %v", res.FailedChecks)
}

func freePort(t *testing.T) string {
	t.Helper()
	return strconv.Itoa(freeport.Port(t))
}

// waitListening waits until addr accepts connections (the server started),
// within the test's own deadline.
func waitListening(t *testing.T, addr string) {
	t.Helper()
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
			return
		}
		select {
		case <-t.Context().Done():
			t.Fatalf("the MCP server never listened on %s: %v", addr, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
