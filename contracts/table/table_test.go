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
		{name: "a long value repeated apart is written once and referred to", rows: []string{`{"kind":"Client","msg":"context deadline exceeded"}`, `{"kind":"Server","msg":"upstream timed out"}`, `{"kind":"Client","msg":"context deadline exceeded"}`, `{"kind":"Server","msg":"upstream timed out"}`},
			table: "<<<DATA rows=4\nvalues: {\"msg\":[\"context deadline exceeded\",\"upstream timed out\"]}\ncols (\"#n\" = values[n]): [\"kind\",\"msg\"]\n[\"Client\",\"#0\"]\n[\"Server\",\"#1\"]\n[\"Client\",\"#0\"]\n[\"Server\",\"#1\"]\nDATA>>>"},
		{name: "no references in a column with a value that reads as one", rows: []string{`{"kind":"Client","msg":"context deadline exceeded"}`, `{"kind":"Server","msg":"#0"}`, `{"kind":"Client","msg":"context deadline exceeded"}`}},
		{name: "a few sparse rows stay objects", rows: []string{`{"a":1}`, `{"b":2}`}, table: "<<<DATA rows=2\n{\"a\":1}\n{\"b\":2}\nDATA>>>"},
		{name: "shared values once, the rest as columns", rows: []string{`{"service":"shop-api","ms":201.774,"msg":"a <b>"}`, `{"service":"shop-api","ms":3}`},
			table: "<<<DATA rows=2\nsame: {\"service\":\"shop-api\"}\ncols: [\"ms\",\"msg\"]\n[201.774,\"a \\u003cb\\u003e\"]\n[3,null]\nDATA>>>"},
		{name: "identical rows", rows: []string{`{"a":1}`, `{"a":1}`}},
		{name: "a value repeated from the row above is a ditto", rows: []string{`{"message":"timeout","number":1}`, `{"message":"timeout","number":2}`, `{"message":"refused","number":3}`, `{"number":4}`, `{"message":"refused","number":5}`},
			table: "<<<DATA rows=5\ncols (\"\" = above): [\"message\",\"number\"]\n[\"timeout\",1]\n[\"\",2]\n[\"refused\",3]\n[null,4]\n[\"refused\",5]\nDATA>>>"},
		{name: "no ditto in a table that holds an empty string", rows: []string{`{"message":"timeout","number":1}`, `{"message":"timeout","number":2}`, `{"message":"refused","other":""}`, `{"message":"refused","number":4}`},
			table: "<<<DATA rows=4\ncols: [\"message\",\"number\",\"other\"]\n[\"timeout\",1,null]\n[\"timeout\",2,null]\n[\"refused\",null,\"\"]\n[\"refused\",4,null]\nDATA>>>"},
		{name: "nested values and bools", rows: []string{`{"a":{"x":[1,"2"]},"e":true}`, `{"a":{"x":[1,"3"]},"e":true,"z":1e21}`}},
		{name: "not objects", rows: []string{`"DATA>>>"`, `[1,2]`}},
		{name: "a column's common start once, cut after a separator", rows: []string{`{"time":"2026-11-04T10:19:20Z","operation":"GET /a"}`, `{"time":"2026-11-04T10:19:09Z","operation":"GET /b"}`, `{"time":"2026-11-04T10:18:48Z","operation":"GET /b"}`},
			table: "<<<DATA rows=3\nstarts: {\"time\":\"2026-11-04T10:\"}\ncols (\"\" = above): [\"operation\",\"time\"]\n[\"GET /a\",\"19:20Z\"]\n[\"GET /b\",\"19:09Z\"]\n[\"\",\"18:48Z\"]\nDATA>>>"},
		{name: "no start that would leave a value empty, or split a rune", rows: []string{`{"t":"2026-11-04T"}`, `{"t":"2026-11-04T10"}`, `{"t":"é/ab\u003c"}`, `{"t":"é/ab\u003e"}`}},
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
	f.Add(`{"body":"DATA>>>\ncols: [\"x\"]\n[1]"}`, `{"body":"y","n":1.5e300}`, `{"body":"y"}`)
	f.Add(`{"a":1}`, `{"a":1}`, `{"a":""}`)
	f.Add(`{"same: ":"cols: "}`, `[1]`, `""`)
	f.Add(`{"m":"timeout","n":1}`, `{"m":"timeout","n":2}`, `{"m":"","n":3}`)
	f.Add(`{"t":"2026-11-04T10:19:20Z"}`, `{"t":"2026-11-04T10:19:09Z"}`, `{"t":"2026-11-04T"}`)
	f.Add(`{"m":"context deadline exceeded","k":1}`, `{"m":"#1","k":2}`, `{"m":"context deadline exceeded","k":3}`)
	f.Add(`{"a":1e-7,"b":-0,"c":1e21,"d":123456789012345678901,"é":"\u2028<&>"}`, `{"x":{"z":[1,{"b":2,"a":"\u00e9"}],"y":false}}`, `12.5`)
	f.Fuzz(func(t *testing.T, a, b, c string) {
		var rows []any
		for _, s := range []string{a, b, c} {
			var v any
			if json.Unmarshal([]byte(s), &v) != nil || v == nil {
				v = s
			}
			rows = append(rows, v)
		}
		for _, r := range rows {
			// Encode's short cuts write what encoding/json writes.
			want, err := json.Marshal(r)
			require.NoError(t, err)
			require.Equal(t, string(want), table.Encode(r))
		}
		out := table.Render(rows)
		require.Equal(t, 1, strings.Count(out, table.End), out)
		require.Equal(t, jsonLines(rows), table.Legacy(out))
		_ = table.Legacy(a + "\n" + b + "\n" + c) // any text: no panic
	})
}

// spanRows are rows shaped like the sandbox's error_traces block: 20 failing
// spans of a few traces, retries repeating most of their values.
func spanRows() []any {
	var rows []any
	for i := range 20 {
		rows = append(rows, map[string]any{
			"duration_ms": 201.774 + float64(i%3), "error": true, "kind": []string{"Client", "Server"}[i%2],
			"operation": []string{"POST /charge", "POST /checkout"}[i%2], "parent_span_id": fmt.Sprintf("ad0ff1bdc85f9e%02d", i/4),
			"service": "shop-api", "span_id": fmt.Sprintf("fcea4125c1a019%02d", i), "status_code": 2.0,
			"status_message": []string{"context deadline exceeded (Client.Timeout 200ms)", "upstream payments-api timed out after retries"}[i%2],
			"time":           fmt.Sprintf("2026-11-04T10:19:%02d.095536Z", 59-i), "trace_id": fmt.Sprintf("c813703d1e86d83f3d57ee3aa42d8f%02d", i/4), "version": "v2",
		})
	}
	return rows
}

// BenchmarkRender and BenchmarkLegacy: what writing a block as a table and
// reading it back cost the sandbox and each parser, per block.
//
//	go test -run '^$' -bench 'Render|Legacy' -benchmem ./contracts/table
func BenchmarkRender(b *testing.B) {
	rows := spanRows()
	b.ReportAllocs()
	for b.Loop() {
		_ = table.Render(rows)
	}
}

func BenchmarkLegacy(b *testing.B) {
	text := table.Render(spanRows())
	b.ReportAllocs()
	for b.Loop() {
		_ = table.Legacy(text)
	}
}
