package tools

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestQualityKeysLeavePlatformAttributesAside: the attributes an AWS
// Lambda function's ADOT layer sets on every invocation (faas.coldstart,
// faas.trigger, faas.invocation_id, cloud.region, cloud.resource_id) are
// not followed as quality: a cold-start share that rose when the alias's
// provisioned concurrency was cut minutes after a release was rolled back
// on persona:quality's config_regression
// (heldout11's lb11-trap-provisioned-concurrency-locker-api). The
// service's own attributes beside them still are (mutant
// sandbox.quality_platform).
func TestQualityKeysLeavePlatformAttributesAside(t *testing.T) {
	r := sampleOf(t, 30, map[string]string{
		"faas.coldstart": `false`, "faas.trigger": `"http"`, "faas.invocation_id": `"inv-#"`,
		"faas.init_duration_ms": `#`, "cloud.region": `"ap-south-1"`, "cloud.resource_id": `"arn:aws:lambda:x"`,
		"assist.answer.language": `"en"`, "gen_ai.usage.output_tokens": `#`,
	})
	k, rt := sampleKeysOf(r)
	require.Equal(t, []qualityKey{{name: "gen_ai.usage.output_tokens", numeric: true}, {name: "assist.answer.language"}}, k)
	require.Empty(t, rt)
}

// TestQualityIgnoresWhatWasSent: the sizes of what the service sent its
// model (input or prompt tokens, in each spelling of facts.SentSizeKeys)
// and the attributes naming the prompt it sent are not followed as
// quality, so a prompt that grew or was renamed with a release places no
// onset at it (worldgen's s18-w094, whose onset was placed only by
// gen_ai.usage.prompt_tokens); the answer's own sizes and scores still are
// (mutants sandbox.quality_sent_size, sandbox.quality_prompt_name).
func TestQualityIgnoresWhatWasSent(t *testing.T) {
	r := sampleOf(t, 30, map[string]string{
		"gen_ai.usage.input_tokens": `#`, "gen_ai.usage.prompt_tokens": `#`, "llm.usage.prompt_tokens": `#`,
		"gen_ai.usage.output_tokens": `#`, "gen_ai.usage.completion_tokens": `#`, "eval.relevance_score": `#`,
		"app.prompt.template": `"answer-v18"`, "triage.prompt_version": `"v4"`, "gen_ai.prompt.template.name": `"faq"`,
	})
	k, _ := sampleKeysOf(r)
	require.Equal(t, []qualityKey{
		{name: "eval.relevance_score", numeric: true},
		{name: "gen_ai.usage.completion_tokens", numeric: true},
		{name: "gen_ai.usage.output_tokens", numeric: true},
	}, k)
}
