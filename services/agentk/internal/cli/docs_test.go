package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// markdownLink is a Markdown link's target.
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsSelfContained fails when a README or a page of docs/ points
// outside the repository: a link or a path that climbs out of it, a path of
// one machine, or a relative link to a file that is not there.
func TestDocsSelfContained(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(repoRoot)
	require.NoError(t, err)
	outside := regexp.MustCompile("(\\.\\./shared|(^|[\\s`(])/(work|home|Users|tmp)/)")
	var problems []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != root || d.Name() == "bin" || d.Name() == "build" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if !strings.HasPrefix(rel, "docs"+string(filepath.Separator)) && filepath.Base(p) != "README.md" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if outside.MatchString(line) {
				problems = append(problems, rel+":"+strconv.Itoa(i+1)+": points outside the repository: "+strings.TrimSpace(line))
			}
			for _, m := range markdownLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				target, _, _ = strings.Cut(target, "#")
				abs := filepath.Clean(filepath.Join(filepath.Dir(p), target))
				if r, err := filepath.Rel(root, abs); err != nil || strings.HasPrefix(r, "..") {
					problems = append(problems, rel+":"+strconv.Itoa(i+1)+": links outside the repository: "+m[1])
					continue
				}
				if _, err := os.Stat(abs); err != nil {
					problems = append(problems, rel+":"+strconv.Itoa(i+1)+": broken link: "+m[1])
				}
			}
		}
		return nil
	}))
	require.Empty(t, problems)
}
