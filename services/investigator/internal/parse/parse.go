// Package parse turns a model's final answer into claims. The model is assumed
// to be wrong or hostile: output that does not fit the schema becomes one
// low-confidence unknown claim, never an error.
package parse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode"

	"agentk/contracts"
)

// Limits on what one answer may carry.
const (
	MaxClaims         = 5
	MaxStatementChars = 1000
	MaxEvidenceIDs    = 20
	// MaxServiceChars bounds a claim's service name.
	MaxServiceChars = 253
	// UnparseableConfidence is the confidence of the unknown claim that stands in
	// for output that could not be read.
	UnparseableConfidence = 0.1
)

// Answer is the JSON the model must produce.
type Answer struct {
	Claims []AnswerClaim `json:"claims"`
}

// AnswerClaim is one claim as the model writes it.
type AnswerClaim struct {
	Class       string   `json:"class"`
	Statement   string   `json:"statement"`
	Confidence  float64  `json:"confidence"`
	EvidenceIDs []string `json:"evidence_ids"`
	// Service names the service the claim diagnoses when it is not the
	// alerted one: the origin of its failures (DESIGN rule 17).
	Service string `json:"service,omitempty"`
}

// Result is what Claims found.
type Result struct {
	Claims []contracts.Claim
	// Problems lists why the output or individual claims were rejected; empty
	// when everything parsed.
	Problems []string
}

// Claims parses out against the catalogue. Claims get ids c1, c2, … in order.
// A claim with a class outside the catalogue, a confidence outside [0, 1], an
// empty statement or no evidence ids is dropped; if nothing survives, the
// result is one unknown claim with UnparseableConfidence.
func Claims(out string, catalogue []contracts.FailureClass) Result {
	var res Result
	known := make(map[string]bool, len(catalogue)+1)
	for _, c := range catalogue {
		known[c.Name] = true
	}
	known[contracts.ClassUnknown] = true

	var a Answer
	dec := json.NewDecoder(bytes.NewReader([]byte(unfence(out))))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		res.Problems = append(res.Problems, fmt.Sprintf("not the answer schema: %v", err))
		return unknown(res)
	}
	if dec.More() {
		res.Problems = append(res.Problems, "trailing data after the answer")
		return unknown(res)
	}
	if len(a.Claims) > MaxClaims {
		res.Problems = append(res.Problems, fmt.Sprintf("%d claims, keeping the first %d", len(a.Claims), MaxClaims))
		a.Claims = a.Claims[:MaxClaims]
	}
	for i, c := range a.Claims {
		if p := invalid(c, known); p != "" {
			res.Problems = append(res.Problems, fmt.Sprintf("claim %d: %s", i+1, p))
			continue
		}
		res.Claims = append(res.Claims, contracts.Claim{
			ID:          fmt.Sprintf("c%d", len(res.Claims)+1),
			Class:       c.Class,
			Statement:   strings.TrimSpace(c.Statement),
			Confidence:  c.Confidence,
			EvidenceIDs: dedupe(c.EvidenceIDs),
			Service:     strings.TrimSpace(c.Service),
		})
	}
	if len(res.Claims) == 0 {
		res.Problems = append(res.Problems, "no valid claim")
		return unknown(res)
	}
	return res
}

func invalid(c AnswerClaim, known map[string]bool) string {
	switch {
	case !known[c.Class]:
		return fmt.Sprintf("class %q is not in the catalogue", c.Class)
	case math.IsNaN(c.Confidence) || c.Confidence < 0 || c.Confidence > 1:
		return fmt.Sprintf("confidence %v outside [0, 1]", c.Confidence)
	case strings.TrimSpace(c.Statement) == "":
		return "empty statement"
	case len(c.Statement) > MaxStatementChars:
		return fmt.Sprintf("statement longer than %d characters", MaxStatementChars)
	case len(c.EvidenceIDs) == 0:
		return "no evidence ids"
	case len(c.EvidenceIDs) > MaxEvidenceIDs:
		return fmt.Sprintf("more than %d evidence ids", MaxEvidenceIDs)
	case len(c.Service) > MaxServiceChars || strings.ContainsFunc(strings.TrimSpace(c.Service), unicode.IsSpace):
		return fmt.Sprintf("service %q is not a service name", c.Service)
	}
	for _, id := range c.EvidenceIDs {
		if strings.TrimSpace(id) == "" {
			return "empty evidence id"
		}
	}
	return ""
}

// Unknown returns the single claim that stands in for an answer that could not
// be used.
func Unknown(statement string) contracts.Claim {
	return contracts.Claim{ID: "c1", Class: contracts.ClassUnknown, Statement: statement,
		Confidence: UnparseableConfidence, EvidenceIDs: []string{}}
}

func unknown(res Result) Result {
	res.Claims = []contracts.Claim{Unknown("the model's answer could not be parsed: nothing conclusive")}
	return res
}

// unfence strips one Markdown code fence around the answer, which models add
// even when told not to; anything else around the JSON is rejected by the decoder.
func unfence(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "```") {
		return s
	}
	s = strings.TrimPrefix(s, "```")
	if nl := strings.IndexByte(s, '\n'); nl >= 0 && !strings.HasPrefix(strings.TrimSpace(s[:nl]), "{") {
		s = s[nl+1:] // language tag such as json
	}
	s = strings.TrimSpace(s)
	return strings.TrimSpace(strings.TrimSuffix(s, "```"))
}

func dedupe(ids []string) []string {
	seen := map[string]bool{}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// Schema is the JSON Schema of Answer, shown to the model in the system prompt.
const Schema = `{"type":"object","additionalProperties":false,"required":["claims"],"properties":{"claims":{"type":"array","minItems":1,"maxItems":5,"items":{"type":"object","additionalProperties":false,"required":["class","statement","confidence","evidence_ids"],"properties":{"class":{"type":"string"},"statement":{"type":"string","maxLength":1000},"confidence":{"type":"number","minimum":0,"maximum":1},"evidence_ids":{"type":"array","minItems":1,"items":{"type":"string"}},"service":{"type":"string","maxLength":253}}}}}}`
