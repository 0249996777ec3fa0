package lint

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/fzipp/gocyclo"
)

const (
	// maxLines bounds a function from its func keyword to its closing
	// brace, both counted (stricter than funlen, which counts the body).
	maxLines = 80
	// maxComplexity bounds a function's cyclomatic complexity (gocyclo).
	maxComplexity = 20
	repoRoot      = "../.."
)

// measure is one production function's size.
type measure struct {
	File       string // relative to the repository's root
	Func       string // as gocyclo names it: F, (T).M or (*T).M
	Lines      int
	Complexity int
}

func (m measure) key() string { return m.File + ":" + m.Func }

func (m measure) over() bool { return m.Lines > maxLines || m.Complexity > maxComplexity }

// skipDir reports the folders that hold no production code of the
// repository: hidden ones, testdata, vendor and build output.
func skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || name == "bin" || name == "build" || name == "node_modules"
}

// measureFile measures every function declared in one .go file.
func measureFile(root, path string) ([]measure, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	rel, _ := filepath.Rel(root, path)
	rel = filepath.ToSlash(rel)
	complexity := map[token.Pos]int{}
	for _, s := range gocyclo.AnalyzeASTFile(f, fset, nil) {
		complexity[fset.File(f.Pos()).Pos(s.Pos.Offset)] = s.Complexity
	}
	var out []measure
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
		out = append(out, measure{File: rel, Func: funcName(fn), Lines: lines, Complexity: complexity[fn.Pos()]})
	}
	return out, nil
}

// funcName names a function as gocyclo does.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	return "(" + recvString(fn.Recv.List[0].Type) + ")." + fn.Name.Name
}

func recvString(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return "*" + recvString(t.X)
	case *ast.IndexExpr:
		return recvString(t.X)
	case *ast.IndexListExpr:
		return recvString(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

// measureRepo measures every function of every non-test .go file below root.
func measureRepo(root string) ([]measure, error) {
	var all []measure
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		ms, err := measureFile(root, path)
		all = append(all, ms...)
		return err
	})
	return all, err
}

// TestFunctionLimits fails when a production function is longer than
// maxLines or more complex than maxComplexity. The allowlist it started
// with (the offenders when the limits came in) is empty and gone; check
// still takes one, so that a future exception is written down, not hidden.
func TestFunctionLimits(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.work")); err != nil {
		t.Fatalf("the repository's root is not at %s: %v", root, err)
	}
	all, err := measureRepo(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 100 {
		t.Fatalf("only %d functions measured under %s: the walk is broken", len(all), root)
	}
	offenders, stale := check(all, nil)
	if len(offenders) > 0 {
		t.Errorf("%d production functions over %d lines or gocyclo %d (split them):\n%s",
			len(offenders), maxLines, maxComplexity, strings.Join(offenders, "\n"))
	}
	if len(stale) > 0 {
		t.Errorf("exceptions listed but within the limits now, or gone: remove them:\n%s", strings.Join(stale, "\n"))
	}
}

// check splits the measures into offenders not allowed and allowed entries
// that no longer offend.
func check(all []measure, allow map[string]bool) (offenders, stale []string) {
	seen := map[string]bool{}
	for _, m := range all {
		if !m.over() {
			continue
		}
		seen[m.key()] = true
		if !allow[m.key()] {
			offenders = append(offenders, fmt.Sprintf("  %s  %d lines, gocyclo %d", m.key(), m.Lines, m.Complexity))
		}
	}
	for k := range allow {
		if !seen[k] {
			stale = append(stale, "  "+k)
		}
	}
	sort.Strings(offenders)
	sort.Strings(stale)
	return offenders, stale
}

// TestCheck holds the checker itself to account: an offender fails, an
// allowed offender passes, and an allowed function within the limits is
// reported stale.
func TestCheck(t *testing.T) {
	t.Parallel()
	long := measure{File: "a.go", Func: "Long", Lines: maxLines + 1, Complexity: 1}
	complex := measure{File: "a.go", Func: "(*T).Complex", Lines: 10, Complexity: maxComplexity + 1}
	fine := measure{File: "b.go", Func: "Fine", Lines: maxLines, Complexity: maxComplexity}
	cases := []struct {
		name             string
		all              []measure
		allow            map[string]bool
		offenders, stale int
	}{
		{"within the limits", []measure{fine}, nil, 0, 0},
		{"too long", []measure{long, fine}, nil, 1, 0},
		{"too complex", []measure{complex}, nil, 1, 0},
		{"allowed", []measure{long, complex}, map[string]bool{long.key(): true, complex.key(): true}, 0, 0},
		{"allowed but within the limits now", []measure{fine}, map[string]bool{fine.key(): true}, 0, 1},
		{"allowed but gone", nil, map[string]bool{"c.go:Gone": true}, 0, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			offenders, stale := check(tc.all, tc.allow)
			if len(offenders) != tc.offenders || len(stale) != tc.stale {
				t.Errorf("offenders %q, stale %q; want %d and %d", offenders, stale, tc.offenders, tc.stale)
			}
		})
	}
}

// TestMeasureFile measures a known file: lines from func to the closing
// brace, complexity as gocyclo counts it, methods named as gocyclo names them.
func TestMeasureFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := "package p\n\ntype T struct{}\n\nfunc (t *T) M(x int) int {\n\tif x > 0 && x < 9 {\n\t\treturn 1\n\t}\n\treturn 0\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ms, err := measureFile(dir, filepath.Join(dir, "p.go"))
	if err != nil {
		t.Fatal(err)
	}
	want := []measure{{File: "p.go", Func: "(*T).M", Lines: 6, Complexity: 3}}
	if fmt.Sprint(ms) != fmt.Sprint(want) {
		t.Errorf("got %+v, want %+v", ms, want)
	}
}
