package mutant

// The consistency of what the services decide on.
const (
	// BusLeaderRead is the bus's reading of a bucket with several replicas
	// through the stream leader (bus.Conn.KeyValue): switched off, a Get is
	// a direct get again, which a replica that is behind may answer.
	BusLeaderRead = "bus.leader_read"
)

// Bus lists the bus's mutants and the test that kills each.
var Bus = []Mutant{
	{Name: BusLeaderRead, Check: "a clustered bucket is read through its stream leader, never from a replica that may be behind",
		KilledBy: "test:services/platform:./bus:TestClusteredBucketIsReadThroughTheLeader"},
}
