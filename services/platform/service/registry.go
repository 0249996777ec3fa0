package service

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"agentk/contracts/wiring"
	"agentk/platform/config"
)

// Registration is one service as the platform knows it: its role, the
// variables it declares, the check that reads them exactly as Run does, and
// Run. Each service registers itself once (in its package's register.go);
// `agentk config`, `agentk up`'s preflight and docs/configuration.md read
// the registry instead of keeping a list of their own.
type Registration struct {
	Role string
	// Config declares every variable the service reads.
	Config config.Spec
	// Check reads the configuration exactly as Run does and returns every
	// problem at once (nil when the service would start).
	Check func(getenv func(string) string) error
	Run   Func
}

var (
	regMu    sync.Mutex
	registry []Registration
)

// Register adds r to the registry. Registering a role twice is a programming
// error and panics at start-up.
func Register(r Registration) {
	regMu.Lock()
	defer regMu.Unlock()
	if r.Role == "" || r.Check == nil || r.Run == nil {
		panic(fmt.Sprintf("service: registration of %q lacks a role, a check or a Run", r.Role))
	}
	if slices.ContainsFunc(registry, func(x Registration) bool { return x.Role == r.Role }) {
		panic(fmt.Sprintf("service: %s registered twice", r.Role))
	}
	registry = append(registry, r)
}

// Registered returns every registered service, sorted by role.
func Registered() []Registration {
	regMu.Lock()
	defer regMu.Unlock()
	out := slices.Clone(registry)
	slices.SortFunc(out, func(a, b Registration) int { return strings.Compare(a.Role, b.Role) })
	return out
}

// InStartOrder returns every registered service in the order a process
// that runs them together starts them (wiring.StartOrder says why it is
// that order); a role the table does not list starts after it, by name.
func InStartOrder() []Registration {
	out := Registered()
	rank := func(role string) int {
		if i := slices.Index(wiring.StartOrder, role); i >= 0 {
			return i
		}
		return len(wiring.StartOrder)
	}
	slices.SortStableFunc(out, func(a, b Registration) int { return rank(a.Role) - rank(b.Role) })
	return out
}

// Roles returns the registered services' roles, in start order.
func Roles() []string {
	var out []string
	for _, r := range InStartOrder() {
		out = append(out, r.Role)
	}
	return out
}

// Lookup returns the registration of role.
func Lookup(role string) (Registration, bool) {
	for _, r := range Registered() {
		if r.Role == role {
			return r, true
		}
	}
	return Registration{}, false
}

// Checker turns a service's FromEnv into a Registration's Check: the
// configuration is read and dropped, only the problems count.
func Checker[C any](fromEnv func(getenv func(string) string) (C, error)) func(func(string) string) error {
	return func(getenv func(string) string) error {
		_, err := fromEnv(getenv)
		return err
	}
}
