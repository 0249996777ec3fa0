package facts_test

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEachFactHasItsTest: one fact a file, and each file X.go has its
// table test in X_test.go; no file imports tools (tools plans the queries
// and renders the text, and imports facts).
func TestEachFactHasItsTest(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	var sources int
	for name := range names {
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		sources++
		test := strings.TrimSuffix(name, ".go") + "_test.go"
		require.True(t, names[test], "%s has no %s", name, test)
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			require.NotEqual(t, "agentk/services/sandbox/internal/tools", path, "%s imports tools", name)
		}
	}
	require.Positive(t, sources, "no source file found: the test must run in the package directory")
}
