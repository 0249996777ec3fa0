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

	"agentk/cmd/agentk/internal/command"
	"agentk/platform/bus"
	"agentk/platform/report"
	"agentk/platform/topology"

	"github.com/nats-io/nats.go/jetstream"
)

// readReport fetches and builds the stored report of one incident.
func readReport(ctx context.Context, kv jetstream.KeyValue, id string) (report.Report, error) {
	e, err := kv.Get(ctx, id)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return report.Report{}, fmt.Errorf("no report for incident %q (agentk incidents lists them)", id)
	}
	if err != nil {
		return report.Report{}, err
	}
	return report.Decode(e.Value())
}

func cmdReport(ctx context.Context, c *command.Env, args []string) error {
	fs := command.NewFlags(c, "report", "report [--html|--json] <incident-id>")
	asHTML := fs.Bool("html", false, "print the HTML page (what the bridge's console shows)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("%w: want one incident id", command.ErrUsage)
	}
	adm, _, done, err := operatorAdmin(ctx, c)
	if err != nil {
		return err
	}
	defer done()
	kv, err := adm.KeyValue(ctx, topology.BucketReports)
	if err != nil {
		return err
	}
	r, err := readReport(ctx, kv, fs.Arg(0))
	if err != nil {
		return err
	}
	switch {
	case *asJSON:
		enc := json.NewEncoder(c.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case *asHTML:
		fmt.Fprint(c.Stdout, report.HTML(r))
	default:
		fmt.Fprint(c.Stdout, report.Markdown(r))
	}
	return nil
}

// incidentRow is one line of `agentk incidents`: the ingester's index entry
// (its JSON, read field by field) and the stored report's status.
type incidentRow struct {
	IncidentID string    `json:"incident_id"`
	Service    string    `json:"service"`
	RuleID     string    `json:"rule_id"`
	State      string    `json:"state"`
	OpenedAt   time.Time `json:"opened_at"`
	ResolvedAt time.Time `json:"resolved_at,omitzero"`
	Status     string    `json:"status,omitempty"`
	Banner     string    `json:"banner,omitempty"`
}

func cmdIncidents(ctx context.Context, c *command.Env, args []string) error {
	fs := command.NewFlags(c, "incidents", "incidents [--since 168h] [--json]")
	since := fs.Duration("since", 7*24*time.Hour, "also list closed incidents opened within this long")
	asJSON := fs.Bool("json", false, "print one JSON object per incident")
	adm, done, err := parseAndConnect(ctx, c, fs, args)
	if err != nil {
		return err
	}
	defer done()
	rows, err := listIncidents(ctx, adm, time.Now().Add(-*since))
	if err != nil {
		return err
	}
	// A stopped service is why incidents wait: say so above the list
	// (on stderr with --json, so the JSON stays clean).
	if *asJSON {
		ReportServiceHealth(ctx, c, c.Stderr)
		enc := json.NewEncoder(c.Stdout)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	ReportServiceHealth(ctx, c, c.Stdout)
	return printIncidents(c.Stdout, rows)
}

// listIncidents reads the incident index, newest first: every open incident
// and the closed ones opened since cutoff, each with its report's status.
func listIncidents(ctx context.Context, adm *bus.Conn, cutoff time.Time) ([]incidentRow, error) {
	ikv, err := adm.KeyValue(ctx, topology.BucketIncidents)
	if err != nil {
		return nil, err
	}
	rkv, err := adm.KeyValue(ctx, topology.BucketReports)
	if err != nil {
		return nil, err
	}
	keys, err := ikv.Keys(ctx)
	if err != nil && !errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, err
	}
	var rows []incidentRow
	for _, k := range keys {
		e, err := ikv.Get(ctx, k)
		if err != nil {
			continue // deleted meanwhile
		}
		var row incidentRow
		if err := json.Unmarshal(e.Value(), &row); err != nil || row.IncidentID == "" {
			continue // an index entry of another kind
		}
		open := row.ResolvedAt.IsZero()
		if !open && row.OpenedAt.Before(cutoff) {
			continue
		}
		if r, err := readReport(ctx, rkv, row.IncidentID); err == nil {
			row.Status, row.Banner = string(r.Status), r.Banner
		}
		rows = append(rows, row)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].OpenedAt.After(rows[j].OpenedAt) })
	return rows, nil
}

// printIncidents prints the incidents as a table.
func printIncidents(w io.Writer, rows []incidentRow) error {
	if len(rows) == 0 {
		fmt.Fprintln(w, "no incidents")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "INCIDENT\tSERVICE\tSTATE\tOPENED\tSTATUS")
	for _, r := range rows {
		status := r.Banner
		if status == "" {
			status = stateStatus(r.State)
		}
		state := r.State
		if !r.ResolvedAt.IsZero() {
			// An approval given now must re-confirm after this resolve
			// (the deployer refuses one that does not).
			state = "alert resolved " + r.ResolvedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", printable(r.IncidentID, 80), printable(r.Service, 80), state, r.OpenedAt.UTC().Format(time.RFC3339), printable(strings.TrimSpace(status), 200))
	}
	return tw.Flush()
}

// stateStatus says in words what an incident without a report is doing, by
// its index state (docs/lifecycle.md).
func stateStatus(state string) string {
	switch state {
	case "queued":
		return "queued: waiting for an investigation slot"
	case "pending":
		return "opening"
	case "no_data":
		return "no data: listed, not investigated"
	case "resolved":
		return "resolved"
	case "decided":
		return "decided"
	default:
		return "investigating"
	}
}
