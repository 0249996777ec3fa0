package envdoc

import (
	"bufio"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"agentk/platform/config"
	"agentk/platform/service"
	"agentk/platform/topology"

	// The services register themselves: the rows are their declarations.
	_ "agentk/cmd/agentk/stack"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite docs/configuration.md from the declarations")

const repoRoot = "../../../.."

// readmes are where each component documents its variables, in doc order.
var readmes = []struct{ title, path string }{
	{"Every process", "services/platform/README.md"},
	{"agentk (command line)", "services/agentk/README.md"},
	{"ingester", "services/ingester/README.md"},
	{"sandbox", "services/sandbox/README.md"},
	{"investigator", "services/investigator/README.md"},
	{"reviewer", "services/reviewer/README.md"},
	{"gate", "services/gate/README.md"},
	{"bridge", "services/bridge/README.md"},
	{"deployer", "services/deployer/README.md"},
}

var varRow = regexp.MustCompile("^\\| *`(AGENTK|OTEL|DOCKER)")

// readmeRows reads every variable row of the README tables, in doc order.
func readmeRows(t *testing.T) []Row {
	var rows []Row
	for _, r := range readmes {
		f, err := os.Open(filepath.Join(repoRoot, r.path))
		require.NoError(t, err)
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if !varRow.MatchString(line) {
				continue
			}
			cells := strings.Split(strings.Trim(line, "| "), " | ")
			for len(cells) < 3 {
				cells = append(cells, "")
			}
			rows = append(rows, Row{Component: r.title, Vars: cells[0], Default: cells[1], Meaning: cells[2]})
		}
		_ = f.Close()
	}
	return rows
}

// configurationDoc builds docs/configuration.md: one table, every variable,
// made from the declarations the services read with.
func configurationDoc() string {
	var b strings.Builder
	b.WriteString("# Configuration\n\nEvery variable agentk reads, in one table, generated from the declarations the platform and each service read them with (`platform/config.Spec`; regenerate with `go generate ./services/agentk/...`). Variables are read once at start; a bad value stops the service with the variable's name and what was expected, every problem at once (`agentk config` checks them all). A secret may also be given as `<NAME>_FILE`, the path of a file holding it. `agentk config` lists the declared variables that are set, the values of those declared secret redacted; an `AGENTK_` variable nothing declares is named as unknown, its value never shown.\n\n")
	b.WriteString("| component | variable | default | meaning |\n|---|---|---|---|\n")
	for _, r := range Rows() {
		b.WriteString("| " + r.Component + " | " + r.Vars + " | " + r.Default + " | " + r.Meaning + " |\n")
	}
	return b.String()
}

func TestConfigurationDoc(t *testing.T) {
	want := configurationDoc()
	path := filepath.Join(repoRoot, "docs", "configuration.md")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(want), 0o644))
	}
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, want, string(got), "docs/configuration.md is stale: go generate ./services/agentk/...")
}

// The README tables name the variables the declarations declare, no more,
// no fewer: they are the per-service view of the same list.
func TestREADMEsNameTheDeclaredVariables(t *testing.T) {
	inREADME := map[string]bool{}
	for _, r := range readmeRows(t) {
		for _, n := range rowNames(r.Vars) {
			inREADME[n] = true
		}
	}
	declaredNames := map[string]bool{}
	for _, n := range KnownNames() {
		declaredNames[n] = true
	}
	var undeclared, undocumented []string
	for n := range inREADME {
		if !declaredNames[n] {
			undeclared = append(undeclared, n)
		}
	}
	for n := range declaredNames {
		if !inREADME[n] && !strings.HasSuffix(n, "_FILE") {
			undocumented = append(undocumented, n)
		}
	}
	sort.Strings(undeclared)
	sort.Strings(undocumented)
	require.Empty(t, undeclared, "README rows that no declaration declares")
	require.Empty(t, undocumented, "declared variables that no README table names")
}

var backticked = regexp.MustCompile("`([^`]+)`")

// rowNames returns the variables a README row names: `A` / `A_FILE`,
// `A` / `_FILE` and `OTEL_X_{A,B}_Y` are expanded.
func rowNames(vars string) []string {
	var out []string
	for _, m := range backticked.FindAllStringSubmatch(vars, -1) {
		tok := m[1]
		if tok == "_FILE" && len(out) > 0 {
			out = append(out, out[len(out)-1]+"_FILE")
			continue
		}
		if i, j := strings.Index(tok, "{"), strings.Index(tok, "}"); i >= 0 && j > i {
			for _, alt := range strings.Split(tok[i+1:j], ",") {
				out = append(out, tok[:i]+alt+tok[j+1:])
			}
			continue
		}
		out = append(out, tok)
	}
	return out
}

// TestEveryVariableDocumented fails when Go code reads an AGENTK_ variable
// that no README table documents.
func TestEveryVariableDocumented(t *testing.T) {
	doc := configurationDoc()
	used := map[string]bool{}
	lit := regexp.MustCompile(`"(AGENTK_[A-Z0-9_]+)"`)
	for _, dir := range []string{"services"} {
		require.NoError(t, filepath.WalkDir(filepath.Join(repoRoot, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range lit.FindAllStringSubmatch(string(b), -1) {
				used[m[1]] = true
			}
			return nil
		}))
	}
	for _, st := range topology.Streams {
		delete(used, st.Name) // stream names, not variables
	}
	delete(used, topology.DLQStream)
	var missing []string
	for v := range used {
		base := strings.TrimSuffix(v, "_FILE")
		if testSwitch(v) {
			continue // test switches
		}
		if !strings.Contains(doc, "`"+v+"`") && !strings.Contains(doc, "`"+base+"`") {
			missing = append(missing, v)
		}
	}
	sort.Strings(missing)
	require.Empty(t, missing, "variables read by the code but documented in no README table")
}

// Every declared default parses as its declaration says, and every
// declaration says what it means.
func TestDeclarationsAreWellFormed(t *testing.T) {
	specs := []config.Spec{config.Platform, CLISpec}
	for _, r := range service.Registered() {
		require.Equal(t, r.Role, r.Config.Component, "a service's Spec names the service")
		specs = append(specs, r.Config)
	}
	require.Len(t, specs, 9, "the platform, the command line and seven services")
	for _, s := range specs {
		for _, d := range s.Vars {
			require.NotEmpty(t, d.Doc, "%s: %s has no doc", s.Component, d.Name)
			if d.Default != "" {
				_, err := config.ParseValue(d, d.Default)
				require.NoError(t, err, "%s: %s's default", s.Component, d.Name)
			}
		}
	}
}

func TestUnknownVariables(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		env  []string
		want []string
	}{
		{name: "known", env: []string{"AGENTK_GATE_COOLDOWN=10m", "AGENTK_SLACK_BOT_TOKEN_FILE=/x", "PATH=/bin"}},
		{name: "typo", env: []string{"AGENTK_GATE_COLDOWN=10m"}, want: []string{"AGENTK_GATE_COLDOWN is not a variable agentk reads (docs/configuration.md lists them); did you mean AGENTK_GATE_COOLDOWN?"}},
		{name: "far from anything", env: []string{"AGENTK_FROBNICATE=1"}, want: []string{"AGENTK_FROBNICATE is not a variable agentk reads (docs/configuration.md lists them)"}},
		{name: "test switches", env: []string{"AGENTK_REQUIRE_DOCKER=1", "AGENTK_TEST_RUN_MAIN=1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, UnknownVars(tc.env))
		})
	}
}

// TestServiceREADMEsFollowTheTemplate: every registered service's README has
// the sections docs/architecture.md names, in that order: the title
// "# <name> — <its job>", Subjects and state, How it works, Environment, an
// optional Telemetry, Tests and an optional Measured and limits.
func TestServiceREADMEsFollowTheTemplate(t *testing.T) {
	template := regexp.MustCompile(`^# (\S+) — .+\n## Subjects and state\n## How it works\n## Environment\n(## Telemetry\n)?## Tests\n(## Measured and limits\n)?$`)
	for _, r := range service.Registered() {
		b, err := os.ReadFile(filepath.Join(repoRoot, "services", r.Role, "README.md"))
		require.NoError(t, err)
		var headings strings.Builder
		fenced := false
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "```") {
				fenced = !fenced
			}
			if !fenced && (strings.HasPrefix(line, "# ") || strings.HasPrefix(line, "## ")) {
				headings.WriteString(line + "\n")
			}
		}
		m := template.FindStringSubmatch(headings.String())
		require.NotNil(t, m, "services/%s/README.md's sections:\n%s", r.Role, headings.String())
		require.Equal(t, r.Role, m[1], "services/%s/README.md's title names the service", r.Role)
	}
}

// TestDocsNameOnlyDeclaredVariables (issue 34 #4): every AGENTK_ variable a
// page of the docs, the README or a service's README names is one that a
// declaration declares (or a test switch, or a stream name), so that a
// renamed variable cannot live on in prose: docs/lifecycle.md said
// AGENTK_INGEST_LEASE long after it became AGENTK_INGEST_INVESTIGATION_LEASE.
// A name ending in _ or * is a prefix ("AGENTK_SLACK_*") and must start at
// least one declared name.
func TestDocsNameOnlyDeclaredVariables(t *testing.T) {
	known := map[string]bool{}
	for _, n := range KnownNames() {
		known[n], known[n+"_FILE"] = true, true
	}
	for _, st := range topology.Streams {
		known[st.Name] = true
	}
	known[topology.DLQStream] = true
	// The compose file and the scripts read a few of their own (image tag,
	// published ports, the keys' owner): named where they are read.
	for _, f := range []string{"docker-compose.yml", "Makefile", "scripts/images.sh", "scripts/keys.sh"} {
		b, err := os.ReadFile(filepath.Join(repoRoot, f))
		require.NoError(t, err)
		for _, n := range regexp.MustCompile(`AGENTK_[A-Z0-9_]+`).FindAllString(string(b), -1) {
			known[n] = true
		}
	}
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	require.NoError(t, err)
	more, err := filepath.Glob(filepath.Join(repoRoot, "services", "*", "README.md"))
	require.NoError(t, err)
	pages = append(append(pages, more...), filepath.Join(repoRoot, "README.md"))
	name := regexp.MustCompile(`AGENTK_[A-Z0-9_]+\*?`)
	var unknown []string
	for _, p := range pages {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		rel, _ := filepath.Rel(repoRoot, p)
		for i, line := range strings.Split(string(b), "\n") {
			for _, n := range name.FindAllString(line, -1) {
				if known[n] || testSwitch(n) || isPrefixOfKnown(strings.TrimSuffix(n, "*"), known) {
					continue
				}
				unknown = append(unknown, rel+":"+strconv.Itoa(i+1)+": "+n)
			}
		}
	}
	require.Empty(t, unknown, "variables the docs name that nothing declares")
}

// isPrefixOfKnown reports whether p (ending in '_') starts a declared name.
func isPrefixOfKnown(p string, known map[string]bool) bool {
	if !strings.HasSuffix(p, "_") {
		return false
	}
	for n := range known {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}
