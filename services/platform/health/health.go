// Package health serves liveness and readiness for agentk services:
// /healthz answers 200 while the process runs; /readyz answers 200 once the
// service called Ready and its bus connection is up, 503 otherwise. The
// combined binary mounts one Checker per service under /<service>/.
package health

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Checker is one service's health.
type Checker struct {
	name      string
	ready     atomic.Bool
	connected func() bool
	restarts  atomic.Int64

	mu       sync.Mutex
	problems map[string]string
	lastErr  string
	mode     string
}

// New returns the checker of service name. connected reports whether the
// service's bus connection is up (bus.Conn.Connected); nil means no bus.
func New(name string, connected func() bool) *Checker {
	return &Checker{name: name, connected: connected}
}

// Ready marks the service ready: it consumes and serves. It is what
// service.Deps.Ready should call.
func (c *Checker) Ready() { c.ready.Store(true) }

// NotReady marks the service not ready again (for example while it drains).
func (c *Checker) NotReady() { c.ready.Store(false) }

// Dependency records the state of one outside dependency the service
// checked (Slack accepting the bot token, SigNoz accepting the key): err nil
// means it answered as it should. While any dependency is failing the
// service is not ready, and /readyz names the dependency and its error, so
// a broken credential is visible instead of every incident quietly going
// nowhere. It is what service.Deps.Dependency should call.
func (c *Checker) Dependency(name string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil {
		delete(c.problems, name)
		return
	}
	if c.problems == nil {
		c.problems = map[string]string{}
	}
	c.problems[name] = err.Error()
}

// Mode records the service's part among its replicas (the deployer's
// "leader" or "standby"), shown at /readyz. It does not change readiness: a
// standby is ready to take over. It is what service.Deps.Mode should call.
func (c *Checker) Mode(mode string) {
	c.mu.Lock()
	c.mode = mode
	c.mu.Unlock()
}

// Stopped marks the service not ready because it stopped on its own with
// err (its router stopped, its server failed), and counts the restart its
// supervisor is about to make. /readyz shows both until the service is
// ready again; the count and the last error stay.
func (c *Checker) Stopped(err error) {
	c.ready.Store(false)
	c.restarts.Add(1)
	c.mu.Lock()
	if err != nil {
		c.lastErr = err.Error()
	}
	c.mu.Unlock()
}

// Status is the /readyz body.
type Status struct {
	Service   string `json:"service"`
	Ready     bool   `json:"ready"`
	Started   bool   `json:"started"`
	Connected bool   `json:"bus_connected"`
	// Failing names each failing dependency with its last error.
	Failing map[string]string `json:"failing,omitempty"`
	// Restarts counts how often the service stopped on its own and was
	// restarted; LastError is why it stopped the last time.
	Restarts  int64  `json:"restarts,omitempty"`
	LastError string `json:"last_error,omitempty"`
	// Mode is the service's part among its replicas, when it has one: the
	// deployer's "leader" (it acts) or "standby".
	Mode string `json:"mode,omitempty"`
}

// Reason says in words why s is not ready, every cause at once, in a fixed
// order: each failing dependency with its error (sorted by name), a bus that
// is not connected, a service that has not started (or stopped: its last
// error). It is "" for a ready status. Operators read it in `agentk
// incidents` and `agentk config`, so it names the real cause rather than
// the restart count.
func (s Status) Reason() string {
	if s.Ready {
		return ""
	}
	var parts []string
	names := make([]string, 0, len(s.Failing))
	for k := range s.Failing {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		parts = append(parts, k+": "+s.Failing[k])
	}
	if !s.Connected {
		parts = append(parts, "not connected to NATS")
	}
	switch {
	case !s.Started && s.LastError != "":
		parts = append(parts, "stopped: "+s.LastError)
	case !s.Started:
		parts = append(parts, "not started yet")
	}
	if len(parts) == 0 {
		return "not ready"
	}
	return strings.Join(parts, "; ")
}

// Status returns the current readiness.
func (c *Checker) Status() Status {
	s := Status{Service: c.name, Started: c.ready.Load(), Connected: c.connected == nil || c.connected(), Restarts: c.restarts.Load()}
	c.mu.Lock()
	if len(c.problems) > 0 {
		s.Failing = make(map[string]string, len(c.problems))
		for k, v := range c.problems {
			s.Failing[k] = v
		}
	}
	s.LastError = c.lastErr
	s.Mode = c.mode
	c.mu.Unlock()
	s.Ready = s.Started && s.Connected && len(s.Failing) == 0
	return s
}

// Handler serves /healthz and /readyz relative to where it is mounted.
func (c *Checker) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		writeStatus(w, []Status{c.Status()})
	})
	return mux
}

func writeStatus(w http.ResponseWriter, ss []Status) {
	code := http.StatusOK
	for _, s := range ss {
		if !s.Ready {
			code = http.StatusServiceUnavailable
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	var body any = ss
	if len(ss) == 1 {
		body = ss[0]
	}
	_ = json.NewEncoder(w).Encode(body)
}

// Mux serves several services' checkers in one process: /<service>/healthz,
// /<service>/readyz, and /healthz and /readyz for the whole process (ready
// when every service is).
type Mux struct {
	mu       sync.RWMutex
	checkers map[string]*Checker
	mux      *http.ServeMux
}

// NewMux returns an empty Mux.
func NewMux() *Mux {
	m := &Mux{checkers: map[string]*Checker{}, mux: http.NewServeMux()}
	m.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok\n"))
	})
	m.mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		writeStatus(w, m.statuses())
	})
	return m
}

// Add mounts c under /<name>/ and returns it. Adding the same name twice
// panics: it is a wiring mistake.
func (m *Mux) Add(c *Checker) *Checker {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.checkers[c.name]; dup {
		panic("health: duplicate service " + c.name)
	}
	m.checkers[c.name] = c
	prefix := "/" + strings.Trim(c.name, "/")
	m.mux.Handle(prefix+"/", http.StripPrefix(prefix, c.Handler()))
	return c
}

// Statuses returns every service's readiness, sorted by name.
func (m *Mux) Statuses() []Status { return m.statuses() }

func (m *Mux) statuses() []Status {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]Status, 0, len(m.checkers))
	for _, c := range m.checkers {
		out = append(out, c.Status())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Service < out[j].Service })
	if len(out) == 0 {
		return []Status{{Service: "agentk"}}
	}
	return out
}

// ServeHTTP implements http.Handler.
func (m *Mux) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.mux.ServeHTTP(w, r) }
