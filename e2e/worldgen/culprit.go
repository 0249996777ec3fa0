package worldgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"
)

// The culprit shapes (issue 33, DESIGN.md rule 17: the alerted service is not
// always the one that changed). A culprit world's alerted service calls a
// chain of services one or more hops deep; where its new failures begin, and
// which service released what when, is the shape. Each world carries
// expect.culprit: what a correct pipeline decides about rolling back the
// service where the failures begin (or, in the trap, the released callee).
const (
	// ShapeCalleeBroke: the alerted service's callee released and broke:
	// allow on the callee, deny on the alerted service.
	ShapeCalleeBroke Variant = "culprit-callee-released-and-broke"
	// ShapeNotOrigin: a callee released before the onset, but its failing
	// spans carry only a small share of the alerted service's failures; the
	// rest begin in the alerted service's own call to a third party. Deny
	// both: the trap for an origin without a share threshold.
	ShapeNotOrigin Variant = "culprit-callee-released-not-the-origin"
	// ShapeTwoHops: the failures begin two hops down (a callee's callee),
	// which released and broke: allow on it.
	ShapeTwoHops Variant = "culprit-two-hops-down"
	// ShapeOriginOutOfScope: as ShapeCalleeBroke (one or two hops), the
	// origin outside sandbox_services: deny (sandbox_scope).
	ShapeOriginOutOfScope Variant = "culprit-origin-out-of-scope"
	// ShapeOriginCooldown: as ShapeCalleeBroke, a rollback of the origin
	// minutes ago in the ledger: deny (cooldown).
	ShapeOriginCooldown Variant = "culprit-origin-in-cooldown"
	// ShapeSlowChild: the alerted service released minutes before the onset,
	// but a child that released nothing slowed down: deny both.
	ShapeSlowChild Variant = "culprit-caller-released-slow-child"
)

// CulpritShapes are the six shapes, in the order DrawCulprit cycles them.
var CulpritShapes = []Variant{ShapeCalleeBroke, ShapeNotOrigin, ShapeTwoHops, ShapeOriginOutOfScope, ShapeOriginCooldown, ShapeSlowChild}

// Chain is the call chain of a culprit world below its alerted service.
type Chain struct {
	Shape Variant
	// Hops are the services the alerted one calls, nearest first: the
	// alerted service calls Hops[0], Hops[i] calls Hops[i+1].
	Hops []string
	// Origin is the index in Hops of the service where the failures begin
	// (ShapeNotOrigin: the released callee that carries the small share).
	Origin int
	// Share is the share of the alerted service's failing requests since the
	// onset whose failure begins at Hops[Origin]; the rest begin in the
	// alerted service itself (its own error, or its call to a third party).
	Share float64
	// FailP is the share of the alerted service's requests that fail once
	// the regression is under way; Slow the slow child's latency factor.
	FailP float64
	Slow  float64
	// GRPC: the hops speak gRPC (rpc.* attributes) rather than HTTP.
	GRPC bool
	// Gateway: requests reach the alerted service through Topo.Caller.
	Gateway float64
	// ThirdParty is the host of the alerted service's third-party API.
	ThirdParty string
	// PriorAt is the rollback of the origin in the ledger (ShapeOriginCooldown).
	PriorAt time.Time
}

var (
	chainAlerted = []string{"checkout-api", "order-gateway", "quote-engine", "signup-flow", "answer-engine", "booking-api", "cart-svc", "trip-planner"}
	chainHops    = []string{"payment-core", "risk-engine", "inventory-svc", "price-oracle", "token-vault", "recs-ranker", "ledger-writer", "tax-calc", "fraud-score", "geo-resolver", "doc-retriever", "profile-store"}
	thirdParties = []string{"api.stripe.com", "api.twilio.com", "maps.partner-geo.example", "api.sendgrid.com", "checkout-test.adyen.com"}
)

// DrawCulprit returns culprit world number i of seed: its shape is
// CulpritShapes[i%6]; everything else (hop count, share, services, timings,
// traffic, sampling, transport, marker style) is drawn.
func DrawCulprit(seed uint64, i int) World {
	r := rand.New(rand.NewPCG(seed^0x33c0, uint64(i)*0x9e3779b97f4a7c15+33))
	shape := CulpritShapes[i%len(CulpritShapes)]
	w := World{Index: i, Seed: seed, Variants: []Variant{shape}}
	c := &Chain{Shape: shape, GRPC: r.Float64() < 0.4, Gateway: 0.3 + r.Float64()*0.6, ThirdParty: pick(r, thirdParties)}
	hops := 1 + r.IntN(3)
	switch shape {
	case ShapeTwoHops:
		hops, c.Origin = 2+r.IntN(2), 1
	case ShapeOriginOutOfScope, ShapeOriginCooldown, ShapeSlowChild:
		hops = 1 + r.IntN(3)
		c.Origin = r.IntN(min(hops, 2))
	}
	perm := r.Perm(len(chainHops))
	for h := 0; h < hops; h++ {
		c.Hops = append(c.Hops, chainHops[perm[h]])
	}
	c.FailP = 0.3 + r.Float64()*0.6
	c.Slow = 4 + r.Float64()*10
	switch shape {
	case ShapeNotOrigin:
		c.Share = 0.05 + r.Float64()*0.25
		w.Class = "dependency_outage"
	case ShapeSlowChild:
		c.Share = 1
		w.Class = "retrieval_latency"
	default:
		c.Share = 0.7 + r.Float64()*0.3
		w.Class = pick(r, []string{"bad_release", "bad_release", "config_regression"})
	}
	w.Chain = c
	w.Topo = chainTopology(r, c)
	w.Semconv = SemconvOld
	if r.Float64() < 0.5 {
		w.Semconv = SemconvNew
	}
	w.MarkerStyle = r.IntN(markerStyles)
	w.drawChainTimeline(r)
	w.drawChainTraffic(r)
	w.drawChainDeploys(r)
	w.BurnRate = math.Round((1.5+r.Float64()*30)*10) / 10
	if shape == ShapeOriginCooldown {
		c.PriorAt = w.Now.Add(-time.Duration(60+r.IntN(500)) * time.Second).Truncate(time.Second)
	}
	w.Expect = expect(w)
	w.Expect.Culprit = chainCulprit(c)
	w.ID = fmt.Sprintf("s%d-k%02d-%s-%s", seed, i, strings.TrimPrefix(string(shape), "culprit-"), w.Topo.Affected)
	return w
}

// GenerateCulprit draws n culprit worlds from seed.
func GenerateCulprit(seed uint64, n int) []World {
	ws := make([]World, n)
	for i := range ws {
		ws[i] = DrawCulprit(seed, i)
	}
	return ws
}

// chainCulprit is expect.culprit of a shape: allow only where the service
// where the failures begin released, broke, and passes its own checks.
func chainCulprit(c *Chain) *incident.Culprit {
	origin := c.Hops[c.Origin]
	switch c.Shape {
	case ShapeCalleeBroke, ShapeTwoHops:
		return &incident.Culprit{Service: origin, Verdict: contracts.VerdictAllow}
	}
	return &incident.Culprit{Service: origin, Verdict: contracts.VerdictDeny}
}

// chainTopology is the topology of a culprit world: the alerted service, the
// gateway that calls it, the first hop as its callee, a neighbour.
func chainTopology(r *rand.Rand, c *Chain) Topology {
	t := Topology{Project: pick(r, projects), Lang: pick(r, langs), Kind: CalleeInternal}
	t.Registry = fmt.Sprintf(pick(r, registries), t.Project)
	t.Caller = pick(r, callers)
	t.Neighbour = pick(r, neighbours)
	t.HostPort = pick(r, []int{8080, 8000, 9000, 3000, 5000})
	for t.Affected == "" || slices.Contains(c.Hops, t.Affected) {
		t.Affected = pick(r, chainAlerted)
	}
	t.Callee, t.CalleeHost = c.Hops[0], c.Hops[0]
	routes := [][]string{{"POST", "/api/checkout"}, {"GET", "/api/quote"}, {"POST", "/v1/answer"}, {"POST", "/api/orders"}, {"GET", "/api/items/{id}"}}
	perm := r.Perm(len(routes))
	n := 1 + r.IntN(3)
	total := 0.0
	for i := 0; i < n; i++ {
		e := Endpoint{Method: routes[perm[i]][0], Route: routes[perm[i]][1], Share: 0.5 + r.Float64(), BaseMs: 10 + r.Float64()*80, UsesCallee: true}
		total += e.Share
		t.Endpoints = append(t.Endpoints, e)
	}
	for i := range t.Endpoints {
		t.Endpoints[i].Share /= total
	}
	t.CallerRoute = pick(r, []string{"/", "/app/*", "/graphql", "/api/v2/*"})
	t.NeighbourRoutes = []string{"/send", "/status"}
	return t
}

// drawChainTimeline places the recording (25 min to 3 h), the onset 6 to 16
// minutes before now, the alert between them.
func (w *World) drawChainTimeline(r *rand.Rand) {
	length := time.Duration(logUniform(r, 25, 180) * float64(time.Minute)).Round(time.Second)
	base := time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(w.Index) * 26 * time.Hour)
	w.Now = base.Add(time.Duration(6*3600+r.IntN(12*3600)) * time.Second)
	since := time.Duration(6*60+r.IntN(10*60)) * time.Second
	w.Onset = w.Now.Add(-since).Truncate(time.Second)
	w.StartsAt = w.Onset.Add(time.Duration(60+r.Int64N(int64(since/time.Second)-90)) * time.Second)
	if min := w.Now.Sub(w.Onset) + 20*time.Minute; length < min {
		length = min
	}
	w.Start = w.Now.Add(-length)
}

// drawChainTraffic draws the offered load and the sampler as Draw does, then
// keeps the stored traces between what the origin needs (at least 10 failing
// traces of the alerted service expected since the onset) and ≈900 in all.
func (w *World) drawChainTraffic(r *rand.Rand) {
	samplers := []int{1, 2, 4, 5, 8, 10, 16, 20, 32, 50, 64, 100}
	w.Sampling = pick(r, samplers)
	w.Rate = logUniform(r, 0.1, 500)
	minutes := w.Duration().Minutes()
	since := w.Now.Sub(w.Onset).Minutes()
	stored := w.Rate * 60 / float64(w.Sampling)
	floor := math.Max(minStoredPerMinute, 10/(since*w.Chain.FailP*0.9))
	stored = math.Max(floor, math.Min(stored, 900/minutes))
	w.Rate = math.Ceil(stored*float64(w.Sampling)/60*100) / 100
}

// drawChainDeploys places the releases the shape calls for: the origin's
// (or the trap callee's) 1 to 20 minutes before the onset, or the alerted
// service's (ShapeSlowChild). Now and then an unrelated neighbour deploys too.
func (w *World) drawChainDeploys(r *rand.Rand) {
	c := w.Chain
	old, cur := versionPair(r, w.MarkerStyle)
	w.Versions = []string{olderVersion(old), old}
	at := w.Onset.Add(-time.Duration(60+r.IntN(19*60)) * time.Second).Truncate(time.Second)
	if c.Shape == ShapeSlowChild {
		w.Deploys = append(w.Deploys, Deploy{Service: w.Topo.Affected, Version: cur, Previous: old, At: at})
		w.Versions = append(w.Versions, cur)
	} else {
		o, n := versionPair(r, w.MarkerStyle)
		w.Deploys = append(w.Deploys, Deploy{Service: c.Hops[c.Origin], Version: n, Previous: o, At: at})
	}
	if r.Float64() < 0.3 {
		o, n := versionPair(r, w.MarkerStyle)
		w.Deploys = append(w.Deploys, Deploy{Service: w.Topo.Neighbour, Version: n, Previous: o,
			At: w.Onset.Add(-time.Duration(r.IntN(40)) * time.Minute).Truncate(time.Second)})
	}
	for _, d := range w.Deploys {
		if d.At.Before(w.Start.Add(5 * time.Minute)) {
			w.Start = d.At.Add(-time.Duration(10+r.IntN(20)) * time.Minute)
		}
	}
	slices.SortFunc(w.Deploys, func(a, b Deploy) int { return a.At.Compare(b.At) })
}

// deployOf returns svc's deploy in the world, if any.
func (w World) deployOf(svc string) (Deploy, bool) {
	for _, d := range w.Deploys {
		if d.Service == svc {
			return d, true
		}
	}
	return Deploy{}, false
}

// chainEmitter writes a culprit world's traces.
type chainEmitter struct {
	*emitter
	// failures counts the alerted service's failing requests since the
	// onset, so that exactly Share of them begin at the origin, evenly
	// spread (any window of the latest failures holds the share).
	failures int
	base     []float64
}

// emitChain generates a culprit world's telemetry.
func emitChain(w World) Telemetry {
	e := &chainEmitter{emitter: newEmitter(w)}
	e.sevStyle = e.r.IntN(3)
	e.pidBefore = 1000 + e.r.IntN(60000)
	e.pidAfter = e.pidBefore
	e.hostName = fmt.Sprintf("%s-%x", w.Topo.Affected, e.r.Uint32()&0xfffff)
	e.runtimeVer = map[string]string{"go": "go1.23.4", "java": "21.0.5", "python": "3.12.7", "nodejs": "20.18.1", "dotnet": "8.0.11"}[w.Topo.Lang]
	e.baseErrP = 0.002 + e.r.Float64()*0.006
	e.excType, e.excMsg = exceptionFor(e.r, w.Topo.Lang, "bad_release", w.Topo)
	for range w.Chain.Hops {
		e.base = append(e.base, 4+e.r.Float64()*40)
	}
	e.deployMarkers()
	per := w.StoredPerMinute()
	for m := w.Start.Truncate(time.Minute); m.Before(w.Now); m = m.Add(time.Minute) {
		for i, n := 0, e.poisson(per); i < n; i++ {
			t := m.Add(time.Duration(e.r.Int64N(int64(time.Minute))))
			if t.Before(w.Start) || !t.Before(w.Now) {
				continue
			}
			e.chainRequest(t)
		}
		for i, n := 0, e.poisson(math.Max(0.5, per*0.1)); i < n; i++ {
			t := m.Add(time.Duration(e.r.Int64N(int64(time.Minute))))
			if !t.Before(w.Start) && t.Before(w.Now) {
				e.neighbour(t)
			}
		}
		e.deployLogs(m)
	}
	e.out.Spans = slices.DeleteFunc(e.out.Spans, func(s SpanRec) bool { return s.at.Add(time.Duration(s.DurationNano)).After(w.Now) })
	e.out.Logs = slices.DeleteFunc(e.out.Logs, func(l LogRec) bool { return l.at.After(w.Now) })
	slices.SortStableFunc(e.out.Spans, func(a, b SpanRec) int { return a.at.Compare(b.at) })
	slices.SortStableFunc(e.out.Logs, func(a, b LogRec) int { return a.at.Compare(b.at) })
	return e.out
}

// chainFault is where one request's failure begins: depth 0 is the alerted
// service, depth d>0 is Hops[d-1]; -1 none. thirdParty: the alerted
// service's call to its third party fails (ShapeNotOrigin's own failures).
type chainFault struct {
	depth      int
	thirdParty bool
	slowDepth  int // the depth whose own work is slow, -1 none
}

// fault draws where a request at t fails.
func (e *chainEmitter) fault(t time.Time) chainFault {
	w, c := e.w, e.w.Chain
	f := chainFault{depth: -1, slowDepth: -1}
	if t.Before(w.Onset) {
		if e.r.Float64() < e.baseErrP {
			f.depth = 0
		}
		return f
	}
	if c.Shape == ShapeSlowChild {
		if e.r.Float64() < 0.7+0.3*c.FailP {
			f.slowDepth = c.Origin + 1
		}
		return f
	}
	if e.r.Float64() >= c.FailP {
		return f
	}
	atOrigin := math.Floor(float64(e.failures+1)*c.Share) > math.Floor(float64(e.failures)*c.Share)
	e.failures++
	switch {
	case atOrigin:
		f.depth = c.Origin + 1
	case c.Shape == ShapeNotOrigin:
		f.depth, f.thirdParty = 0, true
	default:
		f.depth = 0
	}
	return f
}

// chainRequest writes one stored trace through the alerted service and down its chain.
func (e *chainEmitter) chainRequest(t time.Time) {
	w, r := e.w, e.r
	trace := e.hex(32)
	f := e.fault(t)
	ep := e.endpoint()
	if r.Float64() < w.Chain.Gateway {
		rootID, clientID := e.hex(16), e.hex(16)
		start := t.Add(time.Duration(1+r.IntN(4)) * time.Millisecond)
		d, failed, msg := e.serve(0, trace, clientID, start, ep, f)
		o := outcome{status: 200, fail: failed, msg: msg}
		if failed {
			o.status = 500
		}
		e.callerSpans(trace, rootID, clientID, t, d, ep, o)
		return
	}
	e.serve(0, trace, "", t, ep, f)
}

// serviceAt is the service at depth d of the chain.
func (e *chainEmitter) serviceAt(d int) string {
	if d == 0 {
		return e.w.Topo.Affected
	}
	return e.w.Chain.Hops[d-1]
}

// versionAt is svc's version at t: its new one once deployed.
func (e *chainEmitter) versionAt(svc string, t time.Time) string {
	w := e.w
	if d, ok := w.deployOf(svc); ok {
		if t.Before(d.At) {
			return d.Previous
		}
		return d.Version
	}
	if svc == w.Topo.Affected {
		return w.NewVersion()
	}
	return "r" + fmt.Sprint(40+(len(svc)+w.Index)%9)
}

// serve writes the server span of the service at depth d (and, beneath it,
// its calls) and returns its duration, whether it failed and why.
func (e *chainEmitter) serve(d int, trace, parent string, at time.Time, ep int, f chainFault) (time.Duration, bool, string) {
	w, r := e.w, e.r
	c := w.Chain
	svc := e.serviceAt(d)
	v := e.versionAt(svc, at)
	id := e.hex(16)
	own := e.lognormal(20)
	if d == 0 {
		own = e.lognormal(w.Topo.Endpoints[ep].BaseMs)
	} else {
		own = e.lognormal(e.base[d-1])
	}
	cursor := at.Add(time.Duration(1+r.IntN(2)) * time.Millisecond)
	var children time.Duration
	failed, msg := false, ""
	// The alerted service's own third-party call, on some requests.
	if d == 0 && (f.thirdParty || r.Float64() < 0.3) {
		cd := e.lognormal(60)
		if f.thirdParty {
			cd = time.Duration(2+r.IntN(30)) * time.Second
		}
		url := "https://" + c.ThirdParty + "/v1/" + pick(r, []string{"charges", "messages", "geocode", "send"})
		cs := e.span(trace, e.hex(16), id, "POST", kindClient, cursor, cd, e.resource(svc, v, cursor),
			httpClientAttrs(w.Semconv, "POST", url, c.ThirdParty, 443, 0, strings.SplitN(c.ThirdParty, ".", 3)[1]))
		if f.thirdParty {
			setStatusAttr(w.Semconv, cs.Attributes, 503, true)
			cs.fail("503 Service Unavailable from " + c.ThirdParty)
			failed, msg = true, "upstream "+c.ThirdParty+" unavailable"
		} else {
			setStatusAttr(w.Semconv, cs.Attributes, 200, false)
		}
		cursor, children = cursor.Add(cd), children+cd
	}
	// A configuration regression at the origin: its call to its store fails.
	if f.depth == d && d > 0 && w.Class == "config_regression" {
		host := svc + "-store.old-cluster.local"
		cs := e.span(trace, e.hex(16), id, "connect", kindClient, cursor, 2*time.Millisecond, e.resource(svc, v, cursor),
			map[string]any{"server.address": host, "error.type": "dns_error"})
		cs.fail("dial tcp: lookup " + host + ": no such host")
		failed, msg = true, "dial tcp: lookup "+host+": no such host"
		cursor, children = cursor.Add(2*time.Millisecond), children+2*time.Millisecond
	}
	if !failed && d < len(c.Hops) {
		next := e.serviceAt(d + 1)
		cid := e.hex(16)
		cd, cfailed, cmsg := e.serve(d+1, trace, cid, cursor.Add(time.Millisecond), ep, f)
		cd += time.Duration(1+r.IntN(3)) * time.Millisecond
		name, attrs := e.hopCall(next, cfailed)
		cs := e.span(trace, cid, id, name, kindClient, cursor, cd, e.resource(svc, v, cursor), attrs)
		if cfailed {
			cs.fail(cmsg)
			failed, msg = true, fmt.Sprintf("call to %s failed: %s", next, cmsg)
		}
		children += cd
	}
	if f.depth == d && !failed {
		failed, msg = true, e.excMsg
		if d == 0 {
			msg = e.genericError()
		}
	}
	dur := own + children
	if f.slowDepth == d {
		// The slow child's whole span grows by the slowdown: its own work
		// (a query, an index scan) dominates the caller's latency.
		dur = time.Duration(float64(dur) * c.Slow * (0.8 + r.Float64()*0.4))
	}
	name, attrs := e.hopServe(d, ep, failed)
	s := e.span(trace, id, parent, name, kindServer, at, dur, e.resource(svc, v, at), attrs)
	if failed {
		s.fail(msg)
		if f.depth == d {
			s.Events = []Event{{Name: "exception", Timestamp: ts(at.Add(dur)), Attributes: map[string]any{
				"exception.type": e.excType, "exception.message": msg, "exception.stacktrace": stackFor(w.Topo.Lang, e.excType, msg)}}}
			e.log(at.Add(dur), sevError, msg, trace, id, svc, v, map[string]any{"exception.type": e.excType, "exception.message": msg})
		}
	}
	return dur, failed, msg
}

// hopServe names the server span of depth d and its attributes.
func (e *chainEmitter) hopServe(d, ep int, failed bool) (string, map[string]any) {
	w := e.w
	if d == 0 {
		epd := w.Topo.Endpoints[ep]
		return epd.Method + " " + epd.Route, httpServerAttrs(w.Semconv, epd.Method, epd.Route, map[bool]int{true: 500, false: 200}[failed], w.Topo.HostPort)
	}
	svc := e.serviceAt(d)
	if w.Chain.GRPC {
		name, attrs := grpcCall(svc, failed)
		return name, attrs
	}
	route := "/internal/" + strings.SplitN(svc, "-", 2)[0]
	return "POST " + route, httpServerAttrs(w.Semconv, "POST", route, map[bool]int{true: 500, false: 200}[failed], 8080)
}

// hopCall names the client span calling svc and its attributes.
func (e *chainEmitter) hopCall(svc string, failed bool) (string, map[string]any) {
	w := e.w
	if w.Chain.GRPC {
		name, attrs := grpcCall(svc, failed)
		attrs["server.address"], attrs["server.port"], attrs["peer.service"] = svc, 50051, svc
		return name, attrs
	}
	url := fmt.Sprintf("http://%s:8080/internal/%s", svc, strings.SplitN(svc, "-", 2)[0])
	attrs := httpClientAttrs(w.Semconv, "POST", url, svc, 8080, 0, svc)
	setStatusAttr(w.Semconv, attrs, map[bool]int{true: 500, false: 200}[failed], failed)
	return "POST", attrs
}

// grpcCall is the span name and rpc.* attributes of a gRPC call to svc.
func grpcCall(svc string, failed bool) (string, map[string]any) {
	pkg := strings.ReplaceAll(svc, "-", "")
	method := "Handle"
	name := pkg + ".v1." + strings.ToUpper(pkg[:1]) + pkg[1:] + "/" + method
	code := 0
	if failed {
		code = 13
	}
	return name, map[string]any{"rpc.system": "grpc", "rpc.service": pkg + ".v1." + strings.ToUpper(pkg[:1]) + pkg[1:], "rpc.method": method, "rpc.grpc.status_code": code}
}
