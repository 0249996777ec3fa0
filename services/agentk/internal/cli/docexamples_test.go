package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// An example that shows output is a fenced block right after a marker
// naming the command that prints it, from the repository root:
//
//	<!-- output: agentk demo -->
//
// A fenced block without a language that is not output (a diagram, a tree)
// says so with <!-- diagram -->, so that no output example goes untested.
var (
	outputMarker  = regexp.MustCompile(`^<!-- output: agentk (.+) -->$`)
	diagramMarker = regexp.MustCompile(`^<!-- diagram -->$`)
	spaces        = regexp.MustCompile(`\s+`)
)

// docExample is one output example of a page; json is set for a ```json
// block, which shows the object the command prints on its last line.
type docExample struct {
	page string
	line int
	args []string
	want []string
	json bool
}

// docExamples reads every output example of README.md and docs/*.md, and
// fails on a bare fenced block that is neither output nor a diagram.
func docExamples(t *testing.T) []docExample {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	require.NoError(t, err)
	pages = append(pages, filepath.Join(repoRoot, "README.md"))
	var out []docExample
	var bare []string
	for _, p := range pages {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		rel, _ := filepath.Rel(repoRoot, p)
		lines := strings.Split(string(b), "\n")
		for i := 0; i < len(lines); i++ {
			if !strings.HasPrefix(lines[i], "```") {
				continue
			}
			end := closing(lines, i)
			prev := ""
			if i > 0 {
				prev = strings.TrimSpace(lines[i-1])
			}
			m := outputMarker.FindStringSubmatch(prev)
			if lines[i] != "```" {
				if m != nil {
					out = append(out, docExample{page: rel, line: i + 1, args: strings.Fields(m[1]), want: lines[i+1 : end], json: lines[i] == "```json"})
				}
				i = end
				continue
			}
			switch {
			case m != nil:
				out = append(out, docExample{page: rel, line: i + 1, args: strings.Fields(m[1]), want: lines[i+1 : end]})
			case !diagramMarker.MatchString(prev):
				bare = append(bare, rel+":"+strconv.Itoa(i+1))
			}
			i = end
		}
	}
	require.Empty(t, bare, "fenced blocks with no language and no <!-- output: agentk … --> or <!-- diagram --> marker")
	return out
}

// closing returns the index of the fence closing the block opened at i.
func closing(lines []string, i int) int {
	for j := i + 1; j < len(lines); j++ {
		if strings.HasPrefix(lines[j], "```") {
			return j
		}
	}
	return len(lines)
}

// lineRE turns one shown line into what it stands for: whitespace runs are
// one space, and "…" elides anything (ids, digests, clipped text).
func lineRE(shown string) *regexp.Regexp {
	parts := strings.Split(spaces.ReplaceAllString(strings.TrimSpace(shown), " "), "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}

// missingLines returns the shown lines that the output does not print, in
// order: each shown line must match an output line after the previous one.
func missingLines(want []string, output string) []string {
	got := strings.Split(output, "\n")
	for i := range got {
		got[i] = spaces.ReplaceAllString(strings.TrimSpace(got[i]), " ")
	}
	var missing []string
	at := 0
	for _, w := range want {
		if strings.TrimSpace(w) == "" {
			continue
		}
		re, found := lineRE(w), false
		for j := at; j < len(got); j++ {
			if re.MatchString(got[j]) {
				at, found = j+1, true
				break
			}
		}
		if !found {
			missing = append(missing, w)
		}
	}
	return missing
}

// TestDocExamplesPrintWhatTheyShow (issue 34 #1) runs every output example
// of README.md and docs/*.md and fails when the run does not print, in
// order, every line the page shows: the counts of claims, tool calls and
// evidence, the reviewer's kept and dropped, the gate's verdict and checks,
// the deployer's outcome. The README showed "2 claims, 5 tool calls" long
// after a run printed "3 claims, 13 tool calls".
func TestDocExamplesPrintWhatTheyShow(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the incidents the docs show")
	}
	examples := docExamples(t)
	require.NotEmpty(t, examples)
	root, err := filepath.Abs(repoRoot)
	require.NoError(t, err)
	for _, ex := range examples {
		t.Run(ex.page+":"+strconv.Itoa(ex.line), func(t *testing.T) {
			args := append([]string(nil), ex.args...)
			for i, a := range args {
				if strings.HasPrefix(a, "e2e/") {
					args[i] = filepath.Join(root, a)
				}
			}
			if args[0] == "demo" {
				args = append(args, "--corpus", filepath.Join(root, "e2e", "incidents"))
			}
			c, out, errb := testCLI(nil)
			require.Equal(t, 0, run(context.Background(), c, args), "%s\n%s", out, errb)
			if ex.json {
				require.Empty(t, differentFields(t, strings.Join(ex.want, "\n"), out.String()), "%s:%d shows fields `agentk %s` does not print so; it printed:\n%s",
					ex.page, ex.line, strings.Join(ex.args, " "), out)
				return
			}
			require.Empty(t, missingLines(ex.want, out.String()), "%s:%d shows lines `agentk %s` does not print; it printed:\n%s",
				ex.page, ex.line, strings.Join(ex.args, " "), out)
		})
	}
}

// differentFields compares a shown JSON object with the one the output
// prints on its last line: every field shown must be printed with the same
// value (the output may print more).
func differentFields(t *testing.T, shown, output string) []string {
	t.Helper()
	var want, got map[string]any
	require.NoError(t, json.Unmarshal([]byte(shown), &want), "the page's JSON")
	lines := strings.Split(strings.TrimSpace(output), "\n")
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &got), "the command's last line")
	var diff []string
	for k, v := range want {
		if !reflect.DeepEqual(v, got[k]) {
			diff = append(diff, fmt.Sprintf("%s: shown %v, printed %v", k, v, got[k]))
		}
	}
	sort.Strings(diff)
	return diff
}

// TestMissingLines: the comparison the test above relies on.
func TestMissingLines(t *testing.T) {
	t.Parallel()
	output := "  • investigation by rules: 3 claims, 13 tool calls, 13 evidence records\n  • gate: ALLOW (decision d-1)\n"
	tests := []struct {
		name string
		want []string
		miss []string
	}{
		{name: "same lines, other spacing", want: []string{"• investigation by rules:  3 claims, 13 tool calls, 13 evidence records", "• gate: ALLOW (decision d-1)"}},
		{name: "elided", want: []string{"• investigation by rules: 3 claims, …", "• gate: ALLOW …"}},
		{name: "a stale count", want: []string{"• investigation by rules: 2 claims, 5 tool calls, …"}, miss: []string{"• investigation by rules: 2 claims, 5 tool calls, …"}},
		{name: "another verdict", want: []string{"• gate: DENY …"}, miss: []string{"• gate: DENY …"}},
		{name: "out of order", want: []string{"• gate: ALLOW …", "• investigation by …"}, miss: []string{"• investigation by …"}},
		{name: "a whole line, not a part", want: []string{"gate: ALLOW"}, miss: []string{"gate: ALLOW"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.miss, missingLines(tc.want, output))
		})
	}
}
