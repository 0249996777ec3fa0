package lint

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// maxTrackedFile bounds every file git tracks: a recording that grows past
// it is committed gzip-compressed instead (docs/incident-format.md,
// "Compressed telemetry").
const maxTrackedFile = 5_000_000

// TestNoLargeTrackedFiles fails for every git-tracked file over 5 MB,
// naming it. It reads the index (git ls-files), so it holds in a fresh clone
// as in a working copy; safe.directory is passed because CI's checkout may
// belong to another user than the one running the tests.
func TestNoLargeTrackedFiles(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(repoRoot)
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(root, ".git")); errors.Is(err, fs.ErrNotExist) {
		t.Skip("not a git checkout (no .git): nothing is tracked")
	}
	cmd := exec.Command("git", "-c", "safe.directory=*", "-C", root, "ls-files", "-z")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "git ls-files: %s", stderr.String())
	paths := bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0})
	require.NotEmpty(t, paths, "git ls-files listed nothing")
	if bad := largeFiles(root, paths); len(bad) > 0 {
		t.Errorf("git-tracked files over %d bytes (5 MB):\n%s", maxTrackedFile, bytes.Join(bad, []byte("\n")))
	}
}

// largeFiles returns a message for each of paths (relative to root) whose
// file is larger than maxTrackedFile; a tracked file deleted in the working
// copy is no concern of this test.
func largeFiles(root string, paths [][]byte) [][]byte {
	var bad [][]byte
	for _, p := range paths {
		fi, err := os.Lstat(filepath.Join(root, string(p)))
		if err != nil || !fi.Mode().IsRegular() || fi.Size() <= maxTrackedFile {
			continue
		}
		bad = append(bad, fmt.Appendf(nil, "  %s is %d bytes: commit it as %s.gz (gzip -9 -n %s; an incident's "+
			"spans.jsonl.gz and logs.jsonl.gz are read in place of the plain files)", p, fi.Size(), p, p))
	}
	return bad
}

func TestLargeFilesNamesTheFileAndSaysToGzipIt(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "small.jsonl"), []byte("{}\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "inc"), 0o755))
	big := filepath.Join(root, "inc", "spans.jsonl")
	require.NoError(t, os.WriteFile(big, nil, 0o644))
	require.NoError(t, os.Truncate(big, maxTrackedFile+1))
	got := largeFiles(root, [][]byte{[]byte("small.jsonl"), []byte("inc/spans.jsonl"), []byte("deleted.txt")})
	require.Len(t, got, 1)
	require.Contains(t, string(got[0]), "inc/spans.jsonl is 5000001 bytes: commit it as inc/spans.jsonl.gz (gzip -9 -n inc/spans.jsonl;")
}
