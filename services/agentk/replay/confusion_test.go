package replay

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func scored(inv, want, got, errText string) Outcome {
	return Outcome{Result: Result{Investigator: inv, Diagnosis: got, Expect: Expectation{RootCause: want}}, Error: errText}
}

func TestConfusions(t *testing.T) {
	t.Parallel()
	outs := []Outcome{
		scored("rules", "bad_release", "bad_release", ""),
		scored("rules", "bad_release", "unknown", ""),
		scored("rules", "traffic_surge", "retrieval_latency", ""),
		scored("rules", "traffic_surge", "", "replay timed out"),
		scored("persona:oracle", "traffic_surge", "traffic_surge", ""),
	}
	cs := Confusions(outs)
	require.Len(t, cs, 2)
	require.Equal(t, "rules", cs[0].Investigator)
	require.Equal(t, []string{"bad_release", "error", "retrieval_latency", "traffic_surge", "unknown"}, cs[0].Classes)
	require.Equal(t, 1, cs[0].Counts["bad_release"]["bad_release"])
	require.Equal(t, 1, cs[0].Counts["bad_release"]["unknown"])
	require.Equal(t, 1, cs[0].Counts["traffic_surge"]["error"])
	require.Equal(t, map[string]int{"traffic_surge": 1}, cs[1].Counts["traffic_surge"])

	var b bytes.Buffer
	tuned := false
	MarkdownCorpus(&b, Provenance{Name: "worlds", TunedOn: &tuned, Source: "e2e/worldgen"}, outs)
	md := b.String()
	require.Contains(t, md, "`worlds`: **out-of-sample** — the rules were not tuned on this corpus. Source: e2e/worldgen.")
	require.Contains(t, md, "| bad_release | **1** | · | · | · | 1 |")
	require.Contains(t, md, "### Root causes, persona:oracle")
}

func TestReadProvenance(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p, err := ReadProvenance(dir)
	require.NoError(t, err)
	require.Equal(t, "not declared", p.Sample())
	require.NoError(t, os.WriteFile(filepath.Join(dir, CorpusFile), []byte("name: ours\ntuned_on: true\n"), 0o644))
	p, err = ReadProvenance(dir)
	require.NoError(t, err)
	require.Equal(t, "in-sample", p.Sample())
	require.Equal(t, "ours", p.Name)
	require.NoError(t, os.WriteFile(filepath.Join(dir, CorpusFile), []byte("tuned_on: [\n"), 0o644))
	_, err = ReadProvenance(dir)
	require.ErrorContains(t, err, CorpusFile)
}

// FuzzReadProvenance: whatever corpus.yaml holds, reading it returns a
// provenance or an error naming the file, never a panic, and an unreadable
// tuned_on is never taken as in-sample or out-of-sample silently.
func FuzzReadProvenance(f *testing.F) {
	for _, s := range []string{"name: x\ntuned_on: true\n", "tuned_on: false", "tuned_on: maybe", "{", "source: [1, 2]", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, CorpusFile), b, 0o644))
		p, err := ReadProvenance(dir)
		if err != nil {
			require.ErrorContains(t, err, CorpusFile)
			return
		}
		require.NotEmpty(t, p.Name)
		require.Contains(t, []string{"in-sample", "out-of-sample", "not declared"}, p.Sample())
	})
}
