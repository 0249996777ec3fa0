package slackmsg

import (
	"strings"
	"unicode/utf8"
)

// Block Kit's limits, in characters, as Slack documents them
// (docs.slack.dev/reference/block-kit: header block, section block, button
// element, confirmation dialog object, context block). Slack refuses the
// whole message when one of them is exceeded.
const (
	MaxHeaderText    = 150
	MaxSectionText   = 3000
	MaxFieldText     = 2000
	MaxFields        = 10
	MaxButtonText    = 75
	MaxButtonValue   = 2000
	MaxButtonURL     = 3000
	MaxActionID      = 255
	MaxConfirmTitle  = 100
	MaxConfirmText   = 300
	MaxConfirmButton = 30
	MaxContextText   = 2000
	MaxContextItems  = 10
	MaxBlocks        = 50
	// MaxMessageText is the top-level text Slack truncates at 40,000; the
	// bridge keeps its notification text far shorter.
	MaxMessageText = 3000
)

func runes(s string) int { return utf8.RuneCountInString(s) }

// cut shortens plain text to at most max characters, ending in "…".
func cut(s string, max int) string {
	if runes(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// fit shortens escaped mrkdwn to at most max characters without leaving half
// an escape (&amp;) or half a <link|label> behind, ending in "…".
func fit(s string, max int) string {
	if runes(s) <= max {
		return s
	}
	r := []rune(s)
	out := string(r[:max-1])
	// An '&' with no ';' after it is half an entity: drop it.
	if i := strings.LastIndexByte(out, '&'); i >= 0 && !strings.Contains(out[i:], ";") {
		out = out[:i]
	}
	// A '<' with no '>' after it is half a link (escaped text has no raw '<').
	if i := strings.LastIndexByte(out, '<'); i >= 0 && !strings.Contains(out[i:], ">") {
		out = out[:i]
	}
	// An odd number of backticks leaves code open to the end of the text.
	if strings.Count(out, "`")%2 == 1 {
		out = out[:strings.LastIndexByte(out, '`')]
	}
	return out + "…"
}
