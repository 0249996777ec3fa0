package incident

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// splitObject reads every valid JSON text as json.Unmarshal into a map of
// raw messages does: the same members and values, or not an object.
func FuzzSplitObject(f *testing.F) {
	b, err := os.ReadFile("testdata/retry-storm-01/" + FileSpans)
	require.NoError(f, err)
	for _, l := range strings.Split(string(b), "\n") {
		f.Add([]byte(l))
	}
	for _, s := range []string{`{}`, ` { "a" : 1 , "a" : [ "}" , {"b":"\""} ] } `, `{"\u00e9":true,"k\"q":null}`, `null`, `[1]`, `"x"`,
		"{\"\xff\":1}", `{"a":{"b":{"c":[]}},"d":-1.5e3,"e":"\\"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		var want map[string]json.RawMessage
		err := json.Unmarshal(b, &want)
		got, ok := splitObject(b)
		if err != nil || want == nil {
			require.False(t, ok, "%q", b)
			return
		}
		require.True(t, ok, "%q", b)
		require.Equal(t, len(want), len(got), "%q", b)
		for k, v := range want {
			require.Equal(t, string(v), string(got[k]), "%q member %q", b, k)
		}
	})
}
