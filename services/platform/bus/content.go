package bus

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrContent marks a failure caused by what a message carries rather than by
// the bus: a payload over the server's maximum, a subject or KV key made from
// content that the protocol refuses. Redelivering the message cannot fix it,
// so the router dead-letters it at once, like a Permanent error.
var ErrContent = errors.New("bus: message content refused")

// MaxKeyBytes bounds a KV key built from content. The protocol's own limit
// (the control line, 4 KiB by default, holds subject and reply) is shared
// with the bucket prefix, and a server that gets a longer line closes the
// connection: every service's keys stay far below it.
const MaxKeyBytes = 256

// SafeKey returns nil when key can be used as a JetStream KV key as it is:
// 1 to MaxKeyBytes bytes of [-/_=.a-zA-Z0-9], not starting or ending with a
// dot. Otherwise it returns an error wrapping ErrContent. Call it where a key
// is built from message content, before any KV call.
func SafeKey(key string) error {
	if key == "" {
		return fmt.Errorf("%w: empty KV key", ErrContent)
	}
	if len(key) > MaxKeyBytes {
		return fmt.Errorf("%w: KV key of %d bytes, max %d", ErrContent, len(key), MaxKeyBytes)
	}
	if key[0] == '.' || key[len(key)-1] == '.' {
		return fmt.Errorf("%w: KV key %q starts or ends with a dot", ErrContent, key)
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '/' || c == '_' || c == '=' || c == '.'
		if !ok {
			return fmt.Errorf("%w: KV key %q holds byte %#02x", ErrContent, key, c)
		}
	}
	return nil
}

// contentMarkers are the protocol errors, as text, that a message's content
// causes. The server reports some of them only as an -ERR line (or by closing
// the connection), which reaches the client as a plain string.
var contentMarkers = []string{
	"maximum payload exceeded", "maximum payload violation", "maximum control line exceeded",
	"invalid subject", "invalid key",
}

// IsContent reports whether err was caused by the message's content (see
// ErrContent): redelivering the same message would fail the same way.
func IsContent(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrContent) || errors.Is(err, nats.ErrMaxPayload) || errors.Is(err, nats.ErrBadSubject) ||
		errors.Is(err, nats.ErrInvalidKey) || errors.Is(err, jetstream.ErrInvalidKey) {
		return true
	}
	msg := strings.ToLower(err.Error())
	for _, m := range contentMarkers {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// maxDLQErrorBytes bounds the error text a dead letter carries in its
// header: the error may quote the content that caused it.
const maxDLQErrorBytes = 1024

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d bytes)", len(s))
}
