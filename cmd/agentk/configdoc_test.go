package main

import (
	"bufio"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"agentk/platform/topology"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite docs/configuration.md from the READMEs")

const repoRoot = "../.."

// readmes are where each component documents its variables, in doc order.
var readmes = []struct{ title, path string }{
	{"Every process", "platform/README.md"},
	{"agentk (command line)", "cmd/agentk/README.md"},
	{"ingester", "services/ingester/README.md"},
	{"sandbox", "services/sandbox/README.md"},
	{"investigator", "services/investigator/README.md"},
	{"reviewer", "services/reviewer/README.md"},
	{"gate", "services/gate/README.md"},
	{"bridge", "services/bridge/README.md"},
	{"deployer", "services/deployer/README.md"},
}

var varRow = regexp.MustCompile("^\\| *`(AGENTK|OTEL|DOCKER)")

// configurationDoc builds docs/configuration.md: one table, every variable,
// taken from the README tables so there is one place to edit.
func configurationDoc(t *testing.T) string {
	var b strings.Builder
	b.WriteString("# Configuration\n\nEvery variable agentk reads, in one table, generated from the READMEs of the platform and the services (`go test ./cmd/agentk -run TestConfigurationDoc -update`). Variables are read once at start; a bad value stops the service with the variable's name and what was expected (`agentk config` checks them all). Secrets may also be given as `<NAME>_FILE`.\n\n")
	b.WriteString("| component | variable | default | meaning |\n|---|---|---|---|\n")
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
			b.WriteString("| " + r.title + " | " + strings.Join(cells[:3], " | ") + " |\n")
		}
		_ = f.Close()
	}
	return b.String()
}

func TestConfigurationDoc(t *testing.T) {
	want := configurationDoc(t)
	path := filepath.Join(repoRoot, "docs", "configuration.md")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(want), 0o644))
	}
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, want, string(got), "docs/configuration.md is stale: go test ./cmd/agentk -run TestConfigurationDoc -update")
}

// TestEveryVariableDocumented fails when Go code reads an AGENTK_ variable
// that no README table documents.
func TestEveryVariableDocumented(t *testing.T) {
	doc := configurationDoc(t)
	used := map[string]bool{}
	lit := regexp.MustCompile(`"(AGENTK_[A-Z0-9_]+)"`)
	for _, dir := range []string{"platform", "services", "cmd/agentk"} {
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
		if strings.HasPrefix(v, "AGENTK_REQUIRE_") || strings.HasPrefix(v, "AGENTK_EVAL_") {
			continue // test switches
		}
		if !strings.Contains(doc, "`"+v+"`") && !strings.Contains(doc, "`"+base+"`") {
			missing = append(missing, v)
		}
	}
	sort.Strings(missing)
	require.Empty(t, missing, "variables read by the code but documented in no README table")
}
