package tools_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"agentk/contracts"
	"agentk/contracts/table"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus-evidence.json")

// corpusEvidence is what every reader other than a model takes from one
// call's evidence: the facts (the gate's input) and the digest of the text
// in the form the rules investigator, the reviewer and Facts.Numbers parse
// (table.Legacy).
type corpusEvidence struct {
	Incident string          `json:"incident"`
	Tool     string          `json:"tool"`
	Facts    contracts.Facts `json:"facts"`
	Parsed   string          `json:"parsed_sha256"`
}

// TestCorpusEvidenceUnchanged replays the first calls of an investigation
// of every incident of the corpus and compares the facts and the parsed
// form of the text with testdata/corpus-evidence.json, recorded before the
// rendering became tables. A change in how evidence is rendered for the
// model must leave both as they were: then the gate's verdicts, the
// reviewer's number checks and the rules investigator's rows (and so the
// eval's verdicts) cannot change with it. -update rewrites the file after a
// deliberate change of facts or rows.
func TestCorpusEvidenceUnchanged(t *testing.T) {
	t.Parallel()
	var got []corpusEvidence
	for _, c := range corpusCalls(t) {
		r, err := c.h.run(t, c.tool, c.args)
		require.NoError(t, err, "%s %s", c.incident, c.tool)
		sum := sha256.Sum256([]byte(table.Legacy(r.out.Compact)))
		got = append(got, corpusEvidence{Incident: c.incident, Tool: c.tool, Facts: r.out.Facts, Parsed: hex.EncodeToString(sum[:])})
	}
	path := filepath.Join("testdata", "corpus-evidence.json")
	if *update {
		// One call a line: a diff names the calls that changed.
		var b []byte
		for i, e := range got {
			line, err := json.Marshal(e)
			require.NoError(t, err)
			b = append(append(append(b, "[,"[min(i, 1)]), line...), '\n')
		}
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, append(b, "]\n"...), 0o644))
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var want []corpusEvidence
	require.NoError(t, json.Unmarshal(b, &want))
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, want[i], got[i], "%s %s", want[i].Incident, want[i].Tool)
	}
}
