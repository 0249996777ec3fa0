package worldgen

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPromptRegressionsAreDrawnWide: of the drawn prompt regressions about
// 45% send a longer template (120 to 3,000 tokens more, from 1.1x the
// median to 3x), about 20% a raised max_tokens, and the rest change only
// the wording; no other class draws a PromptChange. (That the draw moves no
// other world was checked by writing the CI seeds with main's generator and
// this one: every world without a prompt variant is byte-identical.)
func TestPromptRegressionsAreDrawnWide(t *testing.T) {
	t.Parallel()
	n, template, maxTokens := 0, 0, 0
	minExtra, maxExtra := 1<<30, 0
	for _, seed := range []uint64{13, 14, 15, 16} {
		for i := range 400 {
			w := Draw(seed, i)
			if w.Class != "prompt_regression" {
				require.Zero(t, w.Prompt, w.ID)
				continue
			}
			n++
			switch {
			case w.Has(PromptLongerTemplate):
				template++
				minExtra, maxExtra = min(minExtra, w.Prompt.ExtraInput), max(maxExtra, w.Prompt.ExtraInput)
				require.Zero(t, w.Prompt.MaxTokensAfter, w.ID)
			case w.Has(PromptLargerMaxTokens):
				maxTokens++
				require.Greater(t, w.Prompt.MaxTokensAfter, w.Prompt.MaxTokensBefore, w.ID)
				require.Zero(t, w.Prompt.ExtraInput, w.ID)
			default:
				require.Zero(t, w.Prompt, w.ID)
			}
		}
	}
	require.Equal(t, 200, n)
	t.Logf("%d prompt regressions: %d longer templates (%d to %d tokens more), %d raised max_tokens, %d wording only", n, template, minExtra, maxExtra, maxTokens, n-template-maxTokens)
	require.InDelta(t, promptTemplateShare, float64(template)/float64(n), 0.08)
	require.InDelta(t, promptMaxTokensShare, float64(maxTokens)/float64(n), 0.07)
	require.Less(t, minExtra, 200)
	require.Greater(t, maxExtra, 2000)
}

// TestPromptChangeIsSentFromTheFirstCall: a longer template's extra tokens
// are on every model call of the new version, from its first (before the
// onset too), and on none of the earlier versions'; a raised max_tokens is
// on every call, the earlier value before the release; a wording-only
// release sends the model what its predecessor sent. Corner worlds of 20
// minutes at 0.1 requests/s, small enough to emit.
func TestPromptChangeIsSentFromTheFirstCall(t *testing.T) {
	t.Parallel()
	c := Corner{Length: 20 * time.Minute, Rate: 0.1, Sampling: 1, Class: "prompt_regression"}
	seen := map[string]bool{}
	for seed := uint64(1); len(seen) < 3 && seed < 200; seed++ {
		w := DrawCorner(seed, 0, c)
		kind := "wording"
		switch {
		case w.Has(PromptLongerTemplate):
			kind = "template"
		case w.Has(PromptLargerMaxTokens):
			kind = "max_tokens"
		}
		if seen[kind] {
			continue
		}
		seen[kind] = true
		d, ok := w.AffectedDeploy()
		require.True(t, ok, w.ID)
		var before, after []int
		for _, s := range Emit(w).Spans {
			in, ok := s.Attributes["gen_ai.usage.input_tokens"]
			if !ok {
				in, ok = s.Attributes["gen_ai.usage.prompt_tokens"]
			}
			if !ok {
				continue
			}
			newer := s.Resource["service.version"] == w.NewVersion()
			require.True(t, !newer || !s.at.Before(d.At), "%s: the new version serves from its release", w.ID)
			mt, hasMT := s.Attributes["gen_ai.request.max_tokens"]
			if !hasMT {
				mt, hasMT = s.Attributes["llm.request.max_tokens"]
			}
			require.Equal(t, kind == "max_tokens", hasMT, w.ID)
			if kind == "max_tokens" {
				want := w.Prompt.MaxTokensBefore
				if newer {
					want = w.Prompt.MaxTokensAfter
				}
				require.Equal(t, want, mt, w.ID)
			}
			if newer && s.at.Before(w.Onset) {
				after = append(after, in.(int))
			} else if !newer {
				before = append(before, in.(int))
			}
		}
		require.NotEmpty(t, after, "%s: calls of the new version before the onset", w.ID)
		for _, x := range before {
			require.True(t, x >= 400 && x < 2200, "%s: %d", w.ID, x)
		}
		for _, x := range after {
			require.True(t, x >= 400+w.Prompt.ExtraInput && x < 2200+w.Prompt.ExtraInput, "%s: %d", w.ID, x)
		}
	}
	require.Len(t, seen, 3, "a wording-only, a longer-template and a max_tokens corner")
}
