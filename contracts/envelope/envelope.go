// Package envelope signs and verifies agentk messages. A signed message is the
// payload bytes exactly as produced, never a re-serialised struct, with an
// ed25519 signature (NATS nkeys) over the subject, key id, times, nonce and
// payload. Verification needs a Keyring that says which role each key may sign for.
package envelope

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nkeys"
)

// Version is the envelope format version.
const Version = 1

// Errors returned by Open and Verify. Each rejection has its own sentinel so a
// refusal can name exactly what was wrong.
var (
	ErrMalformed     = errors.New("envelope: malformed")
	ErrUnknownKey    = errors.New("envelope: unknown key id")
	ErrBadSignature  = errors.New("envelope: bad signature")
	ErrWrongRole     = errors.New("envelope: key of the wrong role")
	ErrWrongSubject  = errors.New("envelope: sealed for another subject")
	ErrExpired       = errors.New("envelope: expired")
	ErrNotYetValid   = errors.New("envelope: issued in the future")
	ErrRoleForbidden = errors.New("envelope: role may not sign this subject")
)

// Envelope is a signed message as it travels on the bus and is stored.
type Envelope struct {
	V       int    `json:"v"`
	Subject string `json:"subject"`
	KeyID   string `json:"kid"`
	// IssuedAt and ExpiresAt are Unix nanoseconds; ExpiresAt 0 means no expiry.
	IssuedAt  int64  `json:"iat"`
	ExpiresAt int64  `json:"exp"`
	Nonce     string `json:"nonce"`
	Payload   []byte `json:"payload"`
	Sig       []byte `json:"sig"`
}

// Issued returns IssuedAt as a time.
func (e Envelope) Issued() time.Time { return time.Unix(0, e.IssuedAt).UTC() }

// Expires returns ExpiresAt as a time; the zero time when it never expires.
func (e Envelope) Expires() time.Time {
	if e.ExpiresAt == 0 {
		return time.Time{}
	}
	return time.Unix(0, e.ExpiresAt).UTC()
}

// ExpiresBy returns the earlier of the envelope's expiry and payload, the
// expiry its payload states; a zero time is no expiry, and the zero time
// comes back only when neither expires. The bridge (an answer expires no
// later than its decision) and the deployer (a decision or an approval is
// spent by either expiry) hold a message to the same rule through it.
func (e Envelope) ExpiresBy(payload time.Time) time.Time {
	a := e.Expires()
	if a.IsZero() || !payload.IsZero() && payload.Before(a) {
		return payload
	}
	return a
}

// Digest is the hex sha256 of the payload bytes: what approvals bind to.
func (e Envelope) Digest() string { return Digest(e.Payload) }

// Digest returns the hex sha256 of b.
func Digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Marshal encodes the envelope as JSON.
func (e Envelope) Marshal() []byte {
	b, err := json.Marshal(e)
	if err != nil { // cannot happen: only strings, ints and byte slices
		panic(err)
	}
	return b
}

// Parse decodes an envelope from JSON. It does not verify it.
func Parse(b []byte) (Envelope, error) {
	var e Envelope
	if err := json.Unmarshal(b, &e); err != nil {
		return Envelope{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if e.V != Version || e.Subject == "" || e.KeyID == "" || e.Nonce == "" || len(e.Sig) == 0 {
		return Envelope{}, fmt.Errorf("%w: missing version, subject, kid, nonce or sig", ErrMalformed)
	}
	return e, nil
}

// signingInput is the exact byte string the signature covers. Fields are
// length-prefixed so no two different envelopes share one. It is built in
// one allocation of its exact size: the payload is most of it, and growing
// the buffer copied it four times an envelope (TestSignerSignsAsNKeys
// rebuilds the bytes apart).
func signingInput(e Envelope) []byte {
	const domain = "agentk.envelope.v1"
	b := make([]byte, 0, len(domain)+6*8+len(e.Subject)+len(e.KeyID)+len(e.Nonce)+len(e.Payload))
	b = append(b, domain...)
	for _, f := range [...]string{e.Subject, e.KeyID, e.Nonce} {
		b = binary.BigEndian.AppendUint64(b, uint64(len(f)))
		b = append(b, f...)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(len(e.Payload)))
	b = append(b, e.Payload...)
	b = binary.BigEndian.AppendUint64(b, uint64(e.IssuedAt))
	b = binary.BigEndian.AppendUint64(b, uint64(e.ExpiresAt))
	return b
}

// Signer seals payloads with one service's nkey.
type Signer struct {
	kp    nkeys.KeyPair
	keyID string
	// priv is the ed25519 key derived from the seed once (nkeys derives it
	// again on every Sign); nil for a seed nkeys signs with otherwise.
	priv ed25519.PrivateKey
}

// NewSigner returns a Signer for an nkey seed (user, account or server seed).
func NewSigner(seed []byte) (*Signer, error) {
	kp, err := nkeys.FromSeed(seed)
	if err != nil {
		return nil, fmt.Errorf("envelope: seed: %w", err)
	}
	pub, err := kp.PublicKey()
	if err != nil {
		return nil, fmt.Errorf("envelope: public key: %w", err)
	}
	sg := &Signer{kp: kp, keyID: pub}
	if prefix, raw, err := nkeys.DecodeSeed(seed); err == nil && prefix != nkeys.PrefixByteCurve && len(raw) == ed25519.SeedSize {
		sg.priv = ed25519.NewKeyFromSeed(raw)
	}
	return sg, nil
}

// KeyID returns the signer's public key, which is its key id.
func (s *Signer) KeyID() string { return s.keyID }

// Seal signs payload for subject, issued at now and valid for ttl (0: no expiry).
func (s *Signer) Seal(subject string, payload []byte, now time.Time, ttl time.Duration) (Envelope, error) {
	var n [16]byte
	if _, err := rand.Read(n[:]); err != nil {
		return Envelope{}, fmt.Errorf("envelope: nonce: %w", err)
	}
	e := Envelope{
		V: Version, Subject: subject, KeyID: s.keyID,
		IssuedAt: now.UnixNano(), Nonce: base64.RawURLEncoding.EncodeToString(n[:]),
		Payload: payload,
	}
	if ttl > 0 {
		e.ExpiresAt = now.Add(ttl).UnixNano()
	}
	if s.priv != nil {
		e.Sig = ed25519.Sign(s.priv, signingInput(e))
		return e, nil
	}
	sig, err := s.kp.Sign(signingInput(e))
	if err != nil {
		return Envelope{}, fmt.Errorf("envelope: sign: %w", err)
	}
	e.Sig = sig
	return e, nil
}

// SealJSON marshals v and seals it.
func (s *Signer) SealJSON(subject string, v any, now time.Time, ttl time.Duration) (Envelope, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Envelope{}, fmt.Errorf("envelope: marshal %s: %w", subject, err)
	}
	return s.Seal(subject, b, now, ttl)
}

// MaxClockSkew is how far in the future an envelope may claim to be issued.
const MaxClockSkew = 2 * time.Minute

// Verify checks e against the keyring: the key is known, it belongs to wantRole,
// that role may sign e.Subject, e was sealed for wantSubject, the signature holds,
// and now lies between issue (less MaxClockSkew) and expiry.
func (k *Keyring) Verify(e Envelope, wantSubject, wantRole string, now time.Time) error {
	entry, ok := k.keys[e.KeyID]
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownKey, e.KeyID)
	}
	if err := k.verified.checkSignature(e); err != nil {
		return err
	}
	if entry.Role != wantRole {
		return fmt.Errorf("%w: kid %s is %s, want %s", ErrWrongRole, e.KeyID, entry.Role, wantRole)
	}
	if !RoleMaySign(entry.Role, e.Subject) {
		return fmt.Errorf("%w: %s may not sign %s", ErrRoleForbidden, entry.Role, e.Subject)
	}
	if e.Subject != wantSubject {
		return fmt.Errorf("%w: %s, want %s", ErrWrongSubject, e.Subject, wantSubject)
	}
	if e.IssuedAt > now.Add(MaxClockSkew).UnixNano() {
		return fmt.Errorf("%w: issued %s, now %s", ErrNotYetValid, e.Issued().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	if e.ExpiresAt != 0 && now.UnixNano() >= e.ExpiresAt {
		return fmt.Errorf("%w: at %s, now %s", ErrExpired, e.Expires().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	return nil
}

// OpenAs parses b, verifies it as Verify does and decodes its payload into v.
// Open, which expects the subject's producer, is what callers use; OpenAs is
// for a caller that must name the role itself.
func (k *Keyring) OpenAs(b []byte, wantSubject, wantRole string, now time.Time, v any) (Envelope, error) {
	e, err := Parse(b)
	if err != nil {
		return Envelope{}, err
	}
	return k.open(e, wantSubject, wantRole, now, v)
}

// open verifies a parsed envelope and decodes its payload into v.
func (k *Keyring) open(e Envelope, wantSubject, wantRole string, now time.Time, v any) (Envelope, error) {
	if err := k.Verify(e, wantSubject, wantRole, now); err != nil {
		return e, err
	}
	if err := json.Unmarshal(e.Payload, v); err != nil {
		return e, fmt.Errorf("%w: payload of %s: %v", ErrMalformed, e.Subject, err)
	}
	return e, nil
}

// subjectBase strips a trailing token after the version (agentk.x.v1.y → agentk.x.v1).
func subjectBase(s string) string {
	parts := strings.SplitN(s, ".", 4)
	if len(parts) < 3 {
		return s
	}
	return strings.Join(parts[:3], ".")
}
