package incident_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// TestLoadDeferredReadsTheTelemetryLater: LoadDeferred refuses what Load
// refuses but a telemetry file's lines, which WithTelemetry reads and
// refuses as Load does, naming the folder, file, line and field; between
// them they report every problem Load reports. WithTelemetry returns a copy
// equal to Load's incident and leaves the deferred one as it was.
func TestLoadDeferredReadsTheTelemetryLater(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		break_ func(t *testing.T, dir string)
		atLoad []string // LoadDeferred's problems
		atRead []string // WithTelemetry's problems
	}{
		{name: "valid", break_: func(*testing.T, string) {}},
		{name: "gzip spans and logs", break_: func(t *testing.T, d string) {
			compress(t, d, incident.FileSpans, same)
			compress(t, d, incident.FileLogs, same)
		}},
		{name: "no logs", break_: func(t *testing.T, d string) { require.NoError(t, os.Remove(filepath.Join(d, incident.FileLogs))) }},
		{name: "bad span line", break_: func(t *testing.T, d string) { edit(t, d, incident.FileSpans, `"kind":2`, `"kind":9`) },
			atRead: []string{`spans.jsonl:2: field "kind": 9 out of range 0..5`}},
		{name: "span line not json", break_: func(t *testing.T, d string) { edit(t, d, incident.FileSpans, "\n\n", "\n{oops\n") },
			atRead: []string{"spans.jsonl:3: not a JSON object"}},
		{name: "bad log line", break_: func(t *testing.T, d string) {
			edit(t, d, incident.FileLogs, `"timestamp":"2026-11-30T10:06:01Z",`, "")
		}, atRead: []string{`logs.jsonl:2: field "timestamp": required`}},
		{name: "bad line in the gzip form", break_: func(t *testing.T, d string) {
			edit(t, d, incident.FileSpans, `"kind":2`, `"kind":9`)
			compress(t, d, incident.FileSpans, same)
		}, atRead: []string{`spans.jsonl.gz:2: field "kind": 9 out of range 0..5`}},
		{name: "truncated gzip", break_: func(t *testing.T, d string) {
			compress(t, d, incident.FileSpans, func(b []byte) []byte { return b[:len(b)/2] })
		}, atRead: []string{"spans.jsonl.gz:", "unreadable: incident: corrupt gzip: unexpected EOF"}},
		{name: "gzip form that is not gzip", break_: func(t *testing.T, d string) {
			compress(t, d, incident.FileSpans, func([]byte) []byte { return []byte(`{"timestamp":"2026-11-30T10:05:01Z"}`) })
		}, atLoad: []string{"spans.jsonl.gz: unreadable: incident: corrupt gzip: gzip: invalid header"}},
		{name: "no spans", break_: func(t *testing.T, d string) { require.NoError(t, os.Remove(filepath.Join(d, incident.FileSpans))) },
			atLoad: []string{"spans.jsonl: required file missing"}},
		{name: "both forms of the logs", break_: func(t *testing.T, d string) {
			require.NoError(t, os.WriteFile(filepath.Join(d, incident.FileLogs+incident.GzipSuffix), gzipBytes(t, nil), 0o644))
		}, atLoad: []string{"logs.jsonl: both logs.jsonl and logs.jsonl.gz are present: keep one"}},
		{name: "broken manifest and span line", break_: func(t *testing.T, d string) {
			edit(t, d, "incident.yaml", "verdict: allow", "verdict: maybe")
			edit(t, d, incident.FileSpans, `"kind":2`, `"kind":9`)
		}, atLoad: []string{`incident.yaml:7: field "expect.verdict": "maybe" is not allow or deny`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := copyValid(t, "retry-storm-01")
			tc.break_(t, dir)
			full, loadErr := incident.Load(dir)
			for _, w := range append(append([]string{}, tc.atLoad...), tc.atRead...) {
				require.ErrorContains(t, loadErr, w, "Load reports it too")
			}

			inc, err := incident.LoadDeferred(dir)
			if len(tc.atLoad) > 0 {
				require.ErrorIs(t, err, incident.ErrInvalid)
				for _, w := range tc.atLoad {
					require.ErrorContains(t, err, w)
				}
				return
			}
			require.NoError(t, err)
			require.True(t, inc.Deferred())
			require.Nil(t, inc.Spans)
			require.Nil(t, inc.Logs)

			got, err := inc.WithTelemetry()
			require.True(t, inc.Deferred(), "the deferred incident is left as it was")
			require.Nil(t, inc.Spans)
			require.Nil(t, inc.Logs)
			if len(tc.atRead) > 0 {
				require.Nil(t, got)
				require.ErrorIs(t, err, incident.ErrInvalid)
				var ie *incident.Error
				require.True(t, errors.As(err, &ie))
				require.Equal(t, dir, ie.Dir, "the error names the incident")
				require.ErrorContains(t, err, "incident "+dir+": ")
				for _, w := range tc.atRead {
					require.ErrorContains(t, err, w)
				}
				return
			}
			require.NoError(t, loadErr)
			require.NoError(t, err)
			require.NotSame(t, inc, got)
			require.False(t, got.Deferred())
			require.NotEmpty(t, got.Spans)
			require.Equal(t, full, got, "the copy is the incident Load reads")
		})
	}
}

// TestWithTelemetryOfALoadedIncident: an incident loaded with its telemetry
// (Load, or one a caller built) is its own WithTelemetry, not deferred.
func TestWithTelemetryOfALoadedIncident(t *testing.T) {
	t.Parallel()
	loaded, err := incident.Load(valid)
	require.NoError(t, err)
	for name, inc := range map[string]*incident.Incident{
		"Load":     loaded,
		"built":    {Spans: []incident.Span{{Name: "GET /"}}},
		"manifest": must(incident.LoadManifest(valid)),
	} {
		t.Run(name, func(t *testing.T) {
			require.False(t, inc.Deferred())
			got, err := inc.WithTelemetry()
			require.NoError(t, err)
			require.Same(t, inc, got)
		})
	}
}

func must(inc *incident.Incident, err error) *incident.Incident {
	if err != nil {
		panic(err)
	}
	return inc
}

// TestLoadCorpusDeferred: LoadCorpusDeferred loads what LoadCorpus loads,
// in the same order, each incident deferred; a broken telemetry line is
// WithTelemetry's to report, a broken manifest still refuses the corpus.
func TestLoadCorpusDeferred(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, name := range []string{"retry-storm-01", "b-second"} {
		src := copyValid(t, name)
		require.NoError(t, os.Rename(src, filepath.Join(root, name)))
	}
	edit(t, filepath.Join(root, "b-second"), "incident.yaml", "id: retry-storm-01", "id: b-second")

	whole, err := incident.LoadCorpus(root)
	require.NoError(t, err)
	incs, err := incident.LoadCorpusDeferred(root)
	require.NoError(t, err)
	require.Len(t, incs, len(whole))
	for i, inc := range incs {
		require.True(t, inc.Deferred())
		require.Equal(t, whole[i].Meta, inc.Meta)
		got, err := inc.WithTelemetry()
		require.NoError(t, err)
		require.Equal(t, whole[i], got)
	}

	edit(t, filepath.Join(root, "b-second"), incident.FileSpans, `"kind":2`, `"kind":9`)
	_, err = incident.LoadCorpus(root)
	require.ErrorContains(t, err, `spans.jsonl:2: field "kind"`)
	incs, err = incident.LoadCorpusDeferred(root)
	require.NoError(t, err, "the lines are read later")
	_, err = incs[0].WithTelemetry()
	require.ErrorContains(t, err, "b-second: spans.jsonl:2: field \"kind\"")

	edit(t, filepath.Join(root, "b-second"), "incident.yaml", "verdict: allow", "verdict: nope")
	_, err = incident.LoadCorpusDeferred(root)
	require.ErrorIs(t, err, incident.ErrInvalid)
	require.ErrorContains(t, err, `field "expect.verdict"`)

	_, err = incident.LoadCorpusDeferred(t.TempDir())
	require.ErrorIs(t, err, incident.ErrInvalid)
}
