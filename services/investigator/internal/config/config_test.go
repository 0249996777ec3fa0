package config

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromEnv(t *testing.T) {
	t.Parallel()
	keyFile := filepath.Join(t.TempDir(), "key")
	require.NoError(t, os.WriteFile(keyFile, []byte("sk-from-file\n"), 0o600))
	tests := []struct {
		name    string
		env     map[string]string
		check   func(t *testing.T, c Config)
		invalid []string // variables named in the error
	}{
		{"empty is rules", map[string]string{}, func(t *testing.T, c Config) {
			require.Equal(t, KindRules, c.Kind)
			require.Equal(t, "rules", c.InvestigatorName())
			require.Equal(t, 16000, c.Budget.MaxTokens)
		}, nil},
		{"a key selects the llm on groq", map[string]string{"AGENTK_LLM_API_KEY": "sk-1"}, func(t *testing.T, c Config) {
			require.Equal(t, KindLLM, c.Kind)
			require.Equal(t, "https://api.groq.com/openai/v1", c.BaseURL)
			require.Equal(t, "llama-3.3-70b-versatile", c.Model)
		}, nil},
		{"key from file", map[string]string{"AGENTK_LLM_PROVIDER": "cerebras", "AGENTK_LLM_API_KEY_FILE": keyFile}, func(t *testing.T, c Config) {
			require.Equal(t, "sk-from-file", c.APIKey)
			require.Equal(t, "https://api.cerebras.ai/v1", c.BaseURL)
		}, nil},
		{"custom with persona", map[string]string{"AGENTK_LLM_PROVIDER": "custom", "AGENTK_LLM_BASE_URL": "http://127.0.0.1:9/v1", "AGENTK_LLM_MODEL": "m", "AGENTK_LLM_PERSONA": "liar"}, func(t *testing.T, c Config) {
			require.Equal(t, KindLLM, c.Kind)
			require.Equal(t, "persona:liar", c.InvestigatorName())
		}, nil},
		{"ollama needs no key", map[string]string{"AGENTK_INVESTIGATOR": "llm", "AGENTK_LLM_PROVIDER": "ollama"}, func(t *testing.T, c Config) {
			require.Equal(t, "http://localhost:11434/v1", c.BaseURL)
		}, nil},
		{"budgets", map[string]string{"AGENTK_INVESTIGATION_MAX_TOKENS": "4000", "AGENTK_INVESTIGATION_MAX_ITERATIONS": "6", "AGENTK_INVESTIGATION_TIMEOUT": "45s", "AGENTK_LLM_TIMEOUT": "5s", "AGENTK_INVESTIGATIONS_PARALLEL": "3"}, func(t *testing.T, c Config) {
			require.Equal(t, 4000, c.Budget.MaxTokens)
			require.Equal(t, 6, c.Budget.MaxIterations)
			require.Equal(t, 45*time.Second, c.Budget.WallTime)
			require.Equal(t, 5*time.Second, c.LLMTimeout)
			require.Equal(t, 3, c.Parallel)
		}, nil},
		{"every problem at once", map[string]string{"AGENTK_INVESTIGATOR": "magic", "AGENTK_LLM_PROVIDER": "skynet", "AGENTK_INVESTIGATION_MAX_TOKENS": "-1", "AGENTK_INVESTIGATION_MAX_ITERATIONS": "3", "AGENTK_LLM_TIMEOUT": "soon", "AGENTK_INVESTIGATIONS_PARALLEL": "0"}, nil,
			[]string{"AGENTK_INVESTIGATOR", "AGENTK_LLM_PROVIDER", "AGENTK_INVESTIGATION_MAX_TOKENS", "AGENTK_INVESTIGATION_MAX_ITERATIONS", "AGENTK_LLM_TIMEOUT", "AGENTK_INVESTIGATIONS_PARALLEL"}},
		{"llm without a key", map[string]string{"AGENTK_INVESTIGATOR": "llm", "AGENTK_LLM_PROVIDER": "openai"}, nil, []string{"AGENTK_LLM_API_KEY"}},
		{"custom without url and model", map[string]string{"AGENTK_INVESTIGATOR": "llm", "AGENTK_LLM_PROVIDER": "custom"}, nil, []string{"AGENTK_LLM_BASE_URL", "AGENTK_LLM_MODEL"}},
		{"key and key file", map[string]string{"AGENTK_LLM_API_KEY": "a", "AGENTK_LLM_API_KEY_FILE": keyFile}, nil, []string{"AGENTK_LLM_API_KEY_FILE"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := FromEnv(env(tc.env))
			if len(tc.invalid) > 0 {
				require.ErrorIs(t, err, ErrInvalid)
				for _, v := range tc.invalid {
					require.Contains(t, err.Error(), v)
				}
				return
			}
			require.NoError(t, err)
			tc.check(t, c)
		})
	}
}

func TestLogValueHidesTheKey(t *testing.T) {
	t.Parallel()
	c, err := FromEnv(env(map[string]string{"AGENTK_LLM_API_KEY": "sk-super-secret"}))
	require.NoError(t, err)
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("config", "config", c)
	require.NotContains(t, buf.String(), "sk-super-secret")
	require.Contains(t, buf.String(), `"api_key_set":true`)
}
