// Package config reads the bridge's configuration from the environment, once,
// reporting every problem together.
package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"

	"agentk/services/bridge/internal/approval"
)

// ErrInvalid wraps every configuration problem.
var ErrInvalid = errors.New("config: invalid bridge configuration")

// Defaults.
const (
	DefaultAddr                = "127.0.0.1:8082"
	DefaultSlackAPIURL         = "https://slack.com/api/"
	DefaultSlackResponseURLPfx = "https://hooks.slack.com/"
	DefaultSigNozURL           = "http://localhost:8080"
	// MinTokenLen is the shortest console token accepted.
	MinTokenLen = 16
)

// Config is the bridge's configuration.
type Config struct {
	// Addr is where the Slack endpoint, console and API listen (AGENTK_BRIDGE_ADDR).
	Addr string
	// ConsoleURL is the console's public base URL for links in Slack
	// (AGENTK_CONSOLE_URL); no links when empty.
	ConsoleURL string
	// InsecureCookies drops the Secure flag from the console's cookies, for a
	// console served over plain HTTP on loopback only (AGENTK_CONSOLE_INSECURE_COOKIES=1).
	InsecureCookies bool
	// SigNozURL is the SigNoz UI base for the deep links in Slack and the
	// console (AGENTK_SIGNOZ_BASE_URL, else AGENTK_SIGNOZ_URL, else
	// DefaultSigNozURL), the same variables the sandbox links with.
	SigNozURL string

	SlackAPIURL        string
	SlackBotToken      string
	SlackSigningSecret string
	SlackChannel       string
	// SlackResponseURLPrefix: a response_url must start with it (no SSRF
	// through a payload).
	SlackResponseURLPrefix string

	Approvers approval.Approvers
}

// SlackEnabled reports whether decisions are posted to Slack.
func (c Config) SlackEnabled() bool { return c.SlackBotToken != "" }

// FromEnv reads the configuration through getenv. Secrets may also come from
// the file named by <NAME>_FILE.
func FromEnv(getenv func(string) string) (Config, error) {
	var problems []string
	bad := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	secret := func(name string) string {
		v, f := getenv(name), getenv(name+"_FILE")
		switch {
		case v != "" && f != "":
			bad("%s and %s_FILE are both set", name, name)
		case f != "":
			b, err := os.ReadFile(f)
			if err != nil {
				bad("%s_FILE: %v", name, err)
				return ""
			}
			return strings.TrimSpace(string(b))
		}
		return v
	}
	or := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}

	c := Config{
		Addr:                   or("AGENTK_BRIDGE_ADDR", DefaultAddr),
		ConsoleURL:             strings.TrimRight(getenv("AGENTK_CONSOLE_URL"), "/"),
		SlackAPIURL:            or("AGENTK_SLACK_API_URL", DefaultSlackAPIURL),
		SlackBotToken:          secret("AGENTK_SLACK_BOT_TOKEN"),
		SlackSigningSecret:     secret("AGENTK_SLACK_SIGNING_SECRET"),
		SlackChannel:           getenv("AGENTK_SLACK_CHANNEL"),
		SlackResponseURLPrefix: or("AGENTK_SLACK_RESPONSE_URL_PREFIX", DefaultSlackResponseURLPfx),
		SigNozURL:              strings.TrimRight(or("AGENTK_SIGNOZ_BASE_URL", or("AGENTK_SIGNOZ_URL", DefaultSigNozURL)), "/"),
	}
	switch v := getenv("AGENTK_CONSOLE_INSECURE_COOKIES"); v {
	case "", "0", "false":
	case "1", "true":
		c.InsecureCookies = true
	default:
		bad("AGENTK_CONSOLE_INSECURE_COOKIES: want 1 or 0, got %q", v)
	}
	if !strings.HasSuffix(c.SlackAPIURL, "/") {
		c.SlackAPIURL += "/"
	}
	for name, v := range map[string]string{"AGENTK_SLACK_API_URL": c.SlackAPIURL, "AGENTK_SLACK_RESPONSE_URL_PREFIX": c.SlackResponseURLPrefix, "AGENTK_CONSOLE_URL": c.ConsoleURL, "AGENTK_SIGNOZ_BASE_URL": c.SigNozURL} {
		if v == "" {
			continue
		}
		if u, err := url.Parse(v); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			bad("%s: not an http(s) URL: %q", name, v)
		}
	}
	if c.SlackBotToken != "" {
		if c.SlackSigningSecret == "" {
			bad("AGENTK_SLACK_SIGNING_SECRET is required when AGENTK_SLACK_BOT_TOKEN is set")
		}
		if c.SlackChannel == "" {
			bad("AGENTK_SLACK_CHANNEL is required when AGENTK_SLACK_BOT_TOKEN is set")
		}
	}

	slackIDs := parseApprovers(getenv, bad)
	tokens := parseTokens(secret("AGENTK_CONSOLE_TOKENS"), bad)
	if len(slackIDs) == 0 && len(tokens) == 0 {
		bad("no approvers: set AGENTK_APPROVERS (slack:<user id>=<name>) and/or AGENTK_CONSOLE_TOKENS (<name>=<token>)")
	}
	if len(slackIDs) > 0 && c.SlackSigningSecret == "" {
		bad("AGENTK_APPROVERS names Slack users but AGENTK_SLACK_SIGNING_SECRET is not set")
	}
	a, err := approval.NewApprovers(slackIDs, tokens)
	if err != nil {
		bad("%v", err)
	}
	c.Approvers = a
	if len(problems) > 0 {
		return Config{}, fmt.Errorf("%w:\n  %s", ErrInvalid, strings.Join(problems, "\n  "))
	}
	return c, nil
}

var (
	nameRE    = regexp.MustCompile(`^[a-z0-9][a-z0-9._@-]{0,63}$`)
	slackIDRE = regexp.MustCompile(`^[UW][A-Z0-9]{2,20}$`)
)

// entries splits a list on commas and newlines, dropping blanks and # comments.
func entries(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for _, e := range strings.Split(line, ",") {
			if e = strings.TrimSpace(e); e != "" {
				out = append(out, e)
			}
		}
	}
	return out
}

// parseApprovers reads AGENTK_APPROVERS or the file AGENTK_APPROVERS_FILE:
// entries "slack:<Slack user id>=<approver name>", comma- or line-separated.
func parseApprovers(getenv func(string) string, bad func(string, ...any)) map[string]string {
	raw, file := getenv("AGENTK_APPROVERS"), getenv("AGENTK_APPROVERS_FILE")
	if raw != "" && file != "" {
		bad("AGENTK_APPROVERS and AGENTK_APPROVERS_FILE are both set")
	}
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			bad("AGENTK_APPROVERS_FILE: %v", err)
		}
		raw = string(b)
	}
	out := map[string]string{}
	for _, e := range entries(raw) {
		id, name, ok := strings.Cut(e, "=")
		id, name = strings.TrimSpace(id), strings.TrimSpace(name)
		uid, isSlack := strings.CutPrefix(id, "slack:")
		switch {
		case !ok || !isSlack:
			bad("AGENTK_APPROVERS: %q: want slack:<user id>=<name>", e)
		case !slackIDRE.MatchString(uid):
			bad("AGENTK_APPROVERS: %q is not a Slack user id", uid)
		case !nameRE.MatchString(name):
			bad("AGENTK_APPROVERS: %q is not a valid approver name (lowercase letters, digits, . _ @ -)", name)
		case out[uid] != "":
			bad("AGENTK_APPROVERS: %s listed twice", uid)
		default:
			out[uid] = name
		}
	}
	return out
}

// parseTokens reads "<approver name>=<token>" entries. Tokens are never echoed.
func parseTokens(raw string, bad func(string, ...any)) map[string]string {
	out := map[string]string{}
	for i, e := range entries(raw) {
		name, tok, ok := strings.Cut(e, "=")
		name, tok = strings.TrimSpace(name), strings.TrimSpace(tok)
		switch {
		case !ok:
			bad("AGENTK_CONSOLE_TOKENS: entry %d: want <name>=<token>", i+1)
		case !nameRE.MatchString(name):
			bad("AGENTK_CONSOLE_TOKENS: entry %d: %q is not a valid approver name", i+1, name)
		case len(tok) < MinTokenLen:
			bad("AGENTK_CONSOLE_TOKENS: token of %s is shorter than %d characters", name, MinTokenLen)
		case out[name] != "":
			bad("AGENTK_CONSOLE_TOKENS: %s listed twice", name)
		default:
			out[name] = tok
		}
	}
	return out
}
