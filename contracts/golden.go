package contracts

import (
	"crypto/sha256"
	"embed"
	"fmt"

	"agentk/contracts/envelope"

	"github.com/nats-io/nkeys"
)

// SubjectEnvelope names the schema and golden of the envelope itself, which
// is not a bus subject.
const SubjectEnvelope = "envelope"

// SchemaSubjects lists every subject that has a JSON Schema under schema/ and
// a golden example under testdata/, in a stable order.
var SchemaSubjects = []string{
	SubjectAlert, SubjectToolCall, SubjectToolReply, SubjectEvidence,
	SubjectReport, SubjectReview, SubjectDecision, SubjectApproval,
	SubjectAction, SubjectLedger, SubjectCooldown, SubjectFreeze, SubjectEnvelope,
}

//go:embed testdata/*.json
var goldens embed.FS

//go:embed schema/*.json
var schemas embed.FS

// Golden returns the committed golden example of subject (a Subject* constant
// or SubjectEnvelope), or nil when there is none. Consumers decode their
// producer's goldens in their own tests, so a contract change breaks every
// module it touches. Envelopes inside goldens are sealed with GoldenKeyring's
// keys.
func Golden(subject string) []byte {
	b, err := goldens.ReadFile("testdata/" + subject + ".json")
	if err != nil {
		return nil
	}
	return b
}

// Schema returns the JSON Schema (draft 2020-12) of subject, or nil when
// there is none. A service written in another language can validate against it.
func Schema(subject string) []byte {
	b, err := schemas.ReadFile("schema/" + subject + ".json")
	if err != nil {
		return nil
	}
	return b
}

// goldenSeedLabel derives the fixed test key of a role. These keys are public
// knowledge by construction: they exist only so golden envelopes verify, and a
// production keyring must never list them.
func goldenSeedLabel(role string) string { return "agentk golden fixture key: " + role }

// GoldenKeyPair returns the fixture key pair of role that sealed the envelopes
// inside the goldens. Its private half is derived from a public string: use it
// in tests only.
func GoldenKeyPair(role string) nkeys.KeyPair {
	raw := sha256.Sum256([]byte(goldenSeedLabel(role)))
	kp, err := nkeys.FromRawSeed(nkeys.PrefixByteUser, raw[:])
	if err != nil { // cannot happen: 32 bytes and a valid prefix
		panic(fmt.Sprintf("contracts: golden key for %s: %v", role, err))
	}
	return kp
}

// GoldenSigner returns a Signer over GoldenKeyPair(role): tests only.
func GoldenSigner(role string) *envelope.Signer {
	seed, err := GoldenKeyPair(role).Seed()
	if err != nil {
		panic(fmt.Sprintf("contracts: golden seed for %s: %v", role, err))
	}
	s, err := envelope.NewSigner(seed)
	if err != nil {
		panic(fmt.Sprintf("contracts: golden signer for %s: %v", role, err))
	}
	return s
}

// GoldenKeyring returns a keyring of every role's fixture key, which verifies
// the envelopes inside the goldens. Tests only: the private keys are public.
func GoldenKeyring() *envelope.Keyring {
	entries := make([]envelope.KeyEntry, 0, len(envelope.Roles))
	for _, r := range envelope.Roles {
		pub, err := GoldenKeyPair(r).PublicKey()
		if err != nil {
			panic(fmt.Sprintf("contracts: golden public key for %s: %v", r, err))
		}
		entries = append(entries, envelope.KeyEntry{KeyID: pub, Role: r})
	}
	k, err := envelope.NewKeyring(entries...)
	if err != nil {
		panic(fmt.Sprintf("contracts: golden keyring: %v", err))
	}
	return k
}
