package httpport_test

import (
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// blockKitHTML lays out Block Kit JSON the way Slack's desktop client does,
// closely enough to look at: header, section text and two-column fields,
// buttons, context; mrkdwn bold, code and <url|label> links.
func blockKitHTML(t *testing.T, blocks json.RawMessage) string {
	t.Helper()
	var bs []map[string]any
	require.NoError(t, json.Unmarshal(blocks, &bs))
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><meta charset="utf-8"><style>
body{font:15px/1.46 Lato,system-ui,sans-serif;background:#fff;margin:0;padding:20px;color:#1d1c1d;width:760px}
.msg{display:flex;gap:10px}.avatar{width:36px;height:36px;border-radius:6px;background:#4a154b;color:#fff;display:flex;align-items:center;justify-content:center;font-weight:700}
.name{font-weight:900}.app{background:#e8e8e8;font-size:10px;padding:1px 3px;border-radius:2px;margin-left:4px;color:#616061}
.header{font-size:18px;font-weight:900;margin:6px 0}.fields{display:grid;grid-template-columns:1fr 1fr;gap:8px 16px;margin:6px 0}
.section{margin:6px 0;white-space:pre-wrap}.context{color:#616061;font-size:12px;margin:6px 0}
.actions{margin:8px 0;display:flex;flex-wrap:wrap;gap:8px}.btn{border:1px solid #bbb;border-radius:4px;padding:3px 12px;font-weight:700;font-size:13px;background:#fff}
.primary{background:#007a5a;color:#fff;border-color:#007a5a}.danger{color:#e01e5a;border-color:#e01e5a}
code{background:#f6f6f6;border:1px solid #ddd;border-radius:3px;color:#e01e5a;padding:0 3px;font-size:12px}a{color:#1264a3;text-decoration:none}
</style></head><body><div class="msg" id="message"><div class="avatar">k</div><div><span class="name">agentk</span><span class="app">APP</span>`)
	txt := func(v any) string {
		m, _ := v.(map[string]any)
		s, _ := m["text"].(string)
		return s
	}
	for _, blk := range bs {
		switch blk["type"] {
		case "header":
			b.WriteString(`<div class="header">` + html.EscapeString(txt(blk["text"])) + `</div>`)
		case "section":
			if blk["text"] != nil {
				b.WriteString(`<div class="section">` + mrkdwnHTML(txt(blk["text"])) + `</div>`)
			}
			if fs, ok := blk["fields"].([]any); ok {
				b.WriteString(`<div class="fields">`)
				for _, f := range fs {
					b.WriteString(`<div class="section">` + mrkdwnHTML(txt(f)) + `</div>`)
				}
				b.WriteString(`</div>`)
			}
		case "context":
			els, _ := blk["elements"].([]any)
			for _, e := range els {
				b.WriteString(`<div class="context">` + mrkdwnHTML(txt(e)) + `</div>`)
			}
		case "actions":
			b.WriteString(`<div class="actions">`)
			els, _ := blk["elements"].([]any)
			for _, e := range els {
				m := e.(map[string]any)
				style, _ := m["style"].(string)
				label := html.EscapeString(txt(m["text"]))
				if _, ok := m["url"].(string); ok {
					label += " ↗"
				}
				b.WriteString(`<span class="btn ` + style + `">` + label + `</span>`)
			}
			b.WriteString(`</div>`)
		}
	}
	b.WriteString(`</div></div></body></html>`)
	return b.String()
}

var (
	boldRE = regexp.MustCompile(`\*([^*\n]+)\*`)
	codeRE = regexp.MustCompile("`([^`]+)`")
	emoRE  = regexp.MustCompile(`:(white_check_mark|x):`)
)

// mrkdwnHTML renders the mrkdwn the bridge writes: a raw < > only ever
// delimits a <url|label> link the bridge made (it escapes every other one).
func mrkdwnHTML(s string) string {
	var out strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		j := strings.IndexByte(s, '>')
		if i < 0 || j < i {
			out.WriteString(inline(s))
			return out.String()
		}
		out.WriteString(inline(s[:i]))
		_, label, _ := strings.Cut(s[i+1:j], "|")
		out.WriteString(`<a href="#">` + inline(label) + `</a>`)
		s = s[j+1:]
	}
}

func inline(s string) string {
	s = html.EscapeString(html.UnescapeString(s))
	s = codeRE.ReplaceAllString(s, `<code>$1</code>`)
	s = boldRE.ReplaceAllString(s, `<b>$1</b>`)
	return emoRE.ReplaceAllStringFunc(s, func(e string) string {
		// Slack draws its own emoji; the test machine has no emoji font.
		if e == ":x:" {
			return `<b style="color:#e01e5a">✗</b>`
		}
		return `<b style="color:#007a5a">✓</b>`
	})
}
