// Package bridgecmd holds the operator's commands that act through the
// bridge's API, as an approver with a console token: approve, deny, freeze
// and unfreeze. The bridge signs what they ask for; nothing here holds a key.
package bridgecmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"agentk/cmd/agentk/internal/command"
	"agentk/contracts"
	"agentk/services/bridge/client"
)

// Commands are this package's commands, for internal/cli to register.
func Commands() []command.Command {
	return []command.Command{
		{Name: "freeze", Summary: "freeze actions on a service (or --all) with a reason and an expiry, signed by the bridge: agentk freeze [--all] [--for 4h] --reason TEXT [service]", Run: cmdFreeze, Operator: true},
		{Name: "unfreeze", Summary: "lift a freeze, signed by the bridge: agentk unfreeze [--all] --reason TEXT [service]", Run: cmdUnfreeze, Operator: true},
		{Name: "approve", Summary: "approve a decision through the bridge API: agentk approve <decision-id>", Run: answer("approve"), Operator: true},
		{Name: "deny", Summary: "deny a decision through the bridge API: agentk deny <decision-id>", Run: answer("deny"), Operator: true},
	}
}

// answer is the command that sends verdict ("approve" or "deny").
func answer(verdict string) func(context.Context, *command.Env, []string) error {
	return func(ctx context.Context, c *command.Env, args []string) error {
		return cmdAnswer(ctx, c, verdict, args)
	}
}

// BridgeAccess is bridgeAccess, for `agentk config` to check what `approve`
// and `deny` will use.
func BridgeAccess(c *command.Env) (consoleURL, token string, err error) { return bridgeAccess(c) }

// bridgeAccess is where the bridge's API is and the approver's token:
// AGENTK_CONSOLE_URL (default http://$AGENTK_BRIDGE_ADDR) and
// AGENTK_APPROVER_TOKEN (or _FILE).
func bridgeAccess(c *command.Env) (string, string, error) {
	u := c.Getenv("AGENTK_CONSOLE_URL")
	if u == "" {
		addr := c.Getenv("AGENTK_BRIDGE_ADDR")
		if addr == "" {
			addr = "127.0.0.1:8082"
		}
		u = "http://" + addr
	}
	tok := strings.TrimSpace(c.Getenv("AGENTK_APPROVER_TOKEN"))
	if tok == "" {
		if f := c.Getenv("AGENTK_APPROVER_TOKEN_FILE"); f != "" {
			b, err := readSecretFile(f)
			if err != nil {
				return "", "", err
			}
			tok = b
		}
	}
	if tok == "" {
		return "", "", fmt.Errorf("%w: AGENTK_APPROVER_TOKEN (or _FILE) is required: the bridge signs as the token's approver", command.ErrUsage)
	}
	return strings.TrimRight(u, "/"), tok, nil
}

func freezeScope(all bool, args []string) (string, error) {
	switch {
	case all && len(args) == 0:
		return "_global", nil
	case !all && len(args) == 1:
		return args[0], nil
	}
	return "", fmt.Errorf("%w: name one service, or --all", command.ErrUsage)
}

func cmdFreeze(ctx context.Context, c *command.Env, args []string) error {
	fs := command.NewFlags(c, "freeze", "freeze [--all] [--for 4h] --reason TEXT [--json] [service]")
	all := fs.Bool("all", false, "freeze every service")
	d := fs.Duration("for", 4*time.Hour, "how long the freeze holds (1m–720h)")
	reason := fs.String("reason", "", "why (required)")
	asJSON := fs.Bool("json", false, "print the signed freeze as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	f, err := freezeCall(ctx, c, *all, fs.Args(), func(ctx context.Context, u, tok, scope string) (contracts.FreezeV1, error) {
		return client.Freeze(ctx, u, tok, scope, *reason, *d)
	})
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(c.Stdout).Encode(f)
	}
	fmt.Fprintf(c.Stdout, "frozen: %s by %s until %s (%s): %s\n", f.Scope, f.By, f.ExpiresAt.UTC().Format(time.RFC3339), f.FreezeID, f.Reason)
	return nil
}

func cmdUnfreeze(ctx context.Context, c *command.Env, args []string) error {
	fs := command.NewFlags(c, "unfreeze", "unfreeze [--all] --reason TEXT [--json] [service]")
	all := fs.Bool("all", false, "lift the freeze on every service")
	reason := fs.String("reason", "", "why (required)")
	asJSON := fs.Bool("json", false, "print the signed unfreeze as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	f, err := freezeCall(ctx, c, *all, fs.Args(), func(ctx context.Context, u, tok, scope string) (contracts.FreezeV1, error) {
		return client.Unfreeze(ctx, u, tok, scope, *reason)
	})
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(c.Stdout).Encode(f)
	}
	fmt.Fprintf(c.Stdout, "unfrozen: %s by %s (lifts %s): %s\n", f.Scope, f.By, f.Lifts, f.Reason)
	return nil
}

// freezeCall names the scope, reaches the bridge's API within the connect
// timeout and makes one freeze call there (freeze or unfreeze).
func freezeCall(ctx context.Context, c *command.Env, all bool, args []string,
	call func(ctx context.Context, u, tok, scope string) (contracts.FreezeV1, error)) (contracts.FreezeV1, error) {
	scope, err := freezeScope(all, args)
	if err != nil {
		return contracts.FreezeV1{}, err
	}
	u, tok, err := bridgeAccess(c)
	if err != nil {
		return contracts.FreezeV1{}, err
	}
	ctx, cancel, err := c.WithConnectTimeout(ctx)
	if err != nil {
		return contracts.FreezeV1{}, err
	}
	defer cancel()
	f, err := call(ctx, u, tok, scope)
	if err != nil {
		return f, bridgeFailed(ctx, u, c, err)
	}
	return f, nil
}

func cmdAnswer(ctx context.Context, c *command.Env, answer string, args []string) error {
	fs := command.NewFlags(c, answer, answer+" [--json] [--confirm-resolved <RFC 3339 time>] <decision-id>")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	confirm := fs.String("confirm-resolved", "", "approve although the alert resolved at this time (as the refusal and `agentk incidents` show it)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("%w: want one decision id", command.ErrUsage)
	}
	u, tok, err := bridgeAccess(c)
	if err != nil {
		return err
	}
	var seen time.Time
	if *confirm != "" {
		if seen, err = time.Parse(time.RFC3339, *confirm); err != nil {
			return fmt.Errorf("%w: --confirm-resolved: not an RFC 3339 time: %v", command.ErrUsage, err)
		}
	}
	ctx, cancel, err := c.WithConnectTimeout(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	r, err := client.AnswerAfterResolve(ctx, u, tok, fs.Arg(0), answer, seen)
	if err != nil {
		return bridgeFailed(ctx, u, c, err)
	}
	if *asJSON {
		return json.NewEncoder(c.Stdout).Encode(r)
	}
	fmt.Fprintf(c.Stdout, "%s: %s by %s, signed (approval %s)\n", r.DecisionID, r.Answer, r.Approver, r.ApprovalID)
	return nil
}

func readSecretFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%w: AGENTK_APPROVER_TOKEN_FILE: %v", command.ErrUsage, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// bridgeFailed names the bridge that did not answer within the connect
// timeout; other errors (a refusal, a bad token) pass unchanged.
func bridgeFailed(ctx context.Context, u string, c *command.Env, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: the bridge at %s did not answer within %s (--connect-timeout, AGENTK_CONNECT_TIMEOUT): %w", command.ErrNoPipeline, u, c.Timeout(), err)
	}
	return err
}
