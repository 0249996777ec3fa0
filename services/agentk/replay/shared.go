package replay

import (
	"sync"

	"agentk/contracts/incident"
	"agentk/services/sandbox/fakesignoz"
)

// Shared is what the replays of one eval build once and share: each
// incident's telemetry flattened and indexed for the fake SigNoz
// (fakesignoz.Telemetry), built the first time a replay of that incident
// needs it and read by every later one, whatever its investigator. Each
// replay still runs its own fake SigNoz server, embedded NATS server and
// services: they hold the replay's clock, keys and state, which must not
// leak from one replay into the next. Safe for concurrent use; the zero
// value is ready, and a nil *Shared shares nothing.
type Shared struct {
	mu  sync.Mutex
	tel map[*incident.Incident]*sharedTelemetry
	// release, set by Eval on the Shared it makes, lets an incident's
	// telemetry go once the eval's last replay of it finished (done).
	release bool
}

type sharedTelemetry struct {
	once sync.Once
	t    *fakesignoz.Telemetry
}

// telemetry returns inc's indexed telemetry, built once per incident (by
// pointer: a folder loaded twice is two incidents).
func (s *Shared) telemetry(inc *incident.Incident) *fakesignoz.Telemetry {
	if s == nil {
		return fakesignoz.NewTelemetry(inc)
	}
	s.mu.Lock()
	if s.tel == nil {
		s.tel = map[*incident.Incident]*sharedTelemetry{}
	}
	e := s.tel[inc]
	if e == nil {
		e = &sharedTelemetry{}
		s.tel[inc] = e
	}
	s.mu.Unlock()
	e.once.Do(func() { e.t = fakesignoz.NewTelemetry(inc) })
	return e.t
}

// done is told by Eval that the last of its replays of inc finished: the
// telemetry is let go when s releases (Eval's own), kept otherwise. A later
// replay of inc would build it again.
func (s *Shared) done(inc *incident.Incident) {
	if s == nil || !s.release {
		return
	}
	s.mu.Lock()
	delete(s.tel, inc)
	s.mu.Unlock()
}
