package webhook

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"testing"
)

// referenceShortHash is shortHash as it was before it hashed a buffer on
// the stack: the digits of every key and id already stored.
func referenceShortHash(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(strconv.Itoa(len(p)) + ":" + p))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// FuzzShortHash holds shortHash to its reference on any service, rule and
// startsAt a webhook can carry (short ones on the stack, long ones not).
func FuzzShortHash(f *testing.F) {
	f.Add("shop-api", "r1", "1796034000")
	f.Add("", "", "")
	f.Add("a\x00", "é", "-5")
	f.Add(string(make([]byte, 600)), "rule", "0")
	f.Fuzz(func(t *testing.T, service, rule, startsAt string) {
		if got, want := shortHash(service, rule), referenceShortHash(service, rule); got != want {
			t.Fatalf("shortHash(%q, %q) = %s, want %s", service, rule, got, want)
		}
		if got, want := shortHash(service, rule, startsAt), referenceShortHash(service, rule, startsAt); got != want {
			t.Fatalf("shortHash(%q, %q, %q) = %s, want %s", service, rule, startsAt, got, want)
		}
	})
}
