package approval

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"sort"
)

// Approver is one human who may answer decisions. Tokens are kept only as
// sha256 hashes so a dump of the process does not hand them out.
type Approver struct {
	Name    string
	SlackID string
	// tokenHash is zero when the approver has no console token.
	tokenHash [sha256.Size]byte
	hasToken  bool
}

// Approvers is the configured set of approvers. The zero value has none.
type Approvers struct {
	byName  map[string]Approver
	bySlack map[string]string
}

// NewApprovers builds the set from Slack ids (approver name by Slack user id)
// and console tokens (token by approver name). An approver is anyone named in
// either map.
func NewApprovers(slackIDs map[string]string, tokens map[string]string) (Approvers, error) {
	a := Approvers{byName: map[string]Approver{}, bySlack: map[string]string{}}
	for id, name := range slackIDs {
		if prev, ok := a.byName[name]; ok && prev.SlackID != "" {
			return Approvers{}, fmt.Errorf("%w: %s has two Slack ids (%s, %s)", ErrConfig, name, prev.SlackID, id)
		}
		a.byName[name] = Approver{Name: name, SlackID: id}
		a.bySlack[id] = name
	}
	seen := map[[sha256.Size]byte]string{}
	for name, tok := range tokens {
		h := sha256.Sum256([]byte(tok))
		if other, dup := seen[h]; dup {
			return Approvers{}, fmt.Errorf("%w: %s and %s share a console token", ErrConfig, name, other)
		}
		seen[h] = name
		ap := a.byName[name]
		ap.Name, ap.tokenHash, ap.hasToken = name, h, true
		a.byName[name] = ap
	}
	return a, nil
}

// Names returns the approvers' names, sorted.
func (a Approvers) Names() []string {
	out := make([]string, 0, len(a.byName))
	for n := range a.byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// BySlackID returns the approver a Slack user id maps to.
func (a Approvers) BySlackID(id string) (string, bool) {
	n, ok := a.bySlack[id]
	return n, ok && id != ""
}

// ByToken returns the approver holding token. Every configured token is
// compared in constant time so the answer's timing says nothing about which
// approver nearly matched.
func (a Approvers) ByToken(token string) (string, bool) {
	if token == "" {
		return "", false
	}
	h := sha256.Sum256([]byte(token))
	found := ""
	for _, ap := range a.byName {
		if ap.hasToken && subtle.ConstantTimeCompare(h[:], ap.tokenHash[:]) == 1 {
			found = ap.Name
		}
	}
	return found, found != ""
}

// ByNameAndToken returns name when token is that approver's console token
// (basic auth and the login form).
func (a Approvers) ByNameAndToken(name, token string) (string, bool) {
	got, ok := a.ByToken(token)
	if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(name)) != 1 {
		return "", false
	}
	return got, true
}
