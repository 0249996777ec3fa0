package gate_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// forbidden are import-path prefixes that must never reach the gate: model
// clients, the investigator (or any other service), and HTTP client libraries.
var forbidden = []string{
	"agentk/services/investigator", "agentk/services/sandbox", "agentk/services/reviewer",
	"agentk/services/bridge", "agentk/services/deployer", "agentk/services/ingester",
	"github.com/sashabaranov/go-openai", "github.com/openai/", "github.com/anthropics/",
	"github.com/liushuangls/go-anthropic", "google.golang.org/genai", "github.com/google/generative-ai-go",
	"cloud.google.com/go/vertexai", "cloud.google.com/go/aiplatform", "github.com/tmc/langchaingo",
	"github.com/ollama/", "github.com/cohere-ai/", "github.com/mistralai/", "github.com/groq/",
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime", "github.com/henomis/lingoose",
	"github.com/go-resty/", "github.com/hashicorp/go-retryablehttp", "github.com/parnurzeal/gorequest",
	"github.com/valyala/fasthttp", "github.com/imroc/req",
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp",
}

// coreForbidden may not reach the policy core or its configuration at all:
// they do no I/O, so not even a socket is in their graph.
var coreForbidden = []string{"net", "net/http", "net/rpc", "os/exec", "github.com/nats-io/nats.go", "agentk/platform"}

func deps(t *testing.T, pkgs ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).Output()
	require.NoError(t, err, "go list: %s", err)
	return strings.Fields(string(out))
}

func matches(pkg, prefix string) bool {
	p := strings.TrimSuffix(prefix, "/")
	return pkg == p || strings.HasPrefix(pkg, p+"/")
}

// otlpExporter is the one HTTP client the gate's process may hold: the
// OpenTelemetry exporter that ships its own spans and metrics, wired by
// platform/runner in cmd/gate. It never reaches the gate's own packages.
const otlpExporter = "go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"

func TestGateImportGraphHasNoModel(t *testing.T) {
	t.Parallel()
	all := deps(t, ".", "./internal/...")
	require.Contains(t, all, "agentk/services/gate/internal/policy", "the walk must see the gate itself")
	for _, pkg := range all {
		for _, f := range forbidden {
			require.False(t, matches(pkg, f), "%s reaches the gate's import graph (matches %s)", pkg, f)
		}
	}
}

// The gate's binary adds process wiring (NATS identity, health, telemetry
// export) and still reaches no model, no other service and no HTTP client
// library but the telemetry exporter.
func TestGateBinaryHasNoModel(t *testing.T) {
	t.Parallel()
	all := deps(t, "./cmd/gate")
	require.Contains(t, all, "agentk/services/gate/internal/policy")
	for _, pkg := range all {
		for _, f := range forbidden {
			if f == otlpExporter {
				continue
			}
			require.False(t, matches(pkg, f), "%s reaches the gate's binary (matches %s)", pkg, f)
		}
	}
}

func TestPolicyCoreImportsNoIO(t *testing.T) {
	t.Parallel()
	for _, pkg := range deps(t, "./internal/policy", "./internal/config") {
		if pkg == mutantSwitch || pureParsers[pkg] {
			continue // leaves, checked below
		}
		for _, f := range append(coreForbidden, forbidden...) {
			require.False(t, matches(pkg, f), "%s reaches the policy core (matches %s)", pkg, f)
		}
	}
	// The one platform package the core may import: the mutant switch, a
	// constant false in normal builds, that reaches nothing of the above in
	// either build.
	for _, tags := range []string{"", "agentk_mutants"} {
		out, err := exec.Command("go", "list", "-deps", "-tags", tags, mutantSwitch).Output()
		require.NoError(t, err)
		for _, pkg := range strings.Fields(string(out)) {
			for _, f := range append(coreForbidden, forbidden...) {
				require.False(t, pkg != mutantSwitch && matches(pkg, f), "%s reaches the mutant switch (tags %q)", pkg, tags)
			}
		}
	}
}

// pureParsers may reach the gate's configuration although they match
// coreForbidden: platform/config, the one reader of every service's
// variables, and the standard library's URL and address parsers it uses,
// which open no socket; and platform/stats, arithmetic the sandbox computes
// its facts with too (the gate judges a tail the same way). What they reach
// is checked like the rest.
var pureParsers = map[string]bool{configReader: true, "net/url": true, "net/netip": true, "agentk/platform/stats": true}

const configReader = "agentk/platform/config"

func TestConfigReaderImportsNoIO(t *testing.T) {
	t.Parallel()
	for _, pkg := range deps(t, configReader) {
		for _, f := range append(coreForbidden, forbidden...) {
			require.False(t, !pureParsers[pkg] && matches(pkg, f), "%s reaches platform/config (matches %s)", pkg, f)
		}
	}
}

// mutantSwitch is platform/mutant (`make mutants`).
const mutantSwitch = "agentk/platform/mutant"

// The walk itself must be able to fail: a package known to import net/http
// is caught by the same matcher.
func TestImportWalkDetects(t *testing.T) {
	t.Parallel()
	found := false
	for _, pkg := range deps(t, "net/http/httptest") {
		found = found || matches(pkg, "net/http")
	}
	require.True(t, found)
	require.True(t, matches("github.com/sashabaranov/go-openai/jsonschema", "github.com/sashabaranov/go-openai"))
	require.False(t, matches("github.com/openaiish/x", "github.com/openai/"))
}
