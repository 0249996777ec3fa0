package e2e

// LOCAL ONLY, never committed: writes the metamorphic subjects and their transforms.

import (
	"os"
	"path/filepath"
	"testing"

	"agentk/e2e/metamorph"

	"github.com/stretchr/testify/require"
)

func TestMetaDump(t *testing.T) {
	out := os.Getenv("META_OUT")
	if out == "" {
		t.Skip()
	}
	scratch := t.TempDir()
	for _, s := range metamorphicSubjects(t, scratch) {
		f, err := metamorph.Read(s.dir)
		require.NoError(t, err)
		base := filepath.Base(s.dir)
		_, err = f.Write(out, base)
		require.NoError(t, err)
		for _, tr := range transformsFor(s) {
			g, err := tr.Apply(f)
			require.NoError(t, err)
			_, err = g.Write(out, base+"--"+tr.Name)
			require.NoError(t, err)
		}
	}
}
