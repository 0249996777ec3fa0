package operator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"agentk/cmd/agentk/internal/chain"
	"agentk/cmd/agentk/internal/command"
	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/topology"

	"github.com/nats-io/nats.go/jetstream"
)

// shadowDefaultLookback is --since's default.
const shadowDefaultLookback = 720 * time.Hour

// activeFreezes reads the latest value of every freeze scope and keeps those
// holding at now; a value that does not verify as bridge-signed is listed
// with its problem, since the gate and the deployer count it as frozen.
func activeFreezes(ctx context.Context, adm *bus.Conn, kr *envelope.Keyring, now time.Time) ([]chain.Freeze, error) {
	kv, err := adm.KeyValue(ctx, topology.BucketFreezes)
	if err != nil {
		return nil, err
	}
	keys, err := kv.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return []chain.Freeze{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := []chain.Freeze{}
	for _, k := range keys {
		e, err := kv.Get(ctx, k)
		if err != nil {
			continue // deleted meanwhile
		}
		var f contracts.FreezeV1
		env, err := envelope.Parse(e.Value())
		if err == nil {
			err = kr.VerifyProduced(env, contracts.SubjectFreeze, env.Issued())
		}
		if err == nil {
			err = json.Unmarshal(env.Payload, &f)
		}
		if err != nil {
			out = append(out, chain.Freeze{Scope: k, Problem: "does not verify as bridge-signed (counts as frozen): " + err.Error()})
			continue
		}
		if f.HoldsAt(now) {
			out = append(out, chain.Freeze{Scope: f.Scope, By: f.By, Reason: f.Reason, At: f.At, ExpiresAt: f.ExpiresAt, FreezeID: f.FreezeID})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Scope < out[j].Scope })
	return out, nil
}

// readShadowData reads every stored message of the pipeline's streams and
// the active freezes through one admin connection.
func readShadowData(ctx context.Context, c *command.Env, now time.Time) (*envelope.Keyring, []chain.Msg, []chain.Freeze, error) {
	adm, kr, done, err := operatorAdmin(ctx, c)
	if err != nil {
		return nil, nil, nil, err
	}
	defer done()
	msgs, err := storedMessages(ctx, adm.JetStream())
	if err != nil {
		return nil, nil, nil, err
	}
	fz, err := activeFreezes(ctx, adm, kr, now)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("freezes: %w", err)
	}
	return kr, msgs, fz, nil
}

func cmdShadowReport(ctx context.Context, c *command.Env, args []string) error {
	fs := command.NewFlags(c, "shadow-report", "shadow-report [--json] [--since 720h] [--service S]")
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	since := fs.Duration("since", shadowDefaultLookback, "shadow decisions made within this long")
	svc := fs.String("service", "", "only this service's decisions")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 || *since <= 0 {
		fs.Usage()
		return fmt.Errorf("%w: no arguments; --since must be positive", command.ErrUsage)
	}
	now := time.Now().UTC()
	kr, msgs, freezes, err := readShadowData(ctx, c, now)
	if err != nil {
		return err
	}
	sum := chain.Shadow(kr, msgs, now.Add(-*since), *svc)
	sum.Freezes = freezes
	if *asJSON {
		enc := json.NewEncoder(c.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	return printShadow(c.Stdout, sum)
}

func printShadow(w io.Writer, s chain.Summary) error {
	scope := "every service"
	if s.Service != "" {
		scope = s.Service
	}
	fmt.Fprintf(w, "shadow decisions since %s (%s)\n", s.Since.Format(time.RFC3339), scope)
	if len(s.Freezes) > 0 {
		fmt.Fprintln(w, "active freezes:")
		for _, f := range s.Freezes {
			if f.Problem != "" {
				fmt.Fprintf(w, "  %s: %s\n", f.Scope, f.Problem)
				continue
			}
			fmt.Fprintf(w, "  %s by %s until %s: %s\n", f.Scope, f.By, f.ExpiresAt.UTC().Format(time.RFC3339), f.Reason)
		}
	}
	if s.Unverified > 0 {
		fmt.Fprintf(w, "WARNING: %d stored messages did not verify and were left out (run agentk audit on their incidents)\n", s.Unverified)
	}
	if len(s.Rows) == 0 {
		fmt.Fprintln(w, "no shadow decisions (set AGENTK_SHADOW on the gate and the deployer)")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DECIDED\tINCIDENT\tSERVICE\tGATE\tHUMAN\tDEPLOYER\tAGREEMENT")
	for _, r := range s.Rows {
		gate := r.Verdict
		if len(r.FailedChecks) > 0 {
			gate += " (" + strings.Join(r.FailedChecks, ",") + ")"
		}
		human := r.Human
		if r.Approver != "" {
			human += " by " + r.Approver
		}
		dep := r.Outcome
		if dep == chain.DeployerNotRecorded {
			dep = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.DecidedAt.UTC().Format(time.RFC3339), r.IncidentID, r.Service, gate, human, dep, r.Agreement)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range s.Rows {
		switch {
		case len(r.Command) > 0:
			fmt.Fprintf(w, "%s would have run: %s\n", r.IncidentID, strings.Join(r.Command, " "))
			fmt.Fprintf(w, "%s   from %s to %s\n", strings.Repeat(" ", len(r.IncidentID)), orDash(r.FromImage), orDash(r.ToImage))
		case r.Outcome == contracts.OutcomeRefused || r.Outcome == contracts.OutcomeFailed:
			fmt.Fprintf(w, "%s deployer %s: %s\n", r.IncidentID, r.Outcome, r.Reason)
		}
	}
	t := s.Totals
	fmt.Fprintf(w, "\n%d shadow decisions: gate allowed %d, denied %d; humans approved %d, denied %d; %d allowed awaiting an answer\n",
		t.Decisions, t.GateAllowed, t.GateDenied, t.HumanApproved, t.HumanDenied, t.AwaitingAnswer)
	if t.Judged > 0 {
		fmt.Fprintf(w, "agreement: %d of %d judged (%.1f%%): gate allow & human approve %d, gate deny & nobody approved %d\n",
			t.Agreed, t.Judged, 100*t.AgreementRate, t.AgreedAllow, t.AgreedDeny)
	} else {
		fmt.Fprintln(w, "agreement: nothing judged yet")
	}
	fmt.Fprintf(w, "gate allowed but human denied: %d; gate denied: %d", t.GateAllowedHumanDenied, t.GateDenied)
	if t.GateDeniedApproved > 0 {
		fmt.Fprintf(w, " (%d approved anyway: investigate)", t.GateDeniedApproved)
	}
	fmt.Fprintf(w, "\nthe deployer planned %d rollbacks (outcome shadow)", t.WouldHaveRun)
	if t.Acted > 0 {
		fmt.Fprintf(w, "; WARNING: it acted on %d shadow decisions, which must never happen: run agentk audit on them", t.Acted)
	}
	fmt.Fprintln(w)
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
