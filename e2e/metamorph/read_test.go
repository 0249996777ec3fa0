package metamorph

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// TestReadGzipTelemetry: a folder holding spans.jsonl.gz and logs.jsonl.gz
// reads as the same lines as the plain one; both forms of a file, or a
// truncated gzip form, are refused naming the file.
func TestReadGzipTelemetry(t *testing.T) {
	t.Parallel()
	plain, err := Read(sample)
	require.NoError(t, err)
	gzipped := func(t *testing.T, keepPlain bool, mangle func([]byte) []byte) string {
		dir := filepath.Join(t.TempDir(), filepath.Base(sample))
		require.NoError(t, os.CopyFS(dir, os.DirFS(sample)))
		for _, name := range []string{incident.FileSpans, incident.FileLogs} {
			b, err := os.ReadFile(filepath.Join(dir, name))
			require.NoError(t, err)
			var buf bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
			_, err = zw.Write(b)
			require.NoError(t, err)
			require.NoError(t, zw.Close())
			require.NoError(t, os.WriteFile(filepath.Join(dir, name+incident.GzipSuffix), mangle(buf.Bytes()), 0o644))
			if !keepPlain {
				require.NoError(t, os.Remove(filepath.Join(dir, name)))
			}
		}
		return dir
	}
	whole := func(b []byte) []byte { return b }
	for _, tc := range []struct {
		name      string
		keepPlain bool
		mangle    func([]byte) []byte
		wantErr   string
	}{
		{name: "gz", mangle: whole},
		{name: "both forms", keepPlain: true, mangle: whole, wantErr: "spans.jsonl and spans.jsonl.gz"},
		{name: "truncated gz", mangle: func(b []byte) []byte { return b[:len(b)-10] }, wantErr: "spans.jsonl.gz: incident: corrupt gzip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Read(gzipped(t, tc.keepPlain, tc.mangle))
			if tc.wantErr != "" {
				require.ErrorIs(t, err, ErrTransform)
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, plain, got)
			require.True(t, got.HasLogs)
		})
	}
}
