package envelope

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/nats-io/nkeys"
)

// maxVerified bounds the signatures a keyring remembers; past it, the
// memory starts again empty.
const maxVerified = 4096

// verifiedCache remembers the envelopes whose signature held, by the digest
// of what the signature covers and the signature itself, so that a service
// that meets the same envelope again (the alert inside every tool call, the
// evidence inside a report) checks it once. Only the signature is
// remembered: key, role, subject and time are checked on every Verify. The
// zero value is ready to use.
type verifiedCache struct {
	mu   sync.Mutex
	seen map[[sha256.Size]byte]struct{}
	pubs map[string]nkeys.KeyPair // decoded key ids
}

// verifiedKey is the digest that identifies one signed envelope.
func verifiedKey(input, sig []byte) [sha256.Size]byte {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(input)))
	h.Write(n[:])
	h.Write(input)
	h.Write(sig)
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}

// checkSignature verifies e's signature with its key id, or finds that it
// held before.
func (c *verifiedCache) checkSignature(e Envelope) error {
	input := signingInput(e)
	key := verifiedKey(input, e.Sig)
	c.mu.Lock()
	_, ok := c.seen[key]
	kp := c.pubs[e.KeyID]
	c.mu.Unlock()
	if ok {
		return nil
	}
	if kp == nil {
		var err error
		if kp, err = nkeys.FromPublicKey(e.KeyID); err != nil {
			return fmt.Errorf("%w: %v", ErrUnknownKey, err)
		}
	}
	if err := kp.Verify(input, e.Sig); err != nil {
		return fmt.Errorf("%w: kid %s", ErrBadSignature, e.KeyID)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil || len(c.seen) >= maxVerified {
		c.seen = make(map[[sha256.Size]byte]struct{}, 64)
	}
	if c.pubs == nil {
		c.pubs = map[string]nkeys.KeyPair{}
	}
	c.seen[key] = struct{}{}
	c.pubs[e.KeyID] = kp
	return nil
}
