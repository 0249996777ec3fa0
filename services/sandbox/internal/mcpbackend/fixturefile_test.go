package mcpbackend_test

import (
	"compress/gzip"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// openFixture opens a recorded fixture for reading, through gzip when its
// name ends in .gz (a fixture over lint's 5 MB is committed compressed).
func openFixture(t *testing.T, path string) io.ReadCloser {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	if !strings.HasSuffix(path, ".gz") {
		return f
	}
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	return readCloser{Reader: zr, close: func() error { zr.Close(); return f.Close() }}
}

// createFixture creates a fixture for writing, through gzip when its name
// ends in .gz; its Close flushes and closes both.
func createFixture(t *testing.T, path string) io.WriteCloser {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	if !strings.HasSuffix(path, ".gz") {
		return f
	}
	zw, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	require.NoError(t, err)
	return writeCloser{Writer: zw, close: func() error {
		if err := zw.Close(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}}
}

type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }

type writeCloser struct {
	io.Writer
	close func() error
}

func (w writeCloser) Close() error { return w.close() }
