package operator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"agentk/cmd/agentk/internal/chain"
	"agentk/cmd/agentk/internal/command"
	"agentk/contracts/envelope"
	"agentk/platform/topology"

	"github.com/nats-io/nats.go/jetstream"
)

// errAuditBroken is returned (exit 1) when any link of the chain fails.
var errAuditBroken = errors.New("audit: chain broken")

func printAudit(w io.Writer, r chain.Report) {
	fmt.Fprintf(w, "audit of %s\n", r.Incident)
	for _, l := range r.Links {
		mark := "ok    "
		if !l.OK {
			mark = "BROKEN"
		}
		fmt.Fprintf(w, "  %s %-9s %s  %-28s %s", mark, l.Link, l.When.UTC().Format(time.RFC3339), l.Who, l.What)
		if l.ID != "" {
			fmt.Fprintf(w, "  [%s]", l.ID)
		}
		if l.Digest != "" {
			fmt.Fprintf(w, " sha256 %s", chain.Short(l.Digest))
		}
		fmt.Fprintln(w)
		if l.Problem != "" {
			fmt.Fprintf(w, "         ↳ %s\n", l.Problem)
		}
	}
	if r.OK {
		fmt.Fprintln(w, "chain verified: every signature and hash binding holds")
	} else {
		fmt.Fprintln(w, "CHAIN BROKEN: see the links marked BROKEN")
	}
}

// readStreams returns every message of the audited streams, as stored.
func readStreams(ctx context.Context, c *command.Env) (*envelope.Keyring, []chain.Msg, func(), error) {
	adm, kr, done, err := operatorAdmin(ctx, c)
	if err != nil {
		return nil, nil, nil, err
	}
	out, err := storedMessages(ctx, adm.JetStream())
	if err != nil {
		done()
		return nil, nil, nil, err
	}
	return kr, out, done, nil
}

// storedMessages returns every message still stored in the pipeline's
// streams, in stream and sequence order. A gap (expired by max age) is skipped.
func storedMessages(ctx context.Context, js jetstream.JetStream) ([]chain.Msg, error) {
	var out []chain.Msg
	for _, s := range topology.Streams {
		st, err := js.Stream(ctx, s.Name)
		if err != nil {
			return nil, fmt.Errorf("stream %s: %w", s.Name, err)
		}
		info, err := st.Info(ctx)
		if err != nil {
			return nil, err
		}
		for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
			m, err := st.GetMsg(ctx, seq)
			if err != nil {
				continue
			}
			out = append(out, chain.Msg{Subject: m.Subject, Seq: seq, Data: bytes.Clone(m.Data)})
		}
	}
	return out, nil
}

func cmdAudit(ctx context.Context, c *command.Env, args []string) error {
	fs := command.NewFlags(c, "audit", "audit [--json] <incident-id>")
	asJSON := fs.Bool("json", false, "print the chain as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("%w: want one incident id", command.ErrUsage)
	}
	kr, msgs, done, err := readStreams(ctx, c)
	if err != nil {
		return err
	}
	defer done()
	rep := chain.Audit(kr, fs.Arg(0), msgs)
	if rep.Unknown() {
		return fmt.Errorf("%w %s (agentk incidents lists them)", errNoSuchIncident, fs.Arg(0))
	}
	if *asJSON {
		_ = json.NewEncoder(c.Stdout).Encode(rep)
	} else {
		printAudit(c.Stdout, rep)
	}
	if !rep.OK {
		return errAuditBroken
	}
	return nil
}
