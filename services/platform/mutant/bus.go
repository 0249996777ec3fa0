package mutant

// The consistency of what the services decide on.
const (
	// BusLeaderRead is the bus's reading of a bucket with several replicas
	// through the stream leader (bus.Conn.KeyValue): switched off, a Get is
	// a direct get again, which a replica that is behind may answer.
	BusLeaderRead = "bus.leader_read"
	// BusPlacementRetry is Provision's waiting for a forming cluster's peers:
	// switched off, a replicated stream refused for want of peers online
	// fails the start at once.
	BusPlacementRetry = "bus.placement_retry"
	// GateStateRetry is the gate's redelivering of a review whose action
	// ledger, release ledger or freezes could not be read (no stream
	// leader, a timeout): switched off, the first unreadable read fails its
	// check closed, and a partition costs a right rollback.
	GateStateRetry = "gate.state_retry"
)

// Bus lists the bus's mutants and the test that kills each.
var Bus = []Mutant{
	{Name: BusLeaderRead, Check: "a clustered bucket is read through its stream leader, never from a replica that may be behind",
		KilledBy: "test:services/platform:./bus:TestClusteredBucketIsReadThroughTheLeader"},
	{Name: BusPlacementRetry, Check: "provisioning waits for a forming cluster's peers (a placement refused for want of peers online is retried until the deadline)",
		KilledBy: "test:services/platform:./bus:TestProvisionWaitsForTheClusterToForm"},
	{Name: GateStateRetry, Check: "a review whose action ledger, release ledger or freezes could not be read is redelivered, and fails closed only on its last delivery",
		KilledBy: "test:services/gate:./internal/natsport:TestUnreadableStateIsReadAgain"},
}
