// Package config reads the bridge's configuration from the environment, once,
// reporting every problem together.
package config

import (
	"errors"
	"regexp"
	"strings"

	"agentk/platform/config"
	"agentk/services/bridge/internal/approval"
)

// ErrInvalid wraps every configuration problem.
var ErrInvalid = errors.New("bridge: invalid configuration")

// Defaults.
const (
	DefaultAddr                = "127.0.0.1:8082"
	DefaultSlackAPIURL         = "https://slack.com/api/"
	DefaultSlackResponseURLPfx = "https://hooks.slack.com/"
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
	// config.DefaultSigNozURL), the same variables the sandbox links with.
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

// Environment variables.
const (
	EnvAddr              = "AGENTK_BRIDGE_ADDR"
	EnvConsoleURL        = "AGENTK_CONSOLE_URL"
	EnvInsecureCookies   = "AGENTK_CONSOLE_INSECURE_COOKIES"
	EnvSlackAPIURL       = "AGENTK_SLACK_API_URL"
	EnvSlackBotToken     = "AGENTK_SLACK_BOT_TOKEN"
	EnvSlackSigning      = "AGENTK_SLACK_SIGNING_SECRET"
	EnvSlackChannel      = "AGENTK_SLACK_CHANNEL"
	EnvSlackResponsePfx  = "AGENTK_SLACK_RESPONSE_URL_PREFIX"
	EnvApprovers         = "AGENTK_APPROVERS"
	EnvConsoleTokens     = "AGENTK_CONSOLE_TOKENS"
	EnvSigNozLinkBaseURL = config.EnvSigNozBaseURL
)

// Spec declares every variable the bridge reads.
var Spec = config.Spec{Component: "bridge", Err: ErrInvalid, Vars: []config.Decl{
	{Name: EnvAddr, Default: DefaultAddr, Doc: "listen address"},
	{Name: EnvConsoleURL, Kind: config.KindURL, Doc: "public console base URL, for links in Slack"},
	{Name: EnvSigNozLinkBaseURL, DocDefault: "`AGENTK_SIGNOZ_URL`, then `http://localhost:8080`", Doc: "SigNoz UI base for the deep links in Slack and the console"},
	{Name: EnvInsecureCookies, Kind: config.KindBool, Default: "0", Doc: "`1` drops `Secure` from the session cookie (plain HTTP on loopback only)"},
	{Name: EnvSlackAPIURL, Kind: config.KindURL, Default: DefaultSlackAPIURL, Doc: "Slack Web API base (tests: `fakeslack`)"},
	{Name: EnvSlackBotToken, Secret: true, Doc: "bot token; Slack is off without it"},
	{Name: EnvSlackSigning, Secret: true, Doc: "required with the bot token or with Slack approvers"},
	{Name: EnvSlackChannel, Doc: "channel id to post to; required with the bot token"},
	{Name: EnvSlackResponsePfx, Kind: config.KindURL, Default: DefaultSlackResponseURLPfx, Doc: "a `response_url` must start with it"},
	{Name: EnvApprovers, Secret: true, Doc: "Slack approvers (who may approve: never shown): `slack:<user id>=<name>`, comma- or line-separated, `#` comments"},
	{Name: EnvConsoleTokens, Secret: true, Doc: "console/CLI tokens: `<name>=<token>` (≥ 16 chars), same list syntax"},
}}

// FromEnv reads the configuration through getenv. Secrets may also come from
// the file named by <NAME>_FILE.
func FromEnv(getenv func(string) string) (Config, error) {
	v := Spec.Read(getenv)
	c := Config{
		Addr:                   v.String(EnvAddr),
		ConsoleURL:             strings.TrimRight(v.String(EnvConsoleURL), "/"),
		InsecureCookies:        v.Bool(EnvInsecureCookies),
		SlackAPIURL:            v.String(EnvSlackAPIURL),
		SlackBotToken:          v.String(EnvSlackBotToken),
		SlackSigningSecret:     v.String(EnvSlackSigning),
		SlackChannel:           v.String(EnvSlackChannel),
		SlackResponseURLPrefix: v.String(EnvSlackResponsePfx),
	}
	if !strings.HasSuffix(c.SlackAPIURL, "/") {
		c.SlackAPIURL += "/"
	}
	// The one link base the sandbox builds its links under.
	if base, name, err := config.SigNozLinkBase(getenv); err != nil {
		v.Failf(name, "%s", strings.TrimPrefix(err.Error(), config.ErrInvalid.Error()+": "))
	} else {
		c.SigNozURL = base
	}
	if c.SlackBotToken != "" {
		if c.SlackSigningSecret == "" {
			v.Problem("%s is required when %s is set", EnvSlackSigning, EnvSlackBotToken)
		}
		if c.SlackChannel == "" {
			v.Problem("%s is required when %s is set", EnvSlackChannel, EnvSlackBotToken)
		}
	}
	slackIDs := parseApprovers(v.String(EnvApprovers), v.Failf)
	tokens := parseTokens(v.String(EnvConsoleTokens), v.Failf)
	if len(slackIDs) == 0 && len(tokens) == 0 {
		v.Problem("no approvers: set %s (slack:<user id>=<name>) and/or %s (<name>=<token>)", EnvApprovers, EnvConsoleTokens)
	}
	if len(slackIDs) > 0 && c.SlackSigningSecret == "" {
		v.Failf(EnvApprovers, "names Slack users but %s is not set", EnvSlackSigning)
	}
	a, err := approval.NewApprovers(slackIDs, tokens)
	if err != nil {
		v.Problem("%v", err)
	}
	c.Approvers = a
	if err := v.Err(); err != nil {
		return Config{}, err
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

// parseApprovers reads AGENTK_APPROVERS (or its file): entries
// "slack:<Slack user id>=<approver name>", comma- or line-separated.
func parseApprovers(raw string, bad func(name, format string, a ...any)) map[string]string {
	out := map[string]string{}
	for _, e := range entries(raw) {
		id, name, ok := strings.Cut(e, "=")
		id, name = strings.TrimSpace(id), strings.TrimSpace(name)
		uid, isSlack := strings.CutPrefix(id, "slack:")
		switch {
		case !ok || !isSlack:
			bad(EnvApprovers, "%q: want slack:<user id>=<name>", e)
		case !slackIDRE.MatchString(uid):
			bad(EnvApprovers, "%q is not a Slack user id", uid)
		case !nameRE.MatchString(name):
			bad(EnvApprovers, "%q is not a valid approver name (lowercase letters, digits, . _ @ -)", name)
		case out[uid] != "":
			bad(EnvApprovers, "%s listed twice", uid)
		default:
			out[uid] = name
		}
	}
	return out
}

// parseTokens reads "<approver name>=<token>" entries. Tokens are never echoed.
func parseTokens(raw string, bad func(name, format string, a ...any)) map[string]string {
	out := map[string]string{}
	for i, e := range entries(raw) {
		name, tok, ok := strings.Cut(e, "=")
		name, tok = strings.TrimSpace(name), strings.TrimSpace(tok)
		switch {
		case !ok:
			bad(EnvConsoleTokens, "entry %d: want <name>=<token>", i+1)
		case !nameRE.MatchString(name):
			bad(EnvConsoleTokens, "entry %d: %q is not a valid approver name", i+1, name)
		case len(tok) < MinTokenLen:
			bad(EnvConsoleTokens, "token of %s is shorter than %d characters", name, MinTokenLen)
		case out[name] != "":
			bad(EnvConsoleTokens, "%s listed twice", name)
		default:
			out[name] = tok
		}
	}
	return out
}
