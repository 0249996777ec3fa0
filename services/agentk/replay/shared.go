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
	err  error
}

// telemetry returns inc's indexed telemetry, built once per incident (by
// pointer: a folder loaded twice is two incidents), or why inc's deferred
// telemetry could not be read: every replay of inc gets that error.
func (s *Shared) telemetry(inc *incident.Incident) (*fakesignoz.Telemetry, error) {
	if s == nil {
		return indexTelemetry(inc)
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
	e.once.Do(func() { e.t, e.err = indexTelemetry(inc) })
	return e.t, e.err
}

// indexTelemetry flattens and indexes inc's telemetry, reading it first
// when it was deferred (incident.LoadCorpusDeferred, what `agentk eval`
// loads): then the spans and logs read are the index's alone, and their
// rows are let go once indexed, so an eval holds the recordings of the
// incidents being replayed, not of its corpus. The fake SigNoz keeps of
// the incident it is given only what it serves besides the index (the
// alert and the rule), which the copy keeps.
func indexTelemetry(inc *incident.Incident) (*fakesignoz.Telemetry, error) {
	if !inc.Deferred() {
		return fakesignoz.NewTelemetry(inc), nil
	}
	full, err := inc.WithTelemetry()
	if err != nil {
		return nil, err
	}
	t := fakesignoz.NewTelemetry(full)
	full.Spans, full.Logs = nil, nil // indexed; full is this function's copy
	return t, nil
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
