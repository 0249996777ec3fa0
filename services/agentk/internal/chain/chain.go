// Package chain verifies what the pipeline stored: each message's signature
// as of when it was issued, the key that really signed it, and the hash
// bindings between the links of an incident (alert → evidence → review →
// decision → approval → action). Audit (agentk audit) walks one incident's
// chain; Shadow (agentk shadow-report) compares shadow decisions with the
// humans' answers. Both are pure functions of the keyring and the stored
// messages; reading the streams is the caller's.
package chain

import (
	"encoding/json"
	"errors"

	"agentk/contracts/envelope"
)

// Msg is one stored message: the stream's bytes, untouched.
type Msg struct {
	Subject string
	Seq     uint64
	Data    []byte
}

// Opened is one message after verification: its envelope (zero when it did
// not parse) and why it did not verify (nil when it did).
type Opened struct {
	Env envelope.Envelope
	Err error
}

// VerifyAt checks an envelope's signature, key role and subject as of the
// moment it was issued: an audit long after the fact still verifies a
// decision that has since expired, and never one that was forged.
func VerifyAt(kr *envelope.Keyring, data []byte, subject string) Opened {
	e, err := envelope.Parse(data)
	if err != nil {
		return Opened{Err: err}
	}
	return Opened{Env: e, Err: kr.VerifyProduced(e, subject, e.Issued())}
}

// SignedBy names the key that actually signed e, from the keyring: its role
// when it is the subject's producer, else the role (or "unknown key") and the
// key id, and whether the signature holds. The audit never labels a message
// with the role it should have had: an investigator-signed approval reads
// "investigator key …", not "bridge".
func SignedBy(kr *envelope.Keyring, e envelope.Envelope, want string) string {
	if e.KeyID == "" {
		return "unsigned"
	}
	role := ""
	for _, k := range kr.Entries() {
		if k.KeyID == e.KeyID {
			role = k.Role
			break
		}
	}
	if role == "" {
		return "unknown key " + Short(e.KeyID)
	}
	name := role
	if role != want {
		name = role + " key " + Short(e.KeyID) + ", not the " + want
	}
	if errors.Is(kr.Verify(e, e.Subject, role, e.Issued()), envelope.ErrBadSignature) {
		name += ", signature does not hold"
	}
	return name
}

// Short is the first 12 characters of a digest or key id.
func Short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// incidentOf is the incident id of a stored message's payload, read even when
// the message does not verify (so that a forged link still shows, broken).
func incidentOf(o Opened, data []byte) (string, bool) {
	payload := o.Env.Payload
	if payload == nil {
		if e, err := envelope.Parse(data); err == nil {
			payload = e.Payload
		}
	}
	var head struct {
		IncidentID string `json:"incident_id"`
	}
	if json.Unmarshal(payload, &head) != nil {
		return "", false
	}
	return head.IncidentID, true
}
