package worldgen

import (
	"fmt"
	"math/rand/v2"
)

// CalleeKind is what the affected service depends on in a world.
type CalleeKind string

// The dependency kinds. An instrumented callee writes its own server spans;
// the others are seen only through the affected service's client spans.
const (
	CalleeDB       CalleeKind = "db"       // a SQL database: db.* client spans and a pool
	CalleeInternal CalleeKind = "internal" // another service of the project, instrumented
	CalleeVector   CalleeKind = "vector"   // a vector index / search service, instrumented
	CalleeExternal CalleeKind = "external" // a third-party HTTP API, not instrumented
	CalleeLLM      CalleeKind = "llm"      // a model provider, gen_ai.* client spans
)

// Endpoint is one route of the affected service.
type Endpoint struct {
	Method, Route string
	// Share is the endpoint's fraction of the service's requests.
	Share float64
	// BaseMs is its median latency before the onset.
	BaseMs float64
	// UsesCallee says whether a request to it calls the dependency.
	UsesCallee bool
}

// Topology is the system around the affected service: a caller that calls it,
// the dependency it calls, an unrelated neighbour.
type Topology struct {
	Project   string
	Affected  string
	Caller    string
	Callee    string
	Kind      CalleeKind
	Neighbour string
	// CalleeHost is the address client spans name for the dependency.
	CalleeHost      string
	DBSystem        string
	DBName          string
	Lang            string
	Registry        string
	Endpoints       []Endpoint
	CallerRoute     string
	NeighbourRoutes []string
	// HostPort is the affected service's port, as the caller's client spans name it.
	HostPort int
}

var (
	projects   = []string{"harbor", "meridian", "tessera", "lumen", "orchard", "quarry", "vantage", "kestrel"}
	affectedBy = map[string][]string{
		"ai":   {"answer-engine", "copilot-api", "summarizer", "assist-gw", "triage-bot"},
		"core": {"billing-core", "ledger", "fulfilment", "booking-api", "cart-svc", "profile-api", "quote-engine", "shipping-rates", "pricing"},
	}
	callers    = []string{"edge-gateway", "web-bff", "mobile-bff", "public-api", "storefront-web"}
	neighbours = []string{"mailer", "audit-trail", "thumbnailer", "feature-flags", "reporting", "geo-lookup"}
	internals  = []string{"tax-calc", "fraud-score", "stock-keeper", "rate-limiter-svc", "identity"}
	vectors    = []string{"vector-index", "semantic-search", "embeddings-store", "doc-retriever"}
	externals  = []struct{ peer, host string }{
		{"stripe", "api.stripe.com"}, {"twilio", "api.twilio.com"}, {"adyen", "checkout-test.adyen.com"},
		{"shippo", "api.goshippo.com"}, {"sendgrid", "api.sendgrid.com"}, {"geo-provider", "maps.partner-geo.example"},
	}
	llmProviders = []struct{ system, host, model string }{
		{"openai", "api.openai.com", "gpt-4o-mini"}, {"anthropic", "api.anthropic.com", "claude-3-5-haiku"},
		{"az.ai.inference", "llm-prod.openai.azure.com", "gpt-4o"}, {"vllm", "vllm.internal", "llama-3.1-70b-instruct"},
	}
	dbSystems  = []struct{ system, name string }{{"postgresql", "orders"}, {"mysql", "shop"}, {"postgresql", "accounts"}, {"mariadb", "catalog"}}
	langs      = []string{"go", "java", "python", "nodejs", "dotnet"}
	registries = []string{"ghcr.io/%s", "registry.%s.internal", "%s.azurecr.io", "docker.io/%sco"}
	routesAI   = [][]string{{"POST", "/v1/answer"}, {"POST", "/v1/chat"}, {"GET", "/v1/suggest"}, {"POST", "/v1/summarize"}}
	routesCore = [][]string{{"GET", "/api/items/{id}"}, {"POST", "/api/orders"}, {"GET", "/api/quote"}, {"PUT", "/api/profile/{id}"}, {"GET", "/api/search"}, {"POST", "/api/checkout"}, {"GET", "/healthz"}}
)

func drawTopology(r *rand.Rand, class string) Topology {
	t := Topology{Project: pick(r, projects), Lang: pick(r, langs)}
	t.Registry = fmt.Sprintf(pick(r, registries), t.Project)
	t.Caller = pick(r, callers)
	t.Neighbour = pick(r, neighbours)
	t.HostPort = pick(r, []int{8080, 8000, 9000, 3000, 5000})
	ai := class == "prompt_regression" || (class == "retrieval_latency" && r.Float64() < 0.7)
	if ai {
		t.Affected = pick(r, affectedBy["ai"])
	} else {
		t.Affected = pick(r, affectedBy["core"])
	}
	t.Kind = drawCalleeKind(r, class)
	db := pick(r, dbSystems)
	t.DBSystem, t.DBName = db.system, db.name
	t.drawCallee(r)
	t.drawEndpoints(r, ai)
	t.CallerRoute = pick(r, []string{"/", "/app/*", "/graphql", "/api/v2/*", "/m/*"})
	t.NeighbourRoutes = []string{pick(r, []string{"/send", "/render", "/evaluate", "/events"}), pick(r, []string{"/status", "/batch", "/lookup"})}
	return t
}

// drawCalleeKind draws what the affected service depends on, by class.
func drawCalleeKind(r *rand.Rand, class string) CalleeKind {
	switch class {
	case "prompt_regression":
		return CalleeLLM
	case "retrieval_latency":
		return CalleeVector
	case "retry_storm":
		return CalleeInternal
	case "dependency_outage":
		return pick(r, []CalleeKind{CalleeExternal, CalleeExternal, CalleeInternal})
	case "config_regression":
		return pick(r, []CalleeKind{CalleeExternal, CalleeDB, CalleeInternal})
	case "bad_release":
		return pick(r, []CalleeKind{CalleeDB, CalleeInternal})
	}
	return CalleeDB
}

// drawCallee names the dependency of t's kind and its host.
func (t *Topology) drawCallee(r *rand.Rand) {
	switch t.Kind {
	case CalleeDB:
		t.Callee = t.DBName + "-db"
		t.CalleeHost = fmt.Sprintf("%s-db.%s.internal", t.DBName, t.Project)
	case CalleeInternal:
		t.Callee = pick(r, internals)
		t.CalleeHost = t.Callee
	case CalleeVector:
		t.Callee = pick(r, vectors)
		t.CalleeHost = t.Callee
	case CalleeExternal:
		e := pick(r, externals)
		t.Callee, t.CalleeHost = e.peer, e.host
	case CalleeLLM:
		p := pick(r, llmProviders)
		t.Callee, t.CalleeHost, t.DBName = p.system, p.host, p.model
	}
}

// drawEndpoints draws two or three endpoints of the affected service and
// their shares of the traffic.
func (t *Topology) drawEndpoints(r *rand.Rand, ai bool) {
	routes := routesCore
	if ai {
		routes = routesAI
	}
	n := 2 + r.IntN(2)
	perm := r.Perm(len(routes))
	total := 0.0
	for i := 0; i < n; i++ {
		rt := routes[perm[i]]
		e := Endpoint{Method: rt[0], Route: rt[1], Share: 0.5 + r.Float64(), BaseMs: 15 + r.Float64()*120}
		// The first endpoint always uses the dependency so the class's
		// signal reaches a good share of traffic; the others sometimes.
		e.UsesCallee = i == 0 || r.Float64() < 0.6 || t.Kind == CalleeLLM
		if t.Kind == CalleeLLM || t.Kind == CalleeVector {
			e.BaseMs += 300 + r.Float64()*600
		}
		total += e.Share
		t.Endpoints = append(t.Endpoints, e)
	}
	for i := range t.Endpoints {
		t.Endpoints[i].Share /= total
	}
}

// InProject reports whether the dependency is a service of the compose
// project (in releases.yaml) rather than a database or a third party.
func (t Topology) InProject() bool { return t.Kind == CalleeInternal || t.Kind == CalleeVector }

// Instrumented reports whether the dependency writes its own spans.
func (t Topology) Instrumented() bool { return t.InProject() }
