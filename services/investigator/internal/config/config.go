// Package config reads the investigator's environment once, reporting every
// problem at once. Secrets may come from a file named by the variable's _FILE
// twin.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"agentk/services/investigator/internal/llm"
	"agentk/services/investigator/internal/loop"
	"agentk/services/investigator/internal/plan"
	"agentk/services/investigator/internal/rules"
)

// ErrInvalid is wrapped by every configuration error FromEnv returns.
var ErrInvalid = errors.New("config: invalid")

// Investigator kinds.
const (
	KindRules = "rules"
	KindLLM   = "llm"
)

// Config is the investigator's configuration.
type Config struct {
	// Kind is KindRules or KindLLM.
	Kind string
	// Persona, when set, names the scripted persona behind the endpoint
	// (eval harness); reports then say persona:<name>.
	Persona  string
	Provider string
	BaseURL  string
	Model    string
	// APIKey is secret: LogValue never shows it.
	APIKey     string
	LLMTimeout time.Duration
	// LLMRetryBackoff is the first wait between retried model requests.
	LLMRetryBackoff time.Duration
	Budget          loop.Budget
	// Parallel caps concurrent investigations.
	Parallel int
}

// InvestigatorName is what reports carry in Investigator.
func (c Config) InvestigatorName() string {
	switch {
	case c.Kind == KindRules:
		return rules.Name
	case c.Persona != "":
		return "persona:" + c.Persona
	default:
		return KindLLM
	}
}

// LogValue shows the configuration without the key.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("investigator", c.InvestigatorName()), slog.String("provider", c.Provider),
		slog.String("base_url", c.BaseURL), slog.String("model", c.Model), slog.Bool("api_key_set", c.APIKey != ""),
		slog.Int("max_tokens", c.Budget.MaxTokens), slog.Int("max_iterations", c.Budget.MaxIterations),
		slog.Duration("timeout", c.Budget.WallTime), slog.Int("parallel", c.Parallel))
}

// Defaults.
const (
	DefaultLLMTimeout = 60 * time.Second
	DefaultParallel   = 2
)

// FromEnv reads the configuration from getenv.
func FromEnv(getenv func(string) string) (Config, error) {
	var errs []error
	bad := func(name, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%w: %s: %s", ErrInvalid, name, fmt.Sprintf(format, a...)))
	}
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	b := loop.DefaultBudget()
	c := Config{Budget: b, LLMTimeout: DefaultLLMTimeout, Parallel: DefaultParallel}

	c.Provider = get("AGENTK_LLM_PROVIDER")
	if c.Provider == "" {
		c.Provider = llm.Groq
	}
	p, ok := llm.LookupProvider(c.Provider)
	if !ok {
		bad("AGENTK_LLM_PROVIDER", "unknown provider %q", c.Provider)
	}
	c.BaseURL = firstOf(get("AGENTK_LLM_BASE_URL"), p.BaseURL)
	c.Model = firstOf(get("AGENTK_LLM_MODEL"), p.Model)
	key, err := secret(getenv, "AGENTK_LLM_API_KEY")
	if err != nil {
		errs = append(errs, err)
	}
	c.APIKey = key
	c.Persona = get("AGENTK_LLM_PERSONA")

	c.Kind = get("AGENTK_INVESTIGATOR")
	switch c.Kind {
	case "":
		c.Kind = KindRules
		if c.APIKey != "" || get("AGENTK_LLM_BASE_URL") != "" {
			c.Kind = KindLLM
		}
	case KindRules, KindLLM:
	default:
		bad("AGENTK_INVESTIGATOR", "%q is neither rules nor llm", c.Kind)
	}
	if c.Kind == KindLLM && ok {
		if c.BaseURL == "" {
			bad("AGENTK_LLM_BASE_URL", "required with provider %s", c.Provider)
		} else if !strings.HasPrefix(c.BaseURL, "http://") && !strings.HasPrefix(c.BaseURL, "https://") {
			bad("AGENTK_LLM_BASE_URL", "%q is not an http(s) URL", c.BaseURL)
		}
		if c.Model == "" {
			bad("AGENTK_LLM_MODEL", "required with provider %s", c.Provider)
		}
		if p.NeedsKey && c.APIKey == "" {
			bad("AGENTK_LLM_API_KEY", "provider %s needs a key (or AGENTK_LLM_API_KEY_FILE)", c.Provider)
		}
	}

	duration(get, bad, "AGENTK_LLM_TIMEOUT", &c.LLMTimeout)
	duration(get, bad, "AGENTK_LLM_RETRY_BACKOFF", &c.LLMRetryBackoff)
	duration(get, bad, "AGENTK_INVESTIGATION_TIMEOUT", &c.Budget.WallTime)
	integer(get, bad, "AGENTK_INVESTIGATION_MAX_TOKENS", &c.Budget.MaxTokens, 1)
	integer(get, bad, "AGENTK_INVESTIGATION_MAX_ITERATIONS", &c.Budget.MaxIterations, plan.MinIterations+1)
	integer(get, bad, "AGENTK_INVESTIGATIONS_PARALLEL", &c.Parallel, 1)
	return c, errors.Join(errs...)
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func duration(get func(string) string, bad func(string, string, ...any), name string, dst *time.Duration) {
	v := get(name)
	if v == "" {
		return
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		bad(name, "%q is not a positive duration such as 90s", v)
		return
	}
	*dst = d
}

func integer(get func(string) string, bad func(string, string, ...any), name string, dst *int, least int) {
	v := get(name)
	if v == "" {
		return
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < least {
		bad(name, "%q is not an integer of at least %d", v, least)
		return
	}
	*dst = n
}

// secret reads name, or the file named by name_FILE; setting both is an error.
func secret(getenv func(string) string, name string) (string, error) {
	v, file := strings.TrimSpace(getenv(name)), strings.TrimSpace(getenv(name+"_FILE"))
	switch {
	case v != "" && file != "":
		return "", fmt.Errorf("%w: %s and %s_FILE are both set", ErrInvalid, name, name)
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("%w: %s_FILE: %v", ErrInvalid, name, err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	return v, nil
}
