package lint

import (
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// servicePrefix starts the module path of every service: each is its own
// module and binary, and services meet only through contracts and platform
// (agentk, the combined binary, and e2e compose them and may import all).
const servicePrefix = "agentk/services/"

// knownTestImports are the imports of another service that a service's
// tests still make, each with why, by importing module and imported module:
// integration tests that predate the rule. Production code may import no
// other service, ever; a test import not listed here fails, and so does a
// listed one that is gone (remove it).
var knownTestImports = map[string]string{
	"agentk/services/deployer -> agentk/services/sandbox":      "recovery_test.go checks the deployer's recovery probe against the real sandbox and fake SigNoz",
	"agentk/services/investigator -> agentk/services/ingester": "corpus_test.go parses each corpus alert with the ingester's webhook parser",
	"agentk/services/investigator -> agentk/services/sandbox":  "corpus_test.go investigates the corpus through the real sandbox and fake SigNoz",
	"agentk/services/reviewer -> agentk/services/gate":         "pipeline_test.go runs the reviewer's output through the gate's policy",
}

// module is a workspace module: its path and folder.
type module struct{ path, dir string }

// serviceModules lists the workspace's service modules (go.work).
func serviceModules(t *testing.T) []module {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Path}} {{.Dir}}")
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	require.NoError(t, err, "go list -m")
	var mods []module
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, dir, ok := strings.Cut(l, " ")
		if ok && strings.HasPrefix(path, servicePrefix) {
			mods = append(mods, module{path, dir})
		}
	}
	return mods
}

// otherServices returns the modules of the packages in pkgs that belong to
// a service other than m: agentk/services/<name>, the module's path.
func otherServices(m module, pkgs []string) []string {
	seen := map[string]bool{}
	for _, p := range pkgs {
		rest, ok := strings.CutPrefix(p, servicePrefix)
		if !ok {
			continue
		}
		// A test binary's packages are "<pkg>.test", "<pkg>_test" and
		// "<pkg> [<pkg>.test]": each belongs to <pkg>'s module.
		name := strings.SplitN(rest, "/", 2)[0]
		name = strings.TrimSuffix(strings.TrimSuffix(name, ".test"), "_test")
		mod := servicePrefix + name
		if mod != m.path {
			seen[mod] = true
		}
	}
	out := make([]string, 0, len(seen))
	for mod := range seen {
		out = append(out, mod)
	}
	sort.Strings(out)
	return out
}

func deps(t *testing.T, dir string, test bool) []string {
	t.Helper()
	args := []string{"list", "-deps"}
	if test {
		args = append(args, "-test")
	}
	cmd := exec.Command("go", append(args, "./...")...)
	cmd.Dir = dir
	out, err := cmd.Output()
	require.NoError(t, err, "go list %v in %s", args, dir)
	var pkgs []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkgs = append(pkgs, strings.Fields(l)[0])
	}
	return pkgs
}

// TestNoServiceImportsAnother walks every service module's import graph
// (go list -deps over the modules of go.work): no service's production
// packages reach another service's, and its tests reach only the ones
// knownTestImports lists.
func TestNoServiceImportsAnother(t *testing.T) {
	t.Parallel()
	mods := serviceModules(t)
	require.GreaterOrEqual(t, len(mods), 7, "the walk must see every service: %v", mods)
	var testImports []string
	for _, m := range mods {
		t.Run(filepath.Base(m.path), func(t *testing.T) {
			prod := otherServices(m, deps(t, m.dir, false))
			require.Empty(t, prod, "%s imports other services' packages: services meet only through contracts and platform", m.path)
			for _, o := range otherServices(m, deps(t, m.dir, true)) {
				testImports = append(testImports, m.path+" -> "+o)
			}
		})
	}
	for _, k := range testImports {
		require.Contains(t, knownTestImports, k, "a test of %s imports another service: move it to e2e, or list it with why", k)
	}
	for k := range knownTestImports {
		require.True(t, slices.Contains(testImports, k), "%s no longer happens: remove it from knownTestImports", k)
	}
}

// The walk tells a service's own packages from another's.
func TestOtherServices(t *testing.T) {
	t.Parallel()
	m := module{path: "agentk/services/bridge"}
	got := otherServices(m, []string{
		"agentk/services/bridge", "agentk/services/bridge/internal/view", "agentk/platform/links", "agentk/contracts",
		"agentk/services/reviewer/report", "agentk/services/sandbox/internal/tools", "agentk/services/sandbox", "fmt",
		"agentk/services/bridge.test", "agentk/services/bridge_test", "agentk/services/gate_test",
	})
	require.Equal(t, []string{"agentk/services/gate", "agentk/services/reviewer", "agentk/services/sandbox"}, got)
}
