package topology

import (
	"fmt"
	"slices"
	"sort"

	"agentk/contracts/envelope"
	"agentk/contracts/wiring"
)

// Grant is what one role may do on the fabric, in the terms of DESIGN.md's
// table. Permissions turns it into NATS subject permissions.
type Grant struct {
	Role string
	// Publish lists the durable subjects the role produces (JetStream publish).
	Publish []string
	// Consume lists the durable subjects the role reads through durable
	// consumers it creates on their streams.
	Consume []string
	// Serve lists core request subjects the role answers (queue subscription,
	// replies only to the requester's inbox).
	Serve []string
	// Request lists core request subjects the role calls.
	Request []string
	// KVRead and KVWrite list the KV buckets the role reads or writes
	// (writing implies reading).
	KVRead  []string
	KVWrite []string
	// ReadStreams lists streams the role may read message by message
	// (stream info and message get), without consuming them: the bridge's
	// console lists the dead letters this way.
	ReadStreams []string
}

// Grants says who may do what, derived from the wiring table
// (agentk/contracts/wiring): changing a service's reach means changing that
// table; the embedded server and the compose configuration both follow it.
var Grants = grants()

// grants derives one grant per role, in role order, from the subject and
// bucket tables.
func grants() []Grant {
	out := make([]Grant, 0, len(wiring.Roles))
	for _, r := range wiring.Roles {
		g := Grant{Role: r}
		for _, s := range wiring.Subjects {
			produces, consumes := slices.Contains(s.Producers, r), slices.Contains(s.Consumers, r)
			switch s.Kind {
			case wiring.Durable:
				g.Publish = appendIf(g.Publish, produces, s.Name)
				g.Consume = appendIf(g.Consume, consumes, s.Name)
			case wiring.Request:
				g.Request = appendIf(g.Request, produces, s.Name)
				g.Serve = appendIf(g.Serve, consumes, s.Name)
			}
		}
		for _, b := range wiring.Buckets {
			g.KVWrite = appendIf(g.KVWrite, slices.Contains(b.Writers, r), b.Name)
			g.KVRead = appendIf(g.KVRead, slices.Contains(b.Readers, r), b.Name)
		}
		g.ReadStreams = appendIf(g.ReadStreams, slices.Contains(wiring.DLQBrowsers, r), DLQStream)
		out = append(out, g)
	}
	return out
}

func appendIf(ss []string, ok bool, s string) []string {
	if ok {
		return append(ss, s)
	}
	return ss
}

// GrantFor returns role's grant. ok is false for an unknown role and for
// RoleAdmin, whose permissions are AdminPermissions.
func GrantFor(role string) (Grant, bool) {
	for _, g := range Grants {
		if g.Role == role {
			return g, true
		}
	}
	return Grant{}, false
}

// Permissions are concrete NATS subject permissions for one user.
type Permissions struct {
	PublishAllow   []string
	SubscribeAllow []string
	// AllowResponses lets the user publish one reply to the reply subject of
	// each request it received, and nothing else on inboxes.
	AllowResponses bool
}

// AdminPermissions returns nil: the admin user is unrestricted. It exists to
// provision streams and buckets and for operators' tooling.
func AdminPermissions() *Permissions { return nil }

// Permissions turns a grant into least-privilege subject permissions. A role
// may create, inspect and pull from consumers only on the streams it consumes,
// ack only messages of those streams, dead-letter only what it consumes, and
// never delete or purge a stream.
func (g Grant) Permissions() (Permissions, error) {
	if err := checkName(g.Role); err != nil {
		return Permissions{}, err
	}
	pub := map[string]bool{}
	sub := map[string]bool{InboxPrefix(g.Role) + ".>": true}
	for _, s := range g.Publish {
		if _, ok := StreamFor(s); !ok {
			return Permissions{}, fmt.Errorf("topology: %s publishes %s, which has no stream", g.Role, s)
		}
		pub[s] = true
	}
	for _, s := range g.Consume {
		st, ok := StreamFor(s)
		if !ok {
			return Permissions{}, fmt.Errorf("topology: %s consumes %s, which has no stream", g.Role, s)
		}
		for _, p := range consumerAPI(st) {
			pub[p] = true
		}
		pub[DLQSubject(s)] = true
	}
	for _, s := range g.Request {
		pub[s] = true
	}
	for _, s := range g.Serve {
		sub[s] = true
	}
	for _, b := range g.KVRead {
		for _, p := range kvReadAPI(b) {
			pub[p] = true
		}
	}
	for _, st := range g.ReadStreams {
		pub["$JS.API.STREAM.INFO."+st] = true
		pub["$JS.API.STREAM.MSG.GET."+st] = true
	}
	for _, b := range g.KVWrite {
		for _, p := range kvReadAPI(b) {
			pub[p] = true
		}
		pub["$KV."+b+".>"] = true
	}
	return Permissions{
		PublishAllow:   sortedKeys(pub),
		SubscribeAllow: sortedKeys(sub),
		AllowResponses: len(g.Serve) > 0,
	}, nil
}

// consumerAPI is what a durable pull consumer on stream needs.
func consumerAPI(stream string) []string {
	return []string{
		"$JS.API.STREAM.INFO." + stream,
		"$JS.API.CONSUMER.CREATE." + stream + ".>",
		"$JS.API.CONSUMER.DURABLE.CREATE." + stream + ".>",
		"$JS.API.CONSUMER.INFO." + stream + ".>",
		"$JS.API.CONSUMER.MSG.NEXT." + stream + ".>",
		"$JS.ACK." + stream + ".>",
	}
}

// kvReadAPI is what reading and watching bucket needs.
func kvReadAPI(bucket string) []string {
	st := "KV_" + bucket
	return []string{
		"$JS.API.STREAM.INFO." + st,
		"$JS.API.STREAM.MSG.GET." + st,
		"$JS.API.DIRECT.GET." + st,
		"$JS.API.DIRECT.GET." + st + ".>",
		"$JS.API.CONSUMER.CREATE." + st,
		"$JS.API.CONSUMER.CREATE." + st + ".>",
		"$JS.API.CONSUMER.DELETE." + st + ".>",
		"$JS.API.CONSUMER.INFO." + st + ".>",
		"$JS.API.CONSUMER.MSG.NEXT." + st + ".>",
		"$JS.FC." + st + ".>",
		"$JS.ACK." + st + ".>",
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Roles returns every role with a grant, in envelope.Roles order.
func Roles() []string {
	out := make([]string, 0, len(Grants))
	for _, r := range envelope.Roles {
		if _, ok := GrantFor(r); ok {
			out = append(out, r)
		}
	}
	return out
}

// Allows reports whether perms let a user publish to subject, matching NATS
// wildcards. It is used by tests and by `agentk config` to explain a refusal.
func (p Permissions) Allows(subject string) bool {
	return slices.ContainsFunc(p.PublishAllow, func(pat string) bool { return SubjectMatches(pat, subject) })
}

// SubjectMatches reports whether subject matches the NATS pattern pat.
func SubjectMatches(pat, subject string) bool {
	pt := splitTokens(pat)
	st := splitTokens(subject)
	for i, t := range pt {
		if t == ">" {
			return len(st) > i
		}
		if i >= len(st) {
			return false
		}
		if t != "*" && t != st[i] {
			return false
		}
	}
	return len(pt) == len(st)
}

func splitTokens(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
