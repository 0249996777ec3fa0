package incident_test

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

var gzipBytes = incident.GzipBytes

// compress replaces dir's file with file.gz holding its bytes as mangle
// leaves the compressed form, and returns the compressed bytes.
func compress(t *testing.T, dir, file string, mangle func([]byte) []byte) {
	t.Helper()
	p := filepath.Join(dir, file)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	require.NoError(t, os.Remove(p))
	require.NoError(t, os.WriteFile(p+incident.GzipSuffix, mangle(gzipBytes(t, b)), 0o644))
}

func same(b []byte) []byte { return b }

// TestLoadGzipTelemetry: spans.jsonl.gz and logs.jsonl.gz stand in for
// spans.jsonl and logs.jsonl and load to the very same incident; a folder
// with both forms of a file, or a gzip form that is not whole gzip, is
// refused with the file named.
func TestLoadGzipTelemetry(t *testing.T) {
	t.Parallel()
	plain, err := incident.Load(valid)
	require.NoError(t, err)
	tests := []struct {
		name   string
		break_ func(t *testing.T, dir string)
		want   []string
	}{
		{name: "plain", break_: func(*testing.T, string) {}},
		{name: "gzip spans and logs", break_: func(t *testing.T, d string) {
			compress(t, d, incident.FileSpans, same)
			compress(t, d, incident.FileLogs, same)
		}},
		{name: "gzip spans, plain logs", break_: func(t *testing.T, d string) { compress(t, d, incident.FileSpans, same) }},
		{name: "gzip form of two concatenated members", break_: func(t *testing.T, d string) {
			compress(t, d, incident.FileLogs, func(b []byte) []byte { return append(b, gzipBytes(t, []byte("\n"))...) })
		}},
		{name: "both forms present", break_: func(t *testing.T, d string) {
			b, err := os.ReadFile(filepath.Join(d, incident.FileSpans))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(d, incident.FileSpans+incident.GzipSuffix), gzipBytes(t, b), 0o644))
		}, want: []string{"spans.jsonl: both spans.jsonl and spans.jsonl.gz are present: keep one"}},
		{name: "both forms of the optional logs", break_: func(t *testing.T, d string) {
			require.NoError(t, os.WriteFile(filepath.Join(d, incident.FileLogs+incident.GzipSuffix), gzipBytes(t, nil), 0o644))
		}, want: []string{"logs.jsonl: both logs.jsonl and logs.jsonl.gz are present: keep one"}},
		{name: "corrupt gzip: not gzip at all", break_: func(t *testing.T, d string) {
			compress(t, d, incident.FileSpans, func([]byte) []byte { return []byte(`{"timestamp":"2026-11-30T10:05:01Z"}`) })
		}, want: []string{"spans.jsonl.gz: unreadable: incident: corrupt gzip: gzip: invalid header"}},
		{name: "corrupt gzip: empty", break_: func(t *testing.T, d string) {
			compress(t, d, incident.FileSpans, func([]byte) []byte { return nil })
		}, want: []string{"spans.jsonl.gz: unreadable: incident: corrupt gzip: EOF"}},
		{name: "corrupt gzip: checksum", break_: func(t *testing.T, d string) {
			compress(t, d, incident.FileSpans, func(b []byte) []byte { b[len(b)-5] ^= 0xff; return b })
		}, want: []string{"spans.jsonl.gz:", "unreadable: incident: corrupt gzip: gzip: invalid checksum"}},
		{name: "truncated gzip", break_: func(t *testing.T, d string) {
			compress(t, d, incident.FileSpans, func(b []byte) []byte { return b[:len(b)/2] })
		}, want: []string{"spans.jsonl.gz:", "unreadable: incident: corrupt gzip: unexpected EOF"}},
		{name: "truncated gzip of the optional logs", break_: func(t *testing.T, d string) {
			compress(t, d, incident.FileLogs, func(b []byte) []byte { return b[:len(b)-4] })
		}, want: []string{"logs.jsonl.gz:", "corrupt gzip: unexpected EOF"}},
		{name: "a bad line is named in the gzip form", break_: func(t *testing.T, d string) {
			edit(t, d, incident.FileSpans, `"kind":2`, `"kind":9`)
			compress(t, d, incident.FileSpans, same)
		}, want: []string{`spans.jsonl.gz:2: field "kind": 9 out of range 0..5`}},
		{name: "neither form of spans", break_: func(t *testing.T, d string) {
			require.NoError(t, os.Remove(filepath.Join(d, incident.FileSpans)))
		}, want: []string{"spans.jsonl: required file missing"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := copyValid(t, "retry-storm-01")
			tc.break_(t, dir)
			inc, err := incident.Load(dir)
			if len(tc.want) == 0 {
				require.NoError(t, err)
				require.Equal(t, plain.Spans, inc.Spans)
				require.Equal(t, plain.Logs, inc.Logs)
				return
			}
			require.ErrorIs(t, err, incident.ErrInvalid)
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
		})
	}
}

// TestOpenTelemetry: the reader of either form yields the plain file's
// bytes and says which file it opened; the errors are the documented
// sentinels.
func TestOpenTelemetry(t *testing.T) {
	t.Parallel()
	want, err := os.ReadFile(filepath.Join(valid, incident.FileSpans))
	require.NoError(t, err)
	tests := []struct {
		name     string
		files    map[string][]byte
		wantFile string
		wantErr  error
		readErr  error
	}{
		{name: "plain", files: map[string][]byte{"spans.jsonl": want}, wantFile: "spans.jsonl"},
		{name: "gz", files: map[string][]byte{"spans.jsonl.gz": gzipBytes(t, want)}, wantFile: "spans.jsonl.gz"},
		{name: "both", files: map[string][]byte{"spans.jsonl": want, "spans.jsonl.gz": gzipBytes(t, want)},
			wantFile: "spans.jsonl", wantErr: incident.ErrTwoForms},
		{name: "neither", files: map[string][]byte{"logs.jsonl": want}, wantFile: "spans.jsonl", wantErr: fs.ErrNotExist},
		{name: "corrupt gz", files: map[string][]byte{"spans.jsonl.gz": []byte("PK\x03\x04 a zip, not a gzip")},
			wantFile: "spans.jsonl.gz", wantErr: incident.ErrCorruptGzip},
		{name: "truncated gz", files: map[string][]byte{"spans.jsonl.gz": gzipBytes(t, want)[:40]},
			wantFile: "spans.jsonl.gz", readErr: incident.ErrCorruptGzip},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, b := range tc.files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
			}
			r, file, err := incident.OpenTelemetry(dir, incident.FileSpans)
			require.Equal(t, tc.wantFile, file)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				require.Nil(t, r)
				return
			}
			require.NoError(t, err)
			defer r.Close()
			got, err := io.ReadAll(r)
			if tc.readErr != nil {
				require.ErrorIs(t, err, tc.readErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, want, got)
		})
	}
}
