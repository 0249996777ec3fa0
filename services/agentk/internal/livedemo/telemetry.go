package livedemo

// telemetry.go: the live telemetry store (a local stand-in for SigNoz fed by
// the demo target's real OTLP and by the deployer's deployment markers), the
// markers in it, and the backfill that gives the onset detector a past.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"time"

	"agentk/cmd/agentk/internal/harness"
	"agentk/cmd/agentk/livesignoz"
	"agentk/contracts/incident"
)

// telemetryStore starts the live store: OTLP in on the network's gateway
// (only from the project's subnet) for the containers, and on loopback for
// the deployer in this process (its deployment markers); SigNoz's query API
// out on loopback (for the sandbox only).
func (d *demo) telemetryStore(context.Context) error {
	d.apiKey = "live-" + harness.RandHex(12)
	// A connection from this host to the gateway address need not come
	// from inside the subnet (its source is the host's choice): the
	// deployer posts to the loopback listener instead.
	d.store = livesignoz.New(d.apiKey, func(ip net.IP) bool { return d.subnet.Contains(ip) || ip.IsLoopback() })
	var err error
	if d.otlpURL, err = d.serveOTLP(d.gw.String()); err != nil {
		return fmt.Errorf("demo --live: listen on the compose network's gateway %s: %w", d.gw, err)
	}
	if d.markerURL, err = d.serveOTLP("127.0.0.1"); err != nil {
		return err
	}
	sigURL, stopSig, err := harness.Serve(d.store.Query())
	if err != nil {
		return err
	}
	d.sigURL = sigURL
	d.cleanups = append(d.cleanups, stopSig)
	d.p.step("live telemetry store: a LOCAL STAND-IN FOR SIGNOZ, fed by the demo target's real OTLP and the deployer's markers")
	d.p.note("OTLP/HTTP in at %s (the compose network's gateway; only %s may send) and at %s (the deployer's markers), SigNoz's query API out at %s",
		d.otlpURL, d.subnet, d.markerURL, sigURL)
	return nil
}

// serveOTLP serves the store's OTLP receiver on host and returns its URL.
func (d *demo) serveOTLP(host string) (string, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: d.store.OTLP(), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	d.cleanups = append(d.cleanups, func() { _ = srv.Close() })
	return "http://" + l.Addr().String(), nil
}

// shortcuts are the demo's two shortcuts, said out loud: the live store has
// no past, and the sandbox measures the onset against a baseline one to two
// hours before the alert; and the onset is measured in whole minutes.
func (d *demo) shortcuts(ctx context.Context) error {
	p := d.p
	d.res.BackfilledSpans = backfill(d.store, d.warmFrom, d.warmTo, time.Now())
	p.step("DEMO SHORTCUT — history: the onset detector compares each minute with a baseline 1–2 h before the alert, which a")
	p.note("fresh store cannot have; %d copies of v1's real spans from the warm-up were laid back over [now−2h05m, now−55m],", d.res.BackfilledSpans)
	p.note("new ids, resource agentk.demo.backfill=true. Nothing after the warm-up is copied or invented.")
	boundary := d.marker.Truncate(time.Minute).Add(time.Minute + time.Second)
	p.step("DEMO SHORTCUT — timing: the onset is measured in whole minutes; load resumes at %s so the deploy's own", boundary.Format("15:04:05"))
	p.note("minute holds no v2 errors and the marker precedes the onset (in production the marker precedes the alert by minutes)")
	if err := waitUntil(ctx, boundary); err != nil {
		return err
	}
	d.load.pause(false)
	d.v2From = time.Now()
	return nil
}

// isMarker reports whether s is a deployment marker of version of service
// (not a backfilled copy).
func isMarker(s incident.Span, service, version string) bool {
	var v string
	_ = json.Unmarshal(s.Attributes["deployment.version"], &v)
	return s.Name == "deployment.marker" && s.Service() == service && v == version && s.Resource["agentk.demo.backfill"] == ""
}

// hasSpan reports whether any span of service (not a marker, not
// backfilled) arrived.
func hasSpan(st *livesignoz.Store, service string) bool {
	return len(st.Spans(func(s incident.Span) bool {
		return s.Service() == service && s.Name != "deployment.marker" && s.Resource["agentk.demo.backfill"] == ""
	})) > 0
}

func hasMarker(st *livesignoz.Store, service, version string) bool {
	return len(st.Spans(func(s incident.Span) bool { return isMarker(s, service, version) })) > 0
}

func latestMarker(st *livesignoz.Store, service, version string) time.Time {
	var at time.Time
	for _, s := range st.Spans(func(s incident.Span) bool { return isMarker(s, service, version) }) {
		if s.Timestamp.After(at) {
			at = s.Timestamp
		}
	}
	return at
}

// backfill lays copies of the real spans of the demo's services (Service,
// and Origin when it runs) received in [from, to) (markers excepted) back over [now−2h05m, now−55m], tile after tile, with new ids
// and the resource attribute agentk.demo.backfill=true. It returns how many.
func backfill(st *livesignoz.Store, from, to, now time.Time) int {
	seed := st.Spans(func(s incident.Span) bool {
		return (s.Service() == Service || s.Service() == Origin) && s.Name != "deployment.marker" && !s.Timestamp.Before(from) && s.Timestamp.Before(to)
	})
	w := to.Sub(from)
	if len(seed) == 0 || w < time.Second {
		return 0
	}
	lo, hi := now.Add(-2*time.Hour-5*time.Minute), now.Add(-55*time.Minute)
	var out []incident.Span
	for tile, start := 0, lo; start.Before(hi); tile, start = tile+1, start.Add(w) {
		for _, s := range seed {
			c := s
			c.Timestamp = start.Add(s.Timestamp.Sub(from))
			if !c.Timestamp.Before(hi) {
				continue
			}
			c.TraceID, c.SpanID, c.ParentSpanID = tileID(tile, s.TraceID, 16), tileID(tile, s.SpanID, 8), tileID(tile, s.ParentSpanID, 8)
			c.Resource = map[string]string{"agentk.demo.backfill": "true"}
			for k, v := range s.Resource {
				c.Resource[k] = v
			}
			out = append(out, c)
		}
	}
	st.Add(out...)
	return len(out)
}

// tileID is the id of a copy of id in backfill tile tile: n bytes, hex; an
// empty id stays empty.
func tileID(tile int, id string, n int) string {
	if id == "" {
		return ""
	}
	h := sha256.Sum256([]byte(fmt.Sprintf("%d/%s", tile, id)))
	return hex.EncodeToString(h[:n])
}
