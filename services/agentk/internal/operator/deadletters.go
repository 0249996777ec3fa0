package operator

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"agentk/cmd/agentk/internal/command"
	"agentk/platform/bus"
)

func cmdDeadLetters(ctx context.Context, c *command.Env, args []string) error {
	fs := command.NewFlags(c, "deadletters", "deadletters [--since 168h] [--limit 100] [--json]")
	since := fs.Duration("since", 7*24*time.Hour, "list dead letters stored within this long (0: all)")
	limit := fs.Int("limit", 100, "at most this many of the newest (0: all)")
	asJSON := fs.Bool("json", false, "print one JSON object per dead letter")
	adm, done, err := parseAndConnect(ctx, c, fs, args)
	if err != nil {
		return err
	}
	defer done()
	var from time.Time
	if *since > 0 {
		from = time.Now().Add(-*since)
	}
	dls, err := bus.ReadDeadLetters(ctx, adm.JetStream(), from, *limit)
	if err != nil {
		return err
	}
	return printDeadLetters(c, dls, *asJSON)
}

func printDeadLetters(c *command.Env, dls []bus.DeadLetter, asJSON bool) error {
	return printRows(c.Stdout, dls, asJSON, "no dead letters", "SEQ\tWHEN\tSUBJECT\tHANDLER\tREASON\tINCIDENT\tCORRELATION\tERROR", func(d bus.DeadLetter) string {
		return fmt.Sprintf("%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s", d.Seq, d.At.Format(time.RFC3339), printable(d.Subject, 80),
			printable(d.Handler, 40), printable(d.Reason, 20), orDash(printable(d.IncidentID, 80)), orDash(printable(d.CorrelationID, 80)), printable(d.Error, 160))
	})
}

// printable makes s safe for one terminal row: control and bidi characters
// are escaped (the error may quote hostile content), and it is cut at n.
func printable(s string, n int) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == '\t' {
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
			continue
		}
		b.WriteRune(r)
	}
	out := b.String()
	if len(out) > n {
		out = out[:n] + "…"
	}
	return out
}
