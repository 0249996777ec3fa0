package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/platform/mutant"
)

// mutantImport is the package whose Off the safety checks ask.
const mutantImport = "agentk/platform/mutant"

// repoRoot is the workspace root, three levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "go.work"))
	require.NoError(t, err, "the workspace root holds go.work")
	return root
}

// TestEveryOffIsCatalogued: every mutant.Off in the workspace's code asks
// for a mutant that `make mutants` runs, and every mutant it runs is asked
// for by some code. A check added with its Off but not its catalogue entry
// would never be switched off; an entry whose Off is gone would survive.
func TestEveryOffIsCatalogued(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	asked, problems := offNames(root, mutantConstants(t, filepath.Join(root, "services", "platform", "mutant")))
	require.Empty(t, problems)
	require.Empty(t, uncatalogued(asked, mutant.All()), "mutant.Off asks for these, the catalogue lacks them")
	var never []string
	for _, m := range mutant.All() {
		if !asked[m.Name] {
			never = append(never, m.Name)
		}
	}
	require.Empty(t, never, "catalogued but no mutant.Off asks for them")
}

// TestEveryKillerResolves: every "test:<module>:<package>:<regexp>" killer
// names a package that exists and a test in it (each alternative of the
// regexp, and each subtest element matches a string of the package's tests),
// and every eval incident is in the corpus. A test moved to another package
// turns its killer's `go test -run` into "no tests to run", which passes: the
// mutant would read SURVIVED, or worse, a killer that never ran.
func TestEveryKillerResolves(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	require.Empty(t, killerProblems(root, mutant.All()))
	for _, inc := range mutant.EvalIncidents {
		_, err := os.Stat(filepath.Join(root, "e2e", "incidents", inc))
		require.NoError(t, err, "eval incident %s", inc)
	}
}

// TestSelfCheckCatchesAMissingMutant: the two checks above on a small tree
// with a mutant asked for but not catalogued, a catalogued one whose test
// moved to another package, and one whose subtest was renamed.
func TestSelfCheckCatchesAMissingMutant(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(rel, src string) {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	}
	write("svc/check.go", `package check
import "agentk/platform/mutant"
func a() bool { return mutant.Off(mutant.Known) }
func b() bool { return mutant.Off("svc.new_check") }
func c(name string) bool { return mutant.Off(name) }
func d() bool { return c(mutant.Other) }
func e() bool { return mutant.Off(mutant.NotAConstant) }
`)
	write("svc/facts/facts_test.go", `package facts
import "testing"
func TestMovedHere(t *testing.T) {}
func TestTable(t *testing.T) { for _, n := range []string{"old name"} { t.Run(n, nil) } }
`)
	write("svc/tools/tools_test.go", "package tools\n")
	asked, problems := offNames(root, map[string]string{"Known": "svc.known", "Other": "svc.other"})
	require.Equal(t, map[string]bool{"svc.known": true, "svc.new_check": true, "svc.other": true}, asked)
	require.Len(t, problems, 1)
	require.Contains(t, problems[0], "mutant.NotAConstant")
	cat := []mutant.Mutant{
		{Name: "svc.known", KilledBy: "test:svc:./tools:^TestMovedHere$"},
		{Name: "svc.other", KilledBy: "test:svc:./facts:^TestTable$/^new_name$"},
		{Name: "svc.gone", KilledBy: "test:svc:./gone:TestX"},
		{Name: "svc.fine", KilledBy: "test:svc:./facts:^TestMovedHere$|^TestTable$/^old_name$"},
	}
	require.Equal(t, []string{"svc.new_check"}, uncatalogued(asked, cat))
	got := killerProblems(root, cat)
	require.Len(t, got, 3, "%q", got)
	require.Contains(t, got[0], "svc.known")
	require.Contains(t, got[1], "svc.other")
	require.Contains(t, got[2], "svc.gone")
}

// uncatalogued lists the names asked that no entry of cat has, sorted.
func uncatalogued(asked map[string]bool, cat []mutant.Mutant) []string {
	var out []string
	for n := range asked {
		if !slices.ContainsFunc(cat, func(m mutant.Mutant) bool { return m.Name == n }) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// mutantConstants reads the string constants platform/mutant declares, by
// identifier.
func mutantConstants(t *testing.T, dir string) map[string]string {
	t.Helper()
	pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	require.NoError(t, err)
	out := map[string]string{}
	for _, f := range pkgs["mutant"].Files {
		ast.Inspect(f, func(n ast.Node) bool {
			if vs, ok := n.(*ast.ValueSpec); ok {
				for i, id := range vs.Names {
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						out[id.Name], _ = strconv.Unquote(lit.Value)
					}
				}
			}
			return true
		})
	}
	require.NotEmpty(t, out)
	return out
}

// offNames walks the production Go files under root and returns the mutant
// names their mutant.Off calls ask for, and a problem for each call whose
// name it cannot tell. An argument is a constant of platform/mutant, a
// string literal, or a parameter of the enclosing function that every call
// of that function in the same file passes a constant for.
func offNames(root string, consts map[string]string) (map[string]bool, []string) {
	asked, problems := map[string]bool{}, []string(nil)
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			problems = append(problems, err.Error())
			return nil
		case d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bin"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(src, []byte(".Off(")) {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, 0)
		if err != nil {
			problems = append(problems, err.Error())
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		for _, p := range fileOffNames(f, consts, asked) {
			problems = append(problems, rel+": "+p)
		}
		return nil
	})
	return asked, problems
}

// fileOffNames adds the names f's mutant.Off calls ask for to asked and
// returns a problem for each it cannot tell.
func fileOffNames(f *ast.File, consts map[string]string, asked map[string]bool) []string {
	local := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == mutantImport {
			local = "mutant"
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	if local == "" {
		return nil
	}
	// constant names the mutant.X argument e, if it is one.
	constant := func(e ast.Expr) (string, bool) {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return "", false
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok || x.Name != local {
			return "", false
		}
		v, ok := consts[sel.Sel.Name]
		return v, ok
	}
	var problems []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 || !isSelector(call.Fun, local, "Off") {
				return true
			}
			arg := call.Args[0]
			if v, ok := constant(arg); ok {
				asked[v] = true
				return true
			}
			if lit, ok := arg.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				v, _ := strconv.Unquote(lit.Value)
				asked[v] = true
				return true
			}
			if id, ok := arg.(*ast.Ident); ok {
				if names, ok := throughParam(f, fn, id.Name, constant); ok {
					for _, v := range names {
						asked[v] = true
					}
					return true
				}
			}
			problems = append(problems, "mutant.Off("+exprString(arg)+") in "+fn.Name.Name+" names no constant of platform/mutant")
			return true
		})
	}
	return problems
}

// throughParam follows param, a parameter of fn, to the calls of fn in f:
// every one must pass a constant there.
func throughParam(f *ast.File, fn *ast.FuncDecl, param string, constant func(ast.Expr) (string, bool)) ([]string, bool) {
	idx, i := -1, 0
	for _, fld := range fn.Type.Params.List {
		for _, n := range fld.Names {
			if n.Name == param {
				idx = i
			}
			i++
		}
	}
	if idx < 0 {
		return nil, false
	}
	var names []string
	ok := true
	ast.Inspect(f, func(n ast.Node) bool {
		call, isCall := n.(*ast.CallExpr)
		if !isCall {
			return true
		}
		if id, isID := call.Fun.(*ast.Ident); !isID || id.Name != fn.Name.Name || len(call.Args) <= idx {
			return true
		}
		v, isConst := constant(call.Args[idx])
		ok = ok && isConst
		names = append(names, v)
		return true
	})
	return names, ok && len(names) > 0
}

func isSelector(e ast.Expr, pkg, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == pkg
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return "…"
}

// killerProblems returns one line for each test killer of cat that does not
// resolve under root.
func killerProblems(root string, cat []mutant.Mutant) []string {
	type parsed struct {
		tests, strs []string
		err         error
	}
	seen := map[string]parsed{}
	var out []string
	for _, m := range cat {
		if !strings.HasPrefix(m.KilledBy, "test:") {
			continue
		}
		p := strings.SplitN(m.KilledBy, ":", 4)
		if len(p) != 4 {
			out = append(out, m.Name+": killer "+m.KilledBy+" is not test:<module>:<package>:<regexp>")
			continue
		}
		dir := filepath.Join(root, p[1], p[2])
		pkg, ok := seen[dir]
		if !ok {
			pkg.tests, pkg.strs, pkg.err = packageTests(dir)
			seen[dir] = pkg
		}
		if pkg.err != nil {
			out = append(out, m.Name+": "+pkg.err.Error())
			continue
		}
		if why := resolve(p[3], pkg.tests, pkg.strs); why != "" {
			out = append(out, m.Name+": "+m.KilledBy+": "+why)
		}
	}
	return out
}

// packageTests parses the _test.go files of dir and returns the names of
// its top-level tests and every string literal in them (where subtest
// names come from).
func packageTests(dir string) (tests, strs []string, err error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err == nil && len(files) == 0 {
		err = fs.ErrNotExist
	}
	if err != nil {
		return nil, nil, &fs.PathError{Op: "find tests in", Path: dir, Err: err}
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			return nil, nil, err
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
				tests = append(tests, fn.Name.Name)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					strs = append(strs, strings.ReplaceAll(s, " ", "_"))
				}
			}
			return true
		})
	}
	return tests, strs, nil
}

// resolve says why re (a `go test -run` pattern) matches no test, or "".
// Like `go test`, it splits re at the '|' and then the '/' outside brackets
// and parentheses; every alternative's first element must match a top-level
// test and each further element a string of the package's tests (a subtest
// name, spaces as underscores).
func resolve(re string, tests, strs []string) string {
	for _, alt := range splitTop(re, '|') {
		for i, el := range splitTop(alt, '/') {
			rx, err := regexp.Compile(el)
			if err != nil {
				return err.Error()
			}
			pool := strs
			if i == 0 {
				pool = tests
			}
			if !slices.ContainsFunc(pool, rx.MatchString) {
				return "no test matches " + strconv.Quote(el)
			}
		}
	}
	return ""
}

// splitTop splits s at sep where it stands outside brackets and
// parentheses, as the testing package splits -run.
func splitTop(s string, sep byte) []string {
	var out []string
	brackets, parens, start := 0, 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			brackets++
		case ']':
			brackets = max(brackets-1, 0)
		case '(':
			if brackets == 0 {
				parens++
			}
		case ')':
			if brackets == 0 {
				parens--
			}
		case '\\':
			i++
		case sep:
			if brackets == 0 && parens == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}
