package incident

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	"agentk/contracts"

	"github.com/stretchr/testify/require"
)

func seedLines(f *testing.F, file string) {
	b, err := os.ReadFile("testdata/retry-storm-01/" + file)
	require.NoError(f, err)
	for _, l := range strings.Split(string(b), "\n") {
		f.Add([]byte(l))
	}
}

func FuzzSpanLine(f *testing.F) {
	seedLines(f, FileSpans)
	f.Add([]byte(`{"kind":"2","duration_nano":-1,"resource":{"service.name":null}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		s, errs := parseSpanLine(line)
		for _, e := range errs {
			require.NotEmpty(t, e.Msg)
		}
		if len(errs) == 0 {
			require.False(t, s.Timestamp.IsZero())
			require.NotEmpty(t, s.Service())
			require.True(t, s.Kind >= 0 && s.Kind <= 5)
			require.True(t, s.StatusCode >= 0 && s.StatusCode <= 2)
			require.Len(t, s.TraceID, 32)
		}
	})
}

func FuzzLogLine(f *testing.F) {
	seedLines(f, FileLogs)
	f.Add([]byte(`{"timestamp":"2026-11-30T10:06:00Z","body":null,"resource":{"service.name":1}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		l, errs := parseLogLine(line)
		if len(errs) == 0 {
			require.False(t, l.Timestamp.IsZero())
			require.NotEmpty(t, l.Service())
		}
	})
}

func FuzzIncidentYAML(f *testing.F) {
	b, err := os.ReadFile("testdata/retry-storm-01/" + FileIncident)
	require.NoError(f, err)
	f.Add(b)
	f.Add([]byte("id: [\nexpect: {verdict: 1}\n"))
	f.Add([]byte("prior_actions:\n  - at: x\n"))
	f.Add([]byte("expect:\n  culprit: {service: payment, verdict: maybe}\n"))
	f.Add([]byte("expect:\n  culprit: payment\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ps := &problems{}
		m, ok := parseMeta(b, "retry-storm-01", contracts.DefaultCatalogue(), ps)
		require.Equal(t, ok, len(ps.list) == 0)
		if ok {
			require.Equal(t, "retry-storm-01", m.ID)
			require.Contains(t, verdicts, m.Expect.Verdict)
			require.False(t, m.Now.IsZero())
			if c := m.Expect.Culprit; c != nil {
				require.NotEmpty(t, c.Service)
				require.Contains(t, verdicts, c.Verdict)
			}
		}
		for _, p := range ps.list {
			require.Equal(t, FileIncident, p.File)
		}
	})
}

func FuzzReleasesYAML(f *testing.F) {
	b, err := os.ReadFile("testdata/retry-storm-01/" + FileReleases)
	require.NoError(f, err)
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		ps := &problems{}
		r, ok := parseReleases(b, ps)
		if ok {
			for _, list := range r.Services {
				for i := 1; i < len(list); i++ {
					require.False(t, list[i].DeployedAt.Before(list[i-1].DeployedAt))
				}
			}
		}
	})
}

// FuzzPlainString: the decoder-free read of a string literal agrees with
// encoding/json wherever it answers (the line around it was validated).
func FuzzPlainString(f *testing.F) {
	for _, s := range []string{`"shop-api"`, `"a\"b"`, `"\u00e9"`, "\"\xff\"", `""`, `"`, `12`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, r []byte) {
		got, ok := PlainString(r)
		if !ok || !json.Valid(r) {
			return
		}
		var want string
		require.NoError(t, json.Unmarshal(r, &want))
		require.Equal(t, want, got)
	})
}

// FuzzRuleJSON: checkRule never panics, every problem names rule.json, and
// a rule it accepts has an id among the alert's ruleIds.
func FuzzRuleJSON(f *testing.F) {
	b, err := os.ReadFile("testdata/retry-storm-01/" + FileRule)
	require.NoError(f, err)
	f.Add(b)
	f.Add([]byte(`{"status":"success","data":{"id":"r","alert":"a","condition":{"compositeQuery":{"queries":[{"type":"builder_query","spec":null}]}}}}`))
	f.Add([]byte(`{"status":"success","data":{"id":7}}`))
	f.Add([]byte(`[]`))
	ids := []string{"019368f2-8c1a-7b4e-9d3f-2a6b1c0e5f11"}
	f.Fuzz(func(t *testing.T, b []byte) {
		ps := &problems{}
		id := checkRule(b, ids, ps)
		for _, p := range ps.list {
			require.Equal(t, FileRule, p.File)
			require.NotEmpty(t, p.Msg)
		}
		if len(ps.list) == 0 {
			require.Contains(t, ids, id)
		}
	})
}

// gzipBytes compresses b as `gzip -9 -n` does: best compression, no name
// or time in the header (GzipBytes to the package's external tests).
func gzipBytes(tb testing.TB, b []byte) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	require.NoError(tb, err)
	_, err = zw.Write(b)
	require.NoError(tb, err)
	require.NoError(tb, zw.Close())
	return buf.Bytes()
}

// FuzzGzipSpans: a spans.jsonl.gz of any bytes never panics the streaming
// read, every problem names the gzip file, a broken stream is ErrCorruptGzip,
// and wherever the whole stream decompresses the rows and problems are
// those of its decompressed bytes read as spans.jsonl.
func FuzzGzipSpans(f *testing.F) {
	b, err := os.ReadFile("testdata/retry-storm-01/" + FileSpans)
	require.NoError(f, err)
	whole := gzipBytes(f, b)
	f.Add(whole)
	f.Add(whole[:len(whole)/2])
	f.Add(append(gzipBytes(f, b[:len(b)/3]), gzipBytes(f, b[len(b)/3:])...))
	f.Add(gzipBytes(f, []byte("{oops\n\n{\"kind\":9}\n")))
	f.Add(gzipBytes(f, nil))
	f.Add([]byte{})
	f.Add(b)
	const file = FileSpans + GzipSuffix
	f.Fuzz(func(t *testing.T, gz []byte) {
		ps := &problems{}
		r, err := newGzipLines(bytes.NewReader(gz))
		if err != nil {
			require.ErrorIs(t, err, ErrCorruptGzip)
			return
		}
		rows := parseRows(r, file, ps, parseSpanLine)
		for _, p := range ps.list {
			require.Equal(t, file, p.File)
			require.NotEmpty(t, p.Msg)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		require.NoError(t, err, "the header was read once already")
		plain, err := io.ReadAll(zr)
		if err != nil {
			require.NotEmpty(t, ps.list, "a stream that does not decompress whole is a problem")
			if !ps.truncated {
				require.Contains(t, ps.list[len(ps.list)-1].Msg, ErrCorruptGzip.Error())
			}
			return
		}
		want := &problems{}
		require.Equal(t, parseRows(bytes.NewReader(plain), file, want, parseSpanLine), rows)
		require.Equal(t, want.list, ps.list)
	})
}
