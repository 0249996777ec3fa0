package replay

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// copyIncident copies the e2e corpus's incident id into a folder of root,
// each telemetry line passed through mangle (line numbers from 1).
func copyIncident(t *testing.T, root, id string, mangle func(file string, n int, line string) string) string {
	t.Helper()
	src := filepath.Join("..", "..", "..", "e2e", "incidents", id)
	dst := filepath.Join(root, id)
	require.NoError(t, os.MkdirAll(dst, 0o755))
	entries, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		if e.Name() == incident.FileSpans || e.Name() == incident.FileLogs {
			lines := strings.Split(string(b), "\n")
			for i := range lines {
				lines[i] = mangle(e.Name(), i+1, lines[i])
			}
			b = []byte(strings.Join(lines, "\n"))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644))
	}
	return dst
}

func keepLine(_ string, _ int, line string) string { return line }

// The telemetry of an incident loaded deferred (what `agentk eval` loads)
// is read once, by the index builder, and the incident the caller holds is
// left without it; a broken telemetry file fails every replay of that
// incident with Load's error (the folder, the file, the line, the field)
// and is read once for them all.
func TestSharedReadsDeferredTelemetry(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	tests := []struct {
		name   string
		mangle func(file string, n int, line string) string
		want   []string // the error's parts; none: the telemetry is built
	}{
		{name: "valid", mangle: keepLine},
		{name: "span line not json", mangle: func(file string, n int, line string) string {
			if file == incident.FileSpans && n == 3 {
				return "{oops"
			}
			return line
		}, want: []string{"retry-storm-01: ", "spans.jsonl:3: not a JSON object"}},
		{name: "log without timestamp", mangle: func(file string, n int, line string) string {
			if file == incident.FileLogs && n == 2 {
				return `{"body":"x","resource":{"service.name":"shop-api"}}`
			}
			return line
		}, want: []string{"retry-storm-01: ", `logs.jsonl:2: field "timestamp": required`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := copyIncident(t, filepath.Join(root, strings.ReplaceAll(tc.name, " ", "-")), "retry-storm-01", tc.mangle)
			inc, err := incident.LoadDeferred(dir)
			require.NoError(t, err)
			for _, s := range []*Shared{nil, {}, {release: true}} {
				tel, err := s.telemetry(inc)
				again, errAgain := s.telemetry(inc)
				require.Nil(t, inc.Spans, "the caller's incident is left as it was")
				require.True(t, inc.Deferred())
				if len(tc.want) == 0 {
					require.NoError(t, err)
					require.NoError(t, errAgain)
					require.NotNil(t, tel)
					if s != nil {
						require.Same(t, tel, again, "read once")
					}
					continue
				}
				require.Nil(t, tel)
				require.ErrorIs(t, err, incident.ErrInvalid)
				for _, w := range tc.want {
					require.ErrorContains(t, err, w)
				}
				require.Equal(t, err.Error(), errAgain.Error())
				if s != nil {
					require.Same(t, err, errAgain, "read once")
				}
			}
		})
	}
}

// An eval of incidents loaded deferred replays a valid one as an eval of
// the loaded incident does, and fails every replay of one whose spans are
// broken with Load's error naming the incident and the line, as an
// outcome; the scoreboard counts them as errors and is not safe. The
// incidents the caller holds keep no telemetry.
func TestEvalOfDeferredIncidents(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	copyIncident(t, root, "retry-storm-01", keepLine)
	copyIncident(t, root, "bad-release-01", func(file string, n int, line string) string {
		if file == incident.FileSpans && n == 3 {
			return `{"timestamp":"not-a-time","trace_id":5}`
		}
		return line
	})
	incs, err := incident.LoadCorpusDeferred(root)
	require.NoError(t, err, "the lines are read by the replays")
	require.Equal(t, "bad-release-01", incs[0].Meta.ID)

	invs := []string{"rules", "persona:oracle"}
	outs := Eval(context.Background(), incs, invs, Options{Timeout: 90 * time.Second}, 1, nil)
	require.Len(t, outs, 4)
	for _, inc := range incs {
		require.True(t, inc.Deferred())
		require.Nil(t, inc.Spans)
		require.Nil(t, inc.Logs)
	}
	for k, inv := range invs {
		bad, good := outs[k*2], outs[k*2+1]
		require.Equal(t, inv, bad.Investigator)
		require.Equal(t, "bad-release-01", bad.Incident)
		require.Contains(t, bad.Error, "incident "+filepath.Join(root, "bad-release-01")+": ")
		require.Contains(t, bad.Error, `spans.jsonl:3: field "timestamp": not RFC 3339`)
		require.Contains(t, bad.Error, `spans.jsonl:3: field "trace_id": not a string`)

		require.Empty(t, good.Error)
		loaded, err := incident.Load(filepath.Join(root, "retry-storm-01"))
		require.NoError(t, err)
		alone, err := RunIncident(context.Background(), loaded, Options{Investigator: inv, Timeout: 90 * time.Second})
		require.NoError(t, err)
		require.JSONEq(t, stableJSON(t, alone), stableJSON(t, good.Result), inv)
	}
	s := Score(outs)
	require.False(t, s.Safe)
	for _, r := range s.Rows {
		require.Equal(t, 2, r.Incidents)
		require.Equal(t, 1, r.Errors, r.Investigator)
	}
}
