package mutant

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// constants reads every string constant the package declares: the names Off
// takes. Reading the source means a new constant needs no edit here.
func constants(t *testing.T) map[string]string {
	t.Helper()
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	require.NoError(t, err)
	out := map[string]string{}
	for _, f := range pkgs["mutant"].Files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					lit, ok := vs.Values[i].(*ast.BasicLit)
					require.True(t, ok && lit.Kind == token.STRING, "%s is a string literal", n.Name)
					v, err := strconv.Unquote(lit.Value)
					require.NoError(t, err)
					out[n.Name] = v
				}
			}
		}
	}
	require.NotEmpty(t, out)
	return out
}

// TestEveryMutantIsCatalogued: every constant of mutant.go has exactly one
// entry in All, every entry is a declared constant, and every killer is
// "eval" or a "test:<module>:<package>:<regexp>".
func TestEveryMutantIsCatalogued(t *testing.T) {
	consts := constants(t)
	names := map[string]bool{}
	for _, v := range consts {
		names[v] = true
	}
	seen := map[string]int{}
	for _, m := range All() {
		seen[m.Name]++
		require.True(t, names[m.Name], "catalogue entry %q is not a constant of mutant.go", m.Name)
		require.NotEmpty(t, m.Check, m.Name)
		if m.KilledBy != "eval" {
			parts := strings.SplitN(m.KilledBy, ":", 4)
			require.True(t, len(parts) == 4 && parts[0] == "test" && parts[1] != "" && parts[2] != "" && parts[3] != "",
				"%s: killer %q is eval or test:<module>:<package>:<regexp>", m.Name, m.KilledBy)
		}
	}
	for id, v := range consts {
		require.Equal(t, 1, seen[v], "%s (%s) must be in the catalogue exactly once", id, v)
	}
	for _, inc := range EvalIncidents {
		require.NotEmpty(t, inc)
	}
}
