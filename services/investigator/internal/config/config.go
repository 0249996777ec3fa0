// Package config reads the investigator's environment once, reporting every
// problem at once. Secrets may come from a file named by the variable's _FILE
// twin.
package config

import (
	"errors"
	"log/slog"
	"strings"
	"time"

	"agentk/platform/config"

	"agentk/services/investigator/internal/llm"
	"agentk/services/investigator/internal/loop"
	"agentk/services/investigator/internal/plan"
	"agentk/services/investigator/internal/rules"
)

// ErrInvalid is wrapped by every configuration error FromEnv returns.
var ErrInvalid = errors.New("investigator: invalid configuration")

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

// Environment variables.
const (
	EnvInvestigator  = "AGENTK_INVESTIGATOR"
	EnvProvider      = "AGENTK_LLM_PROVIDER"
	EnvBaseURL       = "AGENTK_LLM_BASE_URL"
	EnvModel         = "AGENTK_LLM_MODEL"
	EnvAPIKey        = "AGENTK_LLM_API_KEY"
	EnvLLMTimeout    = "AGENTK_LLM_TIMEOUT"
	EnvRetryBackoff  = "AGENTK_LLM_RETRY_BACKOFF"
	EnvPersona       = "AGENTK_LLM_PERSONA"
	EnvMaxTokens     = "AGENTK_INVESTIGATION_MAX_TOKENS"
	EnvMaxIterations = "AGENTK_INVESTIGATION_MAX_ITERATIONS"
	EnvWallTime      = "AGENTK_INVESTIGATION_TIMEOUT"
	EnvParallel      = "AGENTK_INVESTIGATIONS_PARALLEL"
)

// Spec declares every variable the investigator reads.
var Spec = config.Spec{Component: "investigator", Err: ErrInvalid, Vars: []config.Decl{
	{Name: EnvInvestigator, DocDefault: "`rules`, or `llm` when a key or base URL is set", Doc: "`rules` or `llm`"},
	{Name: EnvProvider, Default: llm.Groq, Doc: "`groq`, `cerebras`, `gemini`, `openrouter`, `openai`, `ollama`, `custom`"},
	{Name: EnvBaseURL, DocDefault: "the provider's", Doc: "required for `custom`"},
	{Name: EnvModel, DocDefault: "the provider's", Doc: "required for `custom`"},
	{Name: EnvAPIKey, Secret: true, Doc: "bearer token; required except for `ollama`/`custom`; never logged"},
	{Name: EnvLLMTimeout, Kind: config.KindDuration, Default: "60s", Doc: "one HTTP request"},
	{Name: EnvRetryBackoff, Kind: config.KindDuration, DocDefault: "`500ms`", Doc: "first wait between retried model requests (429 without Retry-After, 5xx, malformed, timeout); doubles per attempt up to 8 s"},
	{Name: EnvPersona, Doc: "scripted persona name (eval harness): reports say `persona:<name>`"},
	{Name: EnvMaxTokens, Kind: config.KindInt, Default: "16000", Min: 1, Doc: "tokens in + out per investigation"},
	{Name: EnvMaxIterations, Kind: config.KindInt, Default: "8", Min: float64(plan.MinIterations + 1), Doc: "plan steps + model turns; at least plan + 1"},
	{Name: EnvWallTime, Kind: config.KindDuration, Default: "2m", Doc: "wall time per investigation"},
	{Name: EnvParallel, Kind: config.KindInt, Default: "2", Min: 1, Doc: "concurrent investigations"},
}}

// FromEnv reads the configuration from getenv.
func FromEnv(getenv func(string) string) (Config, error) {
	v := Spec.Read(getenv)
	c := Config{
		Provider: v.String(EnvProvider), APIKey: v.String(EnvAPIKey), Persona: v.String(EnvPersona),
		LLMTimeout: v.Duration(EnvLLMTimeout), LLMRetryBackoff: v.Duration(EnvRetryBackoff), Parallel: v.Int(EnvParallel),
		Budget: loop.DefaultBudget(),
	}
	c.Budget.WallTime = v.Duration(EnvWallTime)
	c.Budget.MaxTokens = v.Int(EnvMaxTokens)
	c.Budget.MaxIterations = v.Int(EnvMaxIterations)
	p, ok := llm.LookupProvider(c.Provider)
	if !ok {
		v.Failf(EnvProvider, "unknown provider %q", c.Provider)
	}
	c.BaseURL = firstOf(v.String(EnvBaseURL), p.BaseURL)
	c.Model = firstOf(v.String(EnvModel), p.Model)
	c.Kind = v.String(EnvInvestigator)
	switch c.Kind {
	case "":
		c.Kind = KindRules
		if c.APIKey != "" || v.IsSet(EnvBaseURL) {
			c.Kind = KindLLM
		}
	case KindRules, KindLLM:
	default:
		v.Failf(EnvInvestigator, "%q is neither rules nor llm", c.Kind)
	}
	if c.Kind == KindLLM && ok {
		c.checkLLM(v, p)
	}
	return c, v.Err()
}

// checkLLM checks what the model investigator needs of provider p.
func (c Config) checkLLM(v *config.Values, p llm.Provider) {
	switch {
	case c.BaseURL == "":
		v.Failf(EnvBaseURL, "required with provider %s", c.Provider)
	case !strings.HasPrefix(c.BaseURL, "http://") && !strings.HasPrefix(c.BaseURL, "https://"):
		v.Failf(EnvBaseURL, "%q is not an http(s) URL", c.BaseURL)
	}
	if c.Model == "" {
		v.Failf(EnvModel, "required with provider %s", c.Provider)
	}
	if p.NeedsKey && c.APIKey == "" {
		v.Failf(EnvAPIKey, "provider %s needs a key (or %s_FILE)", c.Provider, EnvAPIKey)
	}
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
