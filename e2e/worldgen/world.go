// Package worldgen draws recorded incidents from a seeded model of a small
// system of services, in the on-disk format of INCIDENT-FORMAT.md, so that the
// pipeline is measured on incidents that its rules were never tuned on.
//
// It shares nothing with e2e/corpusgen on purpose: its own service names,
// attribute spellings (OpenTelemetry semantic conventions, old and new), trace
// shapes and log wording. Each world draws its recording length (20 min to
// 24 h), traffic (0.1 to 500 requests/s), trace sampling (1/1 to 1/100), the
// onset's offset from startsAt, the semantic-convention version, the marker's
// style and a set of adversarial variants from wide ranges; its expectation is
// what a correct gate decides by DESIGN.md's six checks. Everything is
// deterministic from the seed and the world's index.
package worldgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"
)

// Variant names an adversarial or stylistic twist a world carries.
type Variant string

// The variants. Each one either leaves the right answer alone (noise a correct
// gate must see through) or changes it in a way expect() accounts for.
const (
	// Burn-rate spellings that read as 0 (slo_breach fails).
	BurnMissing  Variant = "burn-missing"
	BurnNaN      Variant = "burn-nan"
	BurnNegative Variant = "burn-negative"
	BurnProse    Variant = "burn-only-in-prose"
	// BurnNaNThenValid: a NaN label and a finite annotation: the finite one counts.
	BurnNaNThenValid Variant = "burn-nan-label-valid-annotation"

	OutOfScope         Variant = "out-of-scope"
	CooldownActive     Variant = "prior-action-in-cooldown"
	CooldownExpired    Variant = "prior-action-expired"
	PriorOtherService  Variant = "prior-action-other-service"
	NoRollbackTarget   Variant = "first-release-no-target"
	StaleMarker        Variant = "stale-marker"
	MarkerAfterOnset   Variant = "marker-after-onset"
	MarkerOtherService Variant = "marker-other-service"
	CoincidentDeploy   Variant = "coincident-deploy"
	TwoDeploys         Variant = "two-services-deployed-seconds-apart"
	CulpritCallee      Variant = "callee-deployed-and-broke"
	MarkerText         Variant = "marker-text-in-logs-and-attributes"
	PromptInjection    Variant = "prompt-injection-in-logs"
	SharedDependency   Variant = "neighbour-shares-the-dependency"

	// Shapes of issue 35: where the regression shows. Each leaves the right
	// answer alone; they are drawn from their own stream (drawShapes), so a
	// world without one is written as before.
	//
	// QualityOnly: a prompt regression that shows only in the model call's
	// attributes (tokens, finish reason, evaluation scores), HTTP 200 and
	// the same latency throughout.
	QualityOnly Variant = "quality-only"
	// InSpanRetries: a retry storm whose client retries inside one span
	// (a retry-count attribute, the SDK's retry log lines), no span per attempt.
	InSpanRetries Variant = "retries-inside-one-span"
	// OneEndpoint: a bad release that breaks one endpoint of several.
	OneEndpoint Variant = "one-endpoint-broken"
	// EarlierEpisode: a latency block that began and ended before the onset.
	EarlierEpisode Variant = "earlier-episode-before-the-onset"
	// DownstreamCallee: a bad release that gives up on its calls to the
	// instrumented dependency in its failing requests; the dependency's
	// abandoned server spans fail when they end (issue 35 item 5). The
	// dependency regresses as the release's effect, no shared cause: the
	// right answer stays the release's.
	DownstreamCallee Variant = "callee-downstream-of-the-release"
	// SparseHistory (issue 35's held-out twin): 3 hours of recording at
	// least, sampled 1 in 16 to 1 in 64, 6 to 14 stored traces a minute.
	// Noise: the verdict stays what the class and the other variants say.
	SparseHistory Variant = "sparse-3h-history"
	// QueueConsumer: the affected service is a queue consumer too. The
	// caller's requests reach it as messages (a producer span, kind 4, and
	// the affected service's consumer span beneath it, kind 5, with
	// OpenTelemetry's messaging.* attributes) that wait in the queue longer
	// once the regression is under way; its direct requests stay HTTP. Drawn
	// for traffic_surge (the arrivals outrun it) and resource_saturation
	// (each message takes longer) from a stream of its own (drawQueue).
	// Noise for the verdict: the class is what moved the lag.
	QueueConsumer Variant = "queue-consumer-lag"
)

// Semconv is the OpenTelemetry semantic-convention generation a world's
// instrumentation writes.
type Semconv string

// The two generations of HTTP/DB/network attribute names.
const (
	SemconvOld Semconv = "old" // http.status_code, http.method, net.peer.name, db.statement
	SemconvNew Semconv = "new" // http.response.status_code, http.request.method, server.address, db.query.text
)

// Deploy is one deployment in a world: a marker span (unless Silent) and a
// release entry.
type Deploy struct {
	Service  string
	Version  string
	Previous string
	At       time.Time
}

// World is one drawn incident before it is written.
type World struct {
	ID       string
	Index    int
	Seed     uint64
	Class    string
	Variants []Variant

	Topo Topology

	Start, Onset, StartsAt, Now time.Time

	// Rate is the affected service's offered load (requests/s) and Sampling
	// the head sampler's divisor (1 in Sampling traces is stored).
	Rate     float64
	Sampling int
	Semconv  Semconv
	// MarkerStyle selects how the marker's attributes are written.
	MarkerStyle int
	// BurnRate is the burn rate the alert carries when it carries one.
	BurnRate float64

	// Deploys are every deployment whose marker is in the recording (or, for a
	// stale one, just before it), in time order.
	Deploys []Deploy
	// Versions is the affected service's release history, oldest first.
	Versions []string
	// FalseMarkers are markers of the affected service that the release
	// ledger contradicts (falsemarker.go); no release goes with them.
	FalseMarkers []FalseMarker
	// ClientRetries is how many more attempts the affected service makes
	// when its dependency fails (0: none); drawn only with a false marker.
	ClientRetries int
	// Tail is the tail sampler of a TailSampled world (nil: head sampling,
	// 1 in Sampling). Rate is then the arrivals, Sampling 1.
	Tail *TailSampler
	// Prompt is what a prompt regression's release changed in what it
	// sends the model (prompt.go); zero for a wording-only release.
	Prompt PromptChange

	Expect incident.Expect

	// Chain is set on a culprit world (DrawCulprit): the services the
	// alerted one calls and where its failures begin.
	Chain *Chain
}

// Has reports whether the world carries variant v.
func (w World) Has(v Variant) bool { return slices.Contains(w.Variants, v) }

// Duration is the recording's length.
func (w World) Duration() time.Duration { return w.Now.Sub(w.Start) }

// deploymentClass reports whether class is deployment-class in the default
// catalogue (the catalogue is configuration: read it, do not restate it).
func deploymentClass(class string) bool {
	for _, c := range contracts.DefaultCatalogue() {
		if c.Name == class {
			return c.DeploymentClass
		}
	}
	return false
}

// Classes are the failure classes worlds are drawn from: the deployment-class
// ones alternate with the rest so both halves are well covered.
var (
	deployClasses  = []string{"bad_release", "config_regression", "retry_storm", "prompt_regression"}
	runtimeClasses = []string{"retrieval_latency", "db_pool_exhaustion", "dependency_outage", "resource_saturation", "traffic_surge", "unknown"}
)

// Draw returns world number i of the generator seeded with seed.
func Draw(seed uint64, i int) World {
	r := rand.New(rand.NewPCG(seed, uint64(i)*0x9e3779b97f4a7c15+1))
	w := World{Index: i, Seed: seed}
	if i%2 == 0 {
		w.Class = deployClasses[(i/2)%len(deployClasses)]
	} else {
		w.Class = runtimeClasses[(i/2)%len(runtimeClasses)]
	}
	w.Topo = drawTopology(r, w.Class)
	w.Semconv = SemconvOld
	if r.Float64() < 0.5 {
		w.Semconv = SemconvNew
	}
	w.MarkerStyle = r.IntN(markerStyles)
	w.drawVariants(r)
	if w.Has(CulpritCallee) && !w.Topo.InProject() {
		for i, v := range w.Variants {
			if v == CulpritCallee {
				w.Variants[i] = MarkerOtherService
			}
		}
	}
	w.drawTimeline(r)
	w.drawTraffic(r)
	w.drawDeploys(r)
	w.drawFalseMarkers()
	w.BurnRate = math.Round((1.5+r.Float64()*30)*10) / 10
	w.drawShapes(rand.New(rand.NewPCG(seed^0x35, uint64(i)+35)))
	w.drawSparse(rand.New(rand.NewPCG(seed^0x37, uint64(i)+37)))
	w.drawQueue(rand.New(rand.NewPCG(seed^0x41, uint64(i)+41)))
	w.drawTail(rand.New(rand.NewPCG(seed^0x45, uint64(i)+45)))
	w.drawPrompt(promptRng(seed, i))
	w.Expect = expect(w)
	w.ID = fmt.Sprintf("s%d-w%03d-%s-%s", seed, i, slug(w.Class), w.Topo.Affected)
	return w
}

// Generate draws n worlds from seed.
func Generate(seed uint64, n int) []World {
	ws := make([]World, n)
	for i := range ws {
		ws[i] = Draw(seed, i)
	}
	return ws
}

func slug(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '_' {
			b[i] = '-'
		}
	}
	return string(b)
}

// pick returns one element of xs.
func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// logUniform draws from [lo, hi] evenly on a log scale.
func logUniform(r *rand.Rand, lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + r.Float64()*(math.Log(hi)-math.Log(lo)))
}

func (w *World) add(v Variant) { w.Variants = append(w.Variants, v) }

// drawVariants chooses at most one verdict-changing twist and any number of
// noise twists.
func (w *World) drawVariants(r *rand.Rand) {
	deploy := deploymentClass(w.Class)
	if deploy {
		// About 45% of deployment-class worlds carry something that must turn
		// an allow into a deny; the rest stay allow, some with noise that
		// must not change that.
		twists := []Variant{BurnMissing, BurnNaN, BurnNegative, BurnProse, OutOfScope, CooldownActive, NoRollbackTarget, StaleMarker}
		if r.Float64() < 0.45 {
			w.add(pick(r, twists))
		} else {
			benign := []Variant{"", "", BurnNaNThenValid, CooldownExpired, PriorOtherService, TwoDeploys}
			if v := pick(r, benign); v != "" {
				w.add(v)
			}
		}
	} else {
		twists := []Variant{"", CoincidentDeploy, MarkerOtherService, MarkerAfterOnset, StaleMarker, CulpritCallee}
		if v := pick(r, twists); v != "" {
			if v == CulpritCallee && w.Class != "dependency_outage" {
				v = CoincidentDeploy
			}
			w.add(v)
		}
		if w.Class == "dependency_outage" && r.Float64() < 0.4 {
			w.add(SharedDependency)
		}
		if r.Float64() < 0.15 {
			w.add(pick(r, []Variant{OutOfScope, CooldownActive, BurnNaN}))
		}
	}
	if r.Float64() < 0.25 {
		w.add(MarkerText)
	}
	if r.Float64() < 0.25 {
		w.add(PromptInjection)
	}
}

// drawShapes draws the shapes of issue 35 from their own stream rs, so that
// the draws of every other part of the world are as they were.
func (w *World) drawShapes(rs *rand.Rand) {
	switch u := rs.Float64(); w.Class {
	case "prompt_regression":
		if u < 0.5 {
			w.add(QualityOnly)
		}
	case "retry_storm":
		if u < 0.5 {
			w.add(InSpanRetries)
		}
	case "bad_release":
		switch {
		case u < 0.4 && len(w.Topo.Endpoints) > 2:
			w.add(OneEndpoint)
		case u >= 0.55 && w.Topo.Instrumented():
			w.add(DownstreamCallee)
		}
	}
	if deploymentClass(w.Class) && w.Onset.Sub(w.Start) >= 70*time.Minute && rs.Float64() < 0.3 {
		w.add(EarlierEpisode)
	}
}

// SparseShare is the share of worlds drawn with SparseHistory.
const SparseShare = 0.12

// drawSparse draws SparseHistory from its own stream rs, so that every other
// world, and every other draw of this one, is as it was. Only a recording of
// at most 3 hours is stretched to 3 hours (a longer one at this density
// would weigh tens of megabytes); the offered load follows the sampler so
// that 6 to 14 traces a minute are stored.
func (w *World) drawSparse(rs *rand.Rand) {
	if rs.Float64() >= SparseShare || w.Duration() > 3*time.Hour {
		return
	}
	w.add(SparseHistory)
	w.Start = w.Now.Add(-3 * time.Hour)
	w.Sampling = pick(rs, []int{16, 20, 32, 50, 64})
	stored := 6 + rs.Float64()*8
	w.Rate = math.Ceil(stored*float64(w.Sampling)/60*100) / 100
}

// QueueShare is the share of traffic_surge and resource_saturation worlds
// drawn with QueueConsumer.
const QueueShare = 0.5

// drawQueue draws QueueConsumer from its own stream rs, so that every other
// world, and every other draw of this one, is as it was.
func (w *World) drawQueue(rs *rand.Rand) {
	if (w.Class == "traffic_surge" || w.Class == "resource_saturation") && rs.Float64() < QueueShare {
		w.add(QueueConsumer)
	}
}

// drawTimeline places the recording, the onset, the alert and now. The
// recording length is drawn short-heavy (most real look-backs are an hour or
// two) but reaches 24 h; the baseline before the onset is at least 15 minutes.
func (w *World) drawTimeline(r *rand.Rand) {
	var length time.Duration
	switch u := r.Float64(); {
	case u < 0.55:
		length = time.Duration(logUniform(r, 20, 120) * float64(time.Minute))
	case u < 0.88:
		length = time.Duration(logUniform(r, 120, 480) * float64(time.Minute))
	default:
		length = time.Duration(logUniform(r, 480, 1440) * float64(time.Minute))
	}
	length = length.Round(time.Second)
	// A fixed epoch per seed plus a day per world keeps worlds apart in time.
	base := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(w.Index) * 26 * time.Hour)
	w.Now = base.Add(time.Duration(6*3600+r.IntN(12*3600)) * time.Second)
	w.StartsAt = w.Now.Add(-time.Duration(30+r.IntN(150)) * time.Second).Truncate(time.Second)
	// The alert fires 1 to 12 minutes after the regression began.
	maxOff := 12 * time.Minute
	minBaseline := 15 * time.Minute
	if room := length - w.Now.Sub(w.StartsAt) - minBaseline; room < maxOff {
		maxOff = max(room, 2*time.Minute)
	}
	off := time.Minute + time.Duration(r.Int64N(int64(maxOff-time.Minute)+1))
	w.Onset = w.StartsAt.Add(-off).Truncate(time.Second)
	if w.Now.Sub(w.Onset)+minBaseline > length {
		length = w.Now.Sub(w.Onset) + minBaseline
	}
	w.Start = w.Now.Add(-length)
}

// drawTraffic draws the offered load and the sampler, then bounds what is
// stored: at least 4 traces a minute so that a baseline exists at all, at
// most a budget (≈700 traces, up to 3000 for recordings under 30 minutes)
// that keeps a world's files a few megabytes. A busy service (over 20
// requests/s) samples harder first, up to 1/100; then the offered load gives
// way (a long recording at 1/1 is a quiet service).
func (w *World) drawTraffic(r *rand.Rand) {
	samplers := []int{1, 2, 4, 5, 8, 10, 16, 20, 32, 50, 64, 100}
	w.Sampling = pick(r, samplers)
	w.Rate = logUniform(r, 0.1, 500)
	minutes := w.Duration().Minutes()
	budget := math.Max(700, 100*math.Min(minutes, 30))
	// A busy service samples harder before anything else gives way.
	for _, s := range samplers {
		if w.Rate > 20 && s > w.Sampling && w.Rate*60/float64(w.Sampling)*minutes > budget {
			w.Sampling = s
		}
	}
	stored := math.Max(minStoredPerMinute, math.Min(w.Rate*60/float64(w.Sampling), budget/minutes))
	w.Rate = math.Ceil(stored*float64(w.Sampling)/60*100) / 100
}

// minStoredPerMinute is the floor of stored traces a minute of the affected service.
const minStoredPerMinute = 4.0

// StoredPerMinute is the expected number of stored traces of the affected
// service per minute before the onset (under a tail sampler, those it keeps
// at random: the slow and failing ones of the baseline come on top).
func (w World) StoredPerMinute() float64 {
	if w.Tail != nil {
		return w.Rate * 60 / float64(w.Tail.Keep)
	}
	return w.Rate * 60 / float64(w.Sampling)
}

// drawDeploys places the deployment markers the class and the variants call for.
func (w *World) drawDeploys(r *rand.Rand) {
	t := w.Topo
	old, cur := versionPair(r, w.MarkerStyle)
	w.Versions = []string{olderVersion(old), old}
	deploy := deploymentClass(w.Class)
	gapMin := 2 + r.IntN(20) // minutes from the deploy to the onset
	if w.Class == "bad_release" || w.Class == "retry_storm" {
		gapMin = 1 + r.IntN(8)
	}
	before := func(d time.Duration) time.Time { return w.Onset.Add(-d).Truncate(time.Second) }
	affected := func(at time.Time) {
		w.Deploys = append(w.Deploys, Deploy{Service: t.Affected, Version: cur, Previous: old, At: at})
		w.Versions = append(w.Versions, cur)
	}
	switch {
	case deploy && w.Has(StaleMarker):
		affected(before(time.Duration(40+r.IntN(200)) * time.Minute))
	case deploy:
		affected(before(time.Duration(gapMin)*time.Minute + time.Duration(r.IntN(50))*time.Second))
		if w.Has(TwoDeploys) {
			o, n := versionPair(r, w.MarkerStyle)
			other := pick(r, []string{t.Caller, t.Neighbour})
			w.Deploys = append(w.Deploys, Deploy{Service: other, Version: n, Previous: o, At: w.Deploys[0].At.Add(time.Duration(2+r.IntN(25)) * time.Second)})
		}
	case w.Has(CoincidentDeploy):
		affected(before(time.Duration(gapMin) * time.Minute))
	case w.Has(StaleMarker):
		affected(before(time.Duration(40+r.IntN(200)) * time.Minute))
	case w.Has(MarkerAfterOnset):
		affected(w.Onset.Add(time.Duration(2+r.IntN(6))*time.Minute + time.Duration(r.IntN(60))*time.Second).Truncate(time.Second))
	case w.Has(MarkerOtherService):
		o, n := versionPair(r, w.MarkerStyle)
		w.Deploys = append(w.Deploys, Deploy{Service: pick(r, []string{t.Caller, t.Neighbour}), Version: n, Previous: o, At: before(time.Duration(gapMin) * time.Minute)})
	case w.Has(CulpritCallee):
		// The callee's release broke it; the affected service deployed
		// seconds later too. The root cause is the callee's release (expect).
		o, n := versionPair(r, w.MarkerStyle)
		at := before(time.Duration(gapMin) * time.Minute)
		w.Deploys = append(w.Deploys, Deploy{Service: t.Callee, Version: n, Previous: o, At: at})
		w.Deploys = append(w.Deploys, Deploy{Service: t.Affected, Version: cur, Previous: old, At: at.Add(time.Duration(3+r.IntN(20)) * time.Second)})
		w.Versions = append(w.Versions, cur)
	}
	// Stale markers must be inside the recording to test anything.
	for _, d := range w.Deploys {
		if d.At.Before(w.Start.Add(5 * time.Minute)) {
			w.Start = d.At.Add(-time.Duration(10+r.IntN(20)) * time.Minute)
		}
	}
	slices.SortFunc(w.Deploys, func(a, b Deploy) int { return a.At.Compare(b.At) })
	if w.Has(NoRollbackTarget) {
		// The ledger knows only the version running now (it was created
		// with this release): there is nothing to roll back to.
		w.Versions = w.Versions[len(w.Versions)-1:]
	}
	// Re-check the stored-trace budget after a stretch.
	w.drawTrafficBudgetOnly()
}

// drawTrafficBudgetOnly lowers the stored rate after the recording was
// stretched to hold a stale marker, keeping the floor.
func (w *World) drawTrafficBudgetOnly() {
	minutes := w.Duration().Minutes()
	const budget = 900.0
	if w.StoredPerMinute()*minutes > budget && w.StoredPerMinute() > minStoredPerMinute {
		stored := math.Max(budget/minutes, minStoredPerMinute)
		w.Rate = math.Ceil(stored*float64(w.Sampling)/60*100) / 100
	}
}

// AffectedDeploy returns the affected service's last deployment in the
// recording, if any.
func (w World) AffectedDeploy() (Deploy, bool) {
	for i := len(w.Deploys) - 1; i >= 0; i-- {
		if w.Deploys[i].Service == w.Topo.Affected {
			return w.Deploys[i], true
		}
	}
	return Deploy{}, false
}

// NewVersion is the affected service's running version at now and OldVersion
// the one before the last deploy in the recording.
func (w World) NewVersion() string { return w.Versions[len(w.Versions)-1] }
