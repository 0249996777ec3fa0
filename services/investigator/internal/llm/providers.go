// Package llm is the one OpenAI-compatible chat-completions client (go-openai)
// every provider is reached through, as a loop.Model: prompts that keep
// telemetry inside delimited data sections, function calling for the sandbox
// tools, and retries for 429 (Retry-After), 413 (shrink the evidence once),
// 5xx, malformed bodies and timeouts. It never logs the key or a prompt.
package llm

import "slices"

// Provider is one OpenAI-compatible endpoint and its default model.
type Provider struct {
	Name    string
	BaseURL string
	Model   string
	// NeedsKey is false for local servers such as Ollama.
	NeedsKey bool
}

// Provider names.
const (
	Groq       = "groq"
	Cerebras   = "cerebras"
	Gemini     = "gemini"
	OpenRouter = "openrouter"
	OpenAI     = "openai"
	Ollama     = "ollama"
	Custom     = "custom"
)

// Providers lists every provider with its default base URL and model. Custom
// has neither: AGENTK_LLM_BASE_URL and AGENTK_LLM_MODEL name them.
var Providers = []Provider{
	{Groq, "https://api.groq.com/openai/v1", "llama-3.3-70b-versatile", true},
	{Cerebras, "https://api.cerebras.ai/v1", "llama-3.3-70b", true},
	{Gemini, "https://generativelanguage.googleapis.com/v1beta/openai", "gemini-2.0-flash", true},
	{OpenRouter, "https://openrouter.ai/api/v1", "meta-llama/llama-3.3-70b-instruct:free", true},
	{OpenAI, "https://api.openai.com/v1", "gpt-4o-mini", true},
	{Ollama, "http://localhost:11434/v1", "llama3.1", false},
	{Custom, "", "", false},
}

// LookupProvider returns the provider called name.
func LookupProvider(name string) (Provider, bool) {
	i := slices.IndexFunc(Providers, func(p Provider) bool { return p.Name == name })
	if i < 0 {
		return Provider{}, false
	}
	return Providers[i], true
}
