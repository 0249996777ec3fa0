package incident

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// GzipSuffix marks the gzip-compressed form of a telemetry file:
// spans.jsonl.gz holds what spans.jsonl would, compressed, so a recording of
// hours of traffic stays a small file in a repository.
const GzipSuffix = ".gz"

// ErrTwoForms is returned by OpenTelemetry when a folder holds a telemetry
// file both plain and gzip-compressed: which one is the recording would be a
// guess.
var ErrTwoForms = errors.New("incident: both forms of a telemetry file present")

// ErrCorruptGzip is returned by OpenTelemetry, or by a read of the reader it
// returns, when the gzip form is not gzip, is truncated, or fails its
// checksum.
var ErrCorruptGzip = errors.New("incident: corrupt gzip")

// OpenTelemetry opens the telemetry file name (FileSpans or FileLogs) of the
// folder dir in whichever form the folder holds it: name itself, or name
// with GzipSuffix, decompressed as it is read (nothing is decompressed ahead
// of the reader). It returns the reader of the JSON lines and the file name
// it opened, for messages. Neither form present is an error wrapping
// fs.ErrNotExist; both present is ErrTwoForms naming both; a gzip form whose
// header is broken is ErrCorruptGzip, and one broken further in makes a Read
// return ErrCorruptGzip.
func OpenTelemetry(dir, name string) (io.ReadCloser, string, error) {
	gzName := name + GzipSuffix
	plain, err := os.Open(filepath.Join(dir, name))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, name, err
	}
	gz, gzErr := os.Open(filepath.Join(dir, gzName))
	switch {
	case gzErr != nil && !errors.Is(gzErr, fs.ErrNotExist):
		closeIf(plain)
		return nil, gzName, gzErr
	case plain != nil && gz != nil:
		closeIf(plain)
		closeIf(gz)
		return nil, name, fmt.Errorf("%w: %s and %s: keep one", ErrTwoForms, name, gzName)
	case plain != nil:
		return plain, name, nil
	case gz == nil:
		return nil, name, fmt.Errorf("incident: %s (or %s): %w", name, gzName, fs.ErrNotExist)
	}
	r, err := newGzipLines(gz)
	if err != nil {
		closeIf(gz)
		return nil, gzName, err
	}
	return &gzipFile{Reader: r, f: gz}, gzName, nil
}

func closeIf(f *os.File) {
	if f != nil {
		_ = f.Close()
	}
}

// gzipFile is a gzip form being read: the decompressing reader and the file
// under it, closed together.
type gzipFile struct {
	io.Reader
	f *os.File
}

func (g *gzipFile) Close() error { return g.f.Close() }

// newGzipLines decompresses r as it is read, every failure but the end of
// the stream wrapped in ErrCorruptGzip.
func newGzipLines(r io.Reader) (io.Reader, error) {
	zr, err := gzip.NewReader(bufio.NewReaderSize(r, 64<<10))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorruptGzip, err)
	}
	return corruptOnError{zr}, nil
}

type corruptOnError struct{ r io.Reader }

func (c corruptOnError) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%w: %v", ErrCorruptGzip, err)
	}
	return n, err
}
