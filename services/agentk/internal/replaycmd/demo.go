package replaycmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"agentk/cmd/agentk/internal/command"
	"agentk/cmd/agentk/internal/livedemo"
	"agentk/cmd/agentk/replay"
)

// demoIncidents are the two the tour replays: one a rollback can fix, one it cannot.
var demoIncidents = []struct{ id, why string }{
	{"retry-storm-01", "a deployment-class incident: a release shortened a timeout and retries exploded"},
	{"db-pool-exhaustion-01", "a runtime incident: the database pool ran dry; no release is to blame"},
}

// findCorpus looks for e2e/incidents in the working directory and its parents.
func findCorpus() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "e2e", "incidents")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no e2e/incidents folder here or above; run from the repository or pass --corpus")
		}
		dir = parent
	}
}

func cmdDemo(ctx context.Context, c *command.Env, args []string) error {
	fs := command.NewFlags(c, "demo", "demo [--interactive] [--corpus DIR] | demo --live [--two-services] [--interactive] [--keep]")
	interactive := fs.Bool("interactive", false, "ask you, instead of the auto-approver, to approve each allowed rollback")
	corpus := fs.String("corpus", "", "the incident corpus (default: e2e/incidents found from the working directory)")
	verbose := fs.Bool("v", false, "print the services' logs to stderr")
	live := fs.Bool("live", false, "the live demo on Docker: the demo target on compose, a bad release, a real rollback (make demo-live)")
	keep := fs.Bool("keep", false, "with --live: leave the compose project running at the end")
	two := fs.Bool("two-services", false, "with --live: shop-api calls payment; payment's release breaks shop-api's SLO and payment is rolled back (issue 33)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *two && !*live {
		return errors.New("--two-services is a scenario of the live demo: run demo --live --two-services")
	}
	if *live {
		in := bufio.NewReader(c.Stdin)
		var ask func(string) bool
		if *interactive {
			ask = func(q string) bool {
				fmt.Fprintf(c.Stdout, "  ? %s [y/N] ", q)
				line, _ := in.ReadString('\n')
				return strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "y")
			}
		}
		return cmdDemoLive(ctx, c, livedemo.Options{Build: true, Keep: *keep, TwoServices: *two, Interactive: ask, Progress: c.Stdout, Logger: c.Logger(*verbose)})
	}
	if *corpus == "" {
		var err error
		if *corpus, err = findCorpus(); err != nil {
			return err
		}
	}
	fmt.Fprintln(c.Stdout, "agentk demo — embedded NATS, the offline rules investigator, a fake SigNoz serving recorded telemetry, a dry-run deployer.")
	if !*interactive {
		fmt.Fprintln(c.Stdout, "Approvals come from an AUTO-APPROVER that clicks Approve in a local fake Slack (run with --interactive to answer yourself).")
	}
	in := bufio.NewReader(c.Stdin)
	for i, d := range demoIncidents {
		fmt.Fprintf(c.Stdout, "\n[%d/%d] %s\n      %s\n", i+1, len(demoIncidents), d.id, d.why)
		o := replay.Options{Investigator: "rules", Progress: c.Stdout, Logger: c.Logger(*verbose), Timeout: 90 * time.Second}
		if *interactive {
			o.Interactive = func(q string) bool {
				fmt.Fprintf(c.Stdout, "  ? %s [y/N] ", q)
				line, _ := in.ReadString('\n')
				return strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "y")
			}
		}
		res, err := replay.Run(ctx, filepath.Join(*corpus, d.id), o)
		if err != nil {
			return err
		}
		printResult(c, res)
	}
	fmt.Fprintln(c.Stdout, "\nNext: `agentk replay <dir>` on any folder of e2e/incidents, `make eval` for the scoreboard, docs/signoz.md to wire a real SigNoz.")
	return nil
}

func cmdDemoLive(ctx context.Context, c *command.Env, o livedemo.Options) error {
	fmt.Fprintln(c.Stdout, "agentk demo --live — the demo target on Docker Compose, a bad release, the alert, a real rollback, recovery verified.")
	fmt.Fprintln(c.Stdout, "Every agentk service runs in this process over an embedded NATS; the deployer's runtime is docker: it runs")
	fmt.Fprintln(c.Stdout, "`docker-compose up -d --force-recreate` itself. Telemetry goes to a LOCAL STAND-IN FOR SIGNOZ, fed by the demo")
	fmt.Fprintln(c.Stdout, "target's real OTLP; the demo computes the alert itself (there is no SigNoz rule engine here).")
	if o.TwoServices {
		fmt.Fprintln(c.Stdout, "Two services: shop-api calls payment; payment ships the bad release, the alert fires on shop-api, and the gate")
		fmt.Fprintln(c.Stdout, "must deny shop-api's rollback and offer payment's as a derived decision (DESIGN.md rule 17).")
	}
	if o.Interactive == nil {
		fmt.Fprintln(c.Stdout, "Approvals come from an AUTO-APPROVER that clicks Approve in a local fake Slack (run with --interactive to answer yourself).")
	}
	fmt.Fprintln(c.Stdout)
	res, err := livedemo.Run(ctx, o)
	if err != nil {
		return err
	}
	recovered := "unknown"
	if res.Action.Recovered != nil {
		recovered = fmt.Sprint(*res.Action.Recovered)
	}
	if o.TwoServices {
		fmt.Fprintf(c.Stdout, "\nThe gate: %s %s (decision %s); derived decision about %s: %s.\n", livedemo.Service,
			res.AlertedDecision.Verdict, res.AlertedDecision.DecisionID, res.Decision.Service, res.Decision.Verdict)
		state := "untouched"
		if res.CallerBefore != res.CallerAfter {
			state = "CHANGED (container " + clipID(res.CallerBefore.ID) + " before the alert)"
		}
		fmt.Fprintf(c.Stdout, "%s %s: container %s on %s at the end. Recovered is %s's SLO.\n", livedemo.Service, state,
			clipID(res.CallerAfter.ID), livedemo.ShortID(res.CallerAfter.ImageID), livedemo.Service)
	}
	fmt.Fprintf(c.Stdout, "\nResult: %s rolled back %s → %s; the container now runs %s (%s); recovered: %s.\n",
		res.Released, res.Action.FromImage, res.Action.ToImage, livedemo.ShortID(res.FinalImage), res.FinalVersion, recovered)
	fmt.Fprintf(c.Stdout, "Figures: alert → gate decision %s; alert → container on v1 %s; alert → verified recovery %s (of which %s is the stabilisation window);\n",
		secs(res.DecisionAt.Sub(res.AlertAt)), secs(res.ContainerOnV1At.Sub(res.AlertAt)), secs(res.ActionAt.Sub(res.AlertAt)), secs(res.Stabilise))
	fmt.Fprintf(c.Stdout, "         approval → container verified %d ms (compose %d ms, Docker verification %d ms); %d live spans received, %d backfilled; load %d sent, %d answered 2xx.\n",
		res.Action.TotalMs, res.Action.ActionMs, res.Action.VerifyMs, res.LiveSpans, res.BackfilledSpans, res.LoadSent, res.LoadOK)
	return nil
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

func clipID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
