package worldgen

import (
	"math"
	"math/rand/v2"
)

// What a prompt regression's release changed in what the service sends the
// model, from its first request (the sandbox's sent_changes reads it; the
// gate's change_slow_sent_peer lifts a slowed model's denial on it). A
// release that only rewords its prompt sends what the previous version
// sent: nothing in its calls tells its model's later slowing from a model
// that slowed by itself (the trap, PromptWordingTrap), and it carries
// neither variant.
const (
	// PromptLongerTemplate: the new template adds PromptChange.ExtraInput
	// tokens to every call's input (gen_ai.usage.input_tokens, or
	// prompt_tokens in the old conventions).
	PromptLongerTemplate Variant = "prompt-longer-template"
	// PromptLargerMaxTokens: every call sets gen_ai.request.max_tokens, and
	// the release raised it (the answers it lets the model write are the
	// longer ones the regression draws).
	PromptLargerMaxTokens Variant = "prompt-larger-max-tokens"
	// ModelSlowedAfterWording: a corner's trap (Corner.WordingRelease), the
	// model slowing by itself minutes after a wording-only release.
	ModelSlowedAfterWording Variant = "model-slowed-after-a-wording-release"
)

// PromptChange is what a prompt regression's release changed in its calls
// to the model: ExtraInput tokens more input on every call of the new
// version, or max_tokens raised from MaxTokensBefore to MaxTokensAfter.
// Zero is a release that changed only the wording.
type PromptChange struct {
	ExtraInput                      int
	MaxTokensBefore, MaxTokensAfter int
}

// Shares of the drawn prompt regressions by mechanism: a longer template,
// a raised max_tokens, the rest the wording only.
const (
	promptTemplateShare  = 0.45
	promptMaxTokensShare = 0.2
)

// drawPrompt draws a prompt regression's PromptChange from its own stream
// rs, so that every other draw of the world, and every other world, is as
// it was; a wording-only release is written byte for byte as before. A
// longer template adds 120 to 3,000 tokens (log-uniform) to inputs drawn
// from 400 to 2,200: from 1.1x the median, which no test of what is sent
// tells from chance on a few calls, to 3x.
func (w *World) drawPrompt(rs *rand.Rand) {
	if w.Class != "prompt_regression" {
		return
	}
	switch u := rs.Float64(); {
	case u < promptTemplateShare:
		w.Prompt.ExtraInput = int(math.Round(logUniform(rs, 120, 3000)))
		w.add(PromptLongerTemplate)
	case u < promptTemplateShare+promptMaxTokensShare:
		w.Prompt.MaxTokensBefore = pick(rs, []int{256, 512, 800, 1024})
		w.Prompt.MaxTokensAfter = w.Prompt.MaxTokensBefore * pick(rs, []int{2, 3, 4, 8})
		w.add(PromptLargerMaxTokens)
	}
}

// promptRng is the stream drawPrompt draws world i of seed from.
func promptRng(seed uint64, i int) *rand.Rand {
	return rand.New(rand.NewPCG(seed^0x53, uint64(i)+53))
}

// promptSent writes into a model call's attributes what the release
// changed in it: the new version's longer input, or max_tokens on every
// call (the earlier versions' value before the release).
func (w World) promptSent(attrs map[string]any, v string, input int) int {
	if w.Class != "prompt_regression" {
		return input
	}
	newer := v == w.NewVersion()
	if newer {
		input += w.Prompt.ExtraInput
	}
	if w.Prompt.MaxTokensAfter > 0 {
		key := "gen_ai.request.max_tokens"
		if w.Semconv == SemconvOld {
			key = "llm.request.max_tokens"
		}
		attrs[key] = w.Prompt.MaxTokensBefore
		if newer {
			attrs[key] = w.Prompt.MaxTokensAfter
		}
	}
	return input
}
