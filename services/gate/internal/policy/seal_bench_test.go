package policy_test

import (
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/services/gate/internal/policy"

	"github.com/nats-io/nkeys"
)

// BenchmarkSealDecision is BenchmarkEvaluate's baseline: signing the decision
// Evaluate returns into its envelope (JSON and ed25519), which the gate does
// for every decision after the six checks. Evaluate/seal says what the policy
// itself costs beside the signature every message pays anyway.
func BenchmarkSealDecision(b *testing.B) {
	kp, err := nkeys.CreateUser()
	if err != nil {
		b.Fatal(err)
	}
	seed, err := kp.Seed()
	if err != nil {
		b.Fatal(err)
	}
	signer, err := envelope.NewSigner(seed)
	if err != nil {
		b.Fatal(err)
	}
	d := policy.Evaluate(allowing())
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := signer.SealJSON(contracts.SubjectDecision, d, now, 15*time.Minute); err != nil {
			b.Fatal(err)
		}
	}
}
