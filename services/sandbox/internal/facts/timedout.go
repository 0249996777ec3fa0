package facts

import (
	"time"

	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// TimedOutPeers returns the peers among peers whose failed outbound spans
// of svc since the onset, in rows, number at least MinFaultCalls and more
// than half of them say the caller gave up waiting (callerTimeout): the
// service's failures over them are its own give-up on a dependency that did
// not answer in time, whatever text it wraps them in (the ledger outage twin
// of sig-retryablehttp-ledger-sync, e2e/retryablehttp_twin_test.go, with
// "ledger sync failed" over the client's "upstream timed out after
// retries"). Peers are named as DependencyFaults names them.
func TimedOutPeers(rows []signoz.RawRow, svc string, onset time.Time, peers, keys []string) []string {
	if mutant.Off(mutant.SandboxTimedOutPeers) {
		return nil
	}
	return judgeFaults(rows, svc, onset, peers, keys, callerTimeout)
}
