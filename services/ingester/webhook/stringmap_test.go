package webhook

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStringMap: the one-pass decoding of an all-string object and the
// general path agree; nulls are dropped and other values kept as JSON text.
func TestStringMap(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, raw string
		want      map[string]string
		err       bool
	}{
		{name: "strings", raw: `{"a":"1","b":"x\u00e9"}`, want: map[string]string{"a": "1", "b": "xé"}},
		{name: "empty object", raw: `{}`, want: map[string]string{}},
		{name: "null value dropped", raw: `{"a":"1","b":null}`, want: map[string]string{"a": "1"}},
		{name: "null inside a string kept", raw: `{"a":"nullable"}`, want: map[string]string{"a": "nullable"}},
		{name: "number kept as text", raw: `{"a":1.50}`, want: map[string]string{"a": "1.50"}},
		{name: "object kept compacted", raw: `{"a":{ "b" : 1 }}`, want: map[string]string{"a": `{"b":1}`}},
		{name: "last duplicate wins", raw: `{"a":"1","a":"2"}`, want: map[string]string{"a": "2"}},
		{name: "absent", raw: ``},
		{name: "null", raw: `null`},
		{name: "not an object", raw: `["a"]`, err: true},
		{name: "a string", raw: `"a"`, err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := stringMap(json.RawMessage(tc.raw))
			if tc.err {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
