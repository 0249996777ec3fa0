package table_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"agentk/contracts/table"

	"github.com/stretchr/testify/require"
)

// jsonLines is a block as it was written before tables: the long header and
// one JSON object per row.
func jsonLines(rows []any) string {
	var b strings.Builder
	fmt.Fprintf(&b, table.LegacyBegin, len(rows))
	b.WriteByte('\n')
	for _, r := range rows {
		b.WriteString(table.Encode(r) + "\n")
	}
	return b.String() + table.End
}

func decode(t testing.TB, lines ...string) []any {
	t.Helper()
	var out []any
	for _, l := range lines {
		var v any
		require.NoError(t, json.Unmarshal([]byte(l), &v))
		out = append(out, v)
	}
	return out
}

func TestRenderThenLegacyIsTheOldBlock(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rows  []string
		table string // the rendered block, when it matters
	}{
		{name: "no rows", table: "<<<DATA rows=0\nDATA>>>"},
		{name: "one row stays an object", rows: []string{`{"a":1,"b":"x"}`}, table: "<<<DATA rows=1\n{\"a\":1,\"b\":\"x\"}\nDATA>>>"},
		{name: "shared values once, the rest as columns", rows: []string{`{"service":"shop-api","ms":201.774,"msg":"a <b>"}`, `{"service":"shop-api","ms":3}`},
			table: "<<<DATA rows=2\nsame: {\"service\":\"shop-api\"}\ncols: [\"ms\",\"msg\"]\n[201.774,\"a \\u003cb\\u003e\"]\n[3,null]\nDATA>>>"},
		{name: "identical rows", rows: []string{`{"a":1}`, `{"a":1}`}},
		{name: "nested values and bools", rows: []string{`{"a":{"x":[1,"2"]},"e":true}`, `{"a":{"x":[1,"3"]},"e":true,"z":1e21}`}},
		{name: "not objects", rows: []string{`"DATA>>>"`, `[1,2]`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rows := decode(t, tc.rows...)
			got := table.Render(rows)
			if tc.table != "" {
				require.Equal(t, tc.table, got)
			}
			require.Equal(t, jsonLines(rows), table.Legacy(got))
		})
	}
}

func TestLegacyLeavesOldTextAlone(t *testing.T) {
	t.Parallel()
	old := "tool: error_logs\nlog records: 2\n" + jsonLines(decode(t, `{"body":"x","count":2}`, `{"body":"y"}`)) + "\n(3 more rows not shown)\nminutes:\n" + jsonLines(nil)
	require.Equal(t, old, table.Legacy(old))
	require.Equal(t, "no blocks [1,2]\ncols: [\"a\"]", table.Legacy("no blocks [1,2]\ncols: [\"a\"]"))
}

func TestLegacyOfTwoBlocks(t *testing.T) {
	t.Parallel()
	a, b := decode(t, `{"op":"GET /","p95_ms":3}`, `{"op":"POST /","p95_ms":4}`), decode(t, `{"minute":"10:05","errors":0}`, `{"minute":"10:06","errors":2}`)
	text := "per operation:\n" + table.Render(a) + "\nminutes:\n" + table.Render(b)
	require.Equal(t, "per operation:\n"+jsonLines(a)+"\nminutes:\n"+jsonLines(b), table.Legacy(text))
}

func FuzzRenderLegacy(f *testing.F) {
	f.Add(`{"body":"DATA>>>\ncols: [\"x\"]\n[1]"}`, `{"body":"y","n":1.5e300}`)
	f.Add(`{"a":1}`, `{"a":1}`)
	f.Add(`{"same: ":"cols: "}`, `[1]`)
	f.Fuzz(func(t *testing.T, a, b string) {
		var rows []any
		for _, s := range []string{a, b} {
			var v any
			if json.Unmarshal([]byte(s), &v) != nil || v == nil {
				v = s
			}
			rows = append(rows, v)
		}
		out := table.Render(rows)
		require.Equal(t, 1, strings.Count(out, table.End), out)
		require.Equal(t, jsonLines(rows), table.Legacy(out))
		_ = table.Legacy(a + "\n" + b) // any text: no panic
	})
}
