package policy

import (
	"fmt"
	"slices"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// FreezeState is what the adapter read from the freezes bucket (KV
// agentk_freezes) for the service and for contracts.FreezeGlobal. The zero
// value means both keys were read and hold nothing.
type FreezeState struct {
	// Err is non-empty when a key could not be read or its value failed the
	// bridge's signature: the freeze check then fails closed.
	Err string
	// Freezes are the verified latest values of both keys (set or lifted,
	// expired or not); Evaluate decides which hold now.
	Freezes []contracts.FreezeV1
}

// Shadowed reports whether decisions on svc are shadow decisions under cfg.
func Shadowed(cfg Config, svc string) bool {
	return cfg.ShadowAll || (svc != "" && slices.Contains(cfg.ShadowServices, svc))
}

// checkFreeze is the seventh check: no active freeze covers the service.
// An unreadable freeze store fails closed, like the cooldown.
func checkFreeze(in Input, svc string) contracts.CheckResult {
	inputs := map[string]string{"scopes": orUnknown(svc) + ", " + contracts.FreezeGlobal}
	var reasons []string
	if in.Freezes.Err != "" {
		inputs["store"] = "unreadable"
		reasons = append(reasons, "the freeze store could not be read or verified ("+in.Freezes.Err+"), so the service counts as frozen")
	}
	for _, f := range in.Freezes.Freezes {
		if !f.Covers(svc) || !f.HoldsAt(in.Now) {
			continue
		}
		scope := f.Scope
		if scope == contracts.FreezeGlobal {
			scope = "every service"
		}
		inputs["freeze."+f.Scope] = f.FreezeID
		reasons = append(reasons, fmt.Sprintf("freeze %s on %s by %s until %s: %s", f.FreezeID, scope, f.By, ttoa(f.ExpiresAt), f.Reason))
	}
	slices.Sort(reasons)
	if mutant.Off(mutant.GateFreeze) {
		reasons = nil
	}
	return result(contracts.CheckFreeze, reasons, "no active freeze on "+orUnknown(svc)+" or on every service", inputs)
}

func freezeNextStep(svc string) string {
	return "freeze: actions on " + orUnknown(svc) + " are frozen; act by hand under the freeze's rules, or lift it (`agentk unfreeze`) if it no longer applies."
}
