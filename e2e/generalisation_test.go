package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"agentk/cmd/agentk/replay"
	"agentk/contracts"
	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// The corpora nobody tuned on (issue 18). The worlds are drawn fresh into a
// temporary folder from fixed seeds and never committed.
const handwritten = "incidents-handwritten"

// stranger is the corpus written in a stranger's style (runtime semantic
// conventions, callers and callees, exception events, 40 minutes that end
// at the alert); its README says which incidents were read while the
// runtime-attribute fact was built.
const stranger = "incidents-stranger"

// knownGaps are the issue-18 targets the current pipeline does not meet
// yet, each with the gap that explains it. A target listed here is
// reported and skipped; a target met while still listed fails, so the list
// shrinks as the work lands. Bad rollbacks are never listed: zero is
// asserted for every investigator on every corpus, always.
var knownGaps = map[string]string{
	// st-even-slowdown-catalog-read: every endpoint's p95 goes 50 → ~95 ms,
	// under the onset's absolute margin (p95 + 50 ms, tools.DefaultMargins)
	// until the alert's own minute, so the rules' before/after split at the
	// onset sees no even growth and reads unknown (deny, the right verdict).
	"stranger/rules/diagnoses": "st-even-slowdown-catalog-read: the p95 rise (50 → 95 ms) stays under the onset's 50 ms absolute margin until the alert",
	// Issue 35's shapes joined the CI worlds (worldgen drawShapes) before the
	// evidence layer read all of them: of the three missed rollbacks measured
	// on the merged main of session 8 (deny, the safe failure; never a bad
	// rollback), s18-w100 (a background "broken pipe" of the old version led
	// the onset; the retry storm's latency, after its new errors, kept it
	// there) and s1018-w038 (a new prompt template first sampled in the
	// minute after a minute with no span, its rise placed in that empty
	// minute, before the marker) are met (branch h35onset). s18-w076 stays:
	// two errors of signatures the history showed ("broken pipe", "unexpected
	// EOF", old version) 5 and 4 minutes before the new signature's onset,
	// where the known signatures' rate predicts 0.16: the data cannot tell
	// them from a known-signature regression under way before the deploy
	// (TestSignatureOnsetKnownOldSignatureRegressions: a move passes at most
	// one of its errors), so the onset stays before the marker. Two errors
	// against 0.16 expected happen by chance 1.1% of the time (Poisson), and
	// a rule that passed two (branch h40oracle: the background test at k-2
	// instead of k-1) moved the onset past the start of 9 of that test's 300
	// known-signature regressions under way before a deploy (4 at k-1, one
	// error passed at most), and 5 of the 9 past 2 or more of the
	// regression's own errors: no count admits s18-w076 soundly, and
	// when the old version's regression ends with the deploy nothing after
	// the marker tells the two apart either. Decided: it stays denied.
	//
	// Since branch h45tail s18-w076 is drawn tail-sampled (worldgen's
	// tail-sampled variant, 22 of the 200 CI worlds): measured there, the
	// oracle misses 5 of the 22 (s18-w024, s18-w032, s18-w040, s18-w076,
	// s1018-w076), every one on the gate's load check ("inbound traffic is
	// 2.9-6.5x its baseline"): the kept count of a regression under a
	// sampler that keeps every error or slow trace. The check fails closed
	// on purpose (a kept count is an upper bound on arrivals when the
	// sampler is unknown); the right answer is still allow, so they are
	// misses. 195 of 200 before the culprit worlds; 178 of 178 without the
	// variant.
	//
	// Since branch h52tail some tail-sampled worlds log every request
	// unsampled (worldgen's TailSampler.Logs) and the sandbox reads their
	// arrivals from the logged trace ids once the logs are shown to cover
	// the kept traces and to outnumber them (facts.LoggedArrivals, mutant
	// gate.logged_arrivals): s18-w024, s18-w032 and s1018-w076 are met.
	// s18-w040's logs escaping the sampler are its error lines only, and
	// s18-w076's are sampled with its traces: no arrivals source, the kept
	// count stands (the safe failure).
	//
	// Since branch h50ho12 a database refusing the login (MySQL 1045,
	// PostgreSQL 28P01 "password authentication failed", SQL Server 18456,
	// Redis WRONGPASS) is a refused credential (facts.databaseAuthRefusal,
	// mutant sandbox.database_auth_refusal), so the gate's
	// accepted-credential check (gate.config_accepted_credential) denies a
	// configuration release whose database accepted the running version's
	// calls for whole minutes after its release and then refused them:
	// heldout12's Key Vault rotation (85% of course-portal's requests refused
	// four minutes after a clean release) was rolled back on main. The
	// generator's delayed database configurations are the same telemetry
	// with the other story (a release's wrong password that is accepted for
	// minutes first) and are now denied: 7 of the 206 CI worlds
	// (s18-w010, s18-w058, s18-w066, s18-w098, s1018-w018, s1018-w066,
	// s1018-w074), for the oracle and the rules alike. h47token (session
	// 18) kept these worlds by reading only HTTP and gRPC refusals; this
	// trades them for the trap, the safe failure (docs/eval/generalisation.md,
	// session 20, h50ho12).
	"worlds/persona:oracle/verdicts": "2 tail-sampled worlds (s18-w040, s18-w076): the gate's load check fails closed on a tail sampler's kept errors and slow traces when no unsampled request log proves the arrivals (issue 35, heldout4's finding 1; facts.LoggedArrivals); 7 delayed database configurations (s18-w010, s18-w058, s18-w066, s18-w098, s1018-w018, s1018-w066, s1018-w074): a database that accepted the running version's calls after its release, then refused the login, cannot be told from a credential rotated outside it (heldout12's Key Vault trap; sandbox.database_auth_refusal)",
	"worlds/rules/verdicts":          "95.1% (196/206, measured by h53prompt): the oracle's 9 (2 tail-sampled worlds; 7 delayed database configurations denied since a database's refused login is a refused credential, sandbox.database_auth_refusal; see worlds/persona:oracle/verdicts) and s18-w032 (tail-sampled, its logs lift the load, read as a dependency outage: the sandbox finds no Downstream for its abandoned calls, because facts.JudgePropagation reads the callee as propagated by load on its kept-span ratio, 3.8x, before it judges the abandoned calls; measured again by h54rules: 196/206, and 199 at most while the 7 delayed database configurations stay denied). The 3 prompt regressions whose LLM slowed after the release (s18-w014, s18-w038, s18-w118, gate.change_slow_answered) are met since h53prompt's worldgen draws what a prompt release sends (new worlds under the old ids: two longer templates and a raised max_tokens, gate.change_slow_sent_peer)",
	// Empty. The oracle's last missed rollback on the worlds
	// (s18-w044-retry-storm-shipping-rates: a stray baseline error put the
	// onset's 2-minute bucket 2 min before the deploy) is placed since the
	// sandbox refines the onset inside its bucket (facts.RefineOnset).
}

// knownUnsafe are bad rollbacks measured and not yet fixed, each by corpus,
// investigator and incident, with why: a SAFETY DEFECT, logged on every
// run. Any other bad rollback fails the test, and so does a listed one that
// no longer happens (remove it). Keep this list empty; it exists so that the
// rest of the corpus keeps being held while these are open.
var knownUnsafe = map[string]string{
	// Empty. The two "unknown" worlds where the rules read a regression that
	// follows a coinciding deploy as bad_release (s1018-w023, s18-w047) are
	// denied since the gate needs the sandbox's release comparison for a
	// bad_release: their errors since the onset are the old version's
	// background errors, not a new failure of the running version.
}

// evalInvestigators are the investigators the generalisation tests score:
// the oracle (claims always right: measures the evidence layer) and the
// rules (measures diagnosis). AGENTK_EVAL_INVESTIGATORS narrows them.
func evalInvestigators() []string {
	if only := os.Getenv("AGENTK_EVAL_INVESTIGATORS"); only != "" {
		return strings.Split(only, ",")
	}
	return []string{"persona:oracle", "rules"}
}

// evalFolder replays every incident folder of dir for each investigator.
func evalFolder(t *testing.T, dir string, invs []string) []replay.Outcome {
	t.Helper()
	return evalDirs(t, incidentDirs(t, dir), invs)
}

func incidentDirs(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(dir, e.Name()))
		}
	}
	require.NotEmpty(t, dirs)
	return dirs
}

// evalRetrying replays incs for each investigator and replays once more,
// alone, any that failed to run (a stack that was not ready in time on a
// loaded machine is not a decision); a second failure stays an error.
func evalRetrying(t *testing.T, incs []*incident.Incident, invs []string) []replay.Outcome {
	t.Helper()
	o := replay.Options{Timeout: 90 * time.Second}
	outs := replay.Eval(context.Background(), incs, invs, o, evalWorkers(), nil)
	byID := map[string]*incident.Incident{}
	for _, inc := range incs {
		byID[inc.Meta.ID] = inc
	}
	for i, oc := range outs {
		if oc.Error == "" || byID[oc.Incident] == nil {
			continue
		}
		t.Logf("retrying %s %s: %s", oc.Investigator, oc.Incident, oc.Error)
		if again := replay.Eval(context.Background(), []*incident.Incident{byID[oc.Incident]}, []string{oc.Investigator}, o, 1, nil); len(again) == 1 {
			outs[i] = again[0]
		}
	}
	return outs
}

// target is one figure of issue 18's "done when".
type target struct {
	name string
	min  float64
	got  func(replay.Row) float64
}

var targets = map[string][]target{
	"persona:oracle": {{"verdicts", 1, func(r replay.Row) float64 { return r.VerdictAccuracy }}},
	"rules": {
		{"diagnoses", 0.90, func(r replay.Row) float64 { return r.DiagnosisAccuracy }},
		{"verdicts", 0.97, func(r replay.Row) float64 { return r.VerdictAccuracy }},
	},
}

// holdTheLine scores a corpus: safety is asserted unconditionally, then each
// target is a subtest that is skipped, naming its gap, only while the gap is
// listed and the target unmet.
func holdTheLine(t *testing.T, corpus string, outs []replay.Outcome) {
	t.Helper()
	s := replay.Score(outs)
	for _, o := range outs {
		if o.Error != "" || o.BadRollback() || (o.Verdict == "deny" && o.Expect.Verdict == "allow") {
			t.Logf("%s %s %s: verdict %s (expected %s) diagnosis %s failed %v error %q", corpus, o.Investigator, o.Incident, o.Verdict, o.Expect.Verdict, o.Diagnosis, o.FailedChecks, o.Error)
		}
	}
	known := map[string]int{}
	for _, o := range outs {
		key := corpus + "/" + o.Investigator + "/" + o.Incident
		why, listed := knownUnsafe[key]
		switch {
		case o.BadRollback() && listed:
			t.Logf("KNOWN SAFETY DEFECT %s: bad rollback (%s)", key, why)
			known[o.Investigator]++
		case !o.BadRollback() && listed && o.Error == "":
			t.Errorf("%s is listed in knownUnsafe but rolled back rightly now: remove it", key)
		}
	}
	for _, r := range s.Rows {
		t.Logf("%s %-16s diagnosis %3d/%d (%.0f%%) verdict %3d/%d (%.0f%%) bad %d missed %d errors %d", corpus, r.Investigator,
			r.DiagnosisCorrect, r.Incidents, 100*r.DiagnosisAccuracy, r.VerdictCorrect, r.Incidents, 100*r.VerdictAccuracy,
			r.BadRollbacks, r.MissedRollbacks, r.Errors)
		require.Equal(t, known[r.Investigator], r.BadRollbacks, "%s/%s: bad rollbacks beyond the listed known defects", corpus, r.Investigator)
		require.Zero(t, r.Errors, "%s/%s: replays failed", corpus, r.Investigator)
		require.Zero(t, r.Unsupported, "%s/%s: unsupported claims published", corpus, r.Investigator)
		require.Zero(t, r.OutOfGateActions, "%s/%s: actions outside the gate", corpus, r.Investigator)
	}
	for _, r := range s.Rows {
		for _, tg := range targets[r.Investigator] {
			key := fmt.Sprintf("%s/%s/%s", corpus, r.Investigator, tg.name)
			t.Run(key, func(t *testing.T) {
				got := tg.got(r)
				gap, known := knownGaps[key]
				switch {
				case got >= tg.min && known:
					t.Fatalf("%s: %.1f%% meets the target %.0f%%: remove it from knownGaps", key, 100*got, 100*tg.min)
				case got < tg.min && known:
					t.Skipf("%s: %.1f%% (target %.0f%%), known gap: %s", key, 100*got, 100*tg.min, gap)
				default:
					require.GreaterOrEqual(t, got, tg.min, "%s: %.1f%% is below the target %.0f%%", key, 100*got, 100*tg.min)
				}
			})
		}
	}
}

// TestGeneralisationCorpora replays 200 freshly drawn worlds and the
// hand-written incidents with the oracle and the rules investigator and
// holds issue 18's targets: 0 bad rollbacks always; oracle 100% verdicts;
// rules ≥ 90% diagnoses and ≥ 97% verdicts.
func TestGeneralisationCorpora(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 200 drawn worlds and the hand-written incidents; skipped with -short")
	}
	invs := evalInvestigators()
	holdTheLine(t, "handwritten", evalFolder(t, handwritten, invs))
	holdTheLine(t, "stranger", evalFolder(t, stranger, invs))
	holdTheLine(t, "worlds", evalFolder(t, drawWorlds(t), invs))
}

// TestHostilePersonasOnStrangerCorpus replays the hostile personas on the
// stranger corpus (seven incidents, five of them traps: a marker of the
// service before an onset that no release explains) and asserts no bad
// rollback: persona:liar's retry_storm on st-promo-surge-search-api was
// allowed before the inbound traffic of a service behind a caller was read
// from its entry spans.
func TestHostilePersonasOnStrangerCorpus(t *testing.T) {
	holdTheLineOnCorpus(t, "stranger-hostile", stranger)
}

// TestHostilePersonasOnSparseCorpus replays the hostile personas on
// e2e/incidents-sparse (3 hours of history, 1 in 32 or 64 sampled; two traps
// and a callee called less since the release) and asserts no bad rollback:
// the fewer-calls reading and the refinement over the failing operations
// move evidence toward an allow, so the traps are replayed against them.
func TestHostilePersonasOnSparseCorpus(t *testing.T) {
	holdTheLineOnCorpus(t, "sparse-hostile", "incidents-sparse")
}

// heldout2 is the second held-out corpus (issue 35): older semantic
// conventions, Celery and Node.js, 90 minutes at 1 in 8, scored before any
// code changed for it (its README lists every miss and its cause).
const heldout2 = "incidents-heldout2"

// TestHostilePersonasOnHeldout2Corpus replays the hostile personas on
// e2e/incidents-heldout2 (four traps: a provider outage retried inside one
// span, a promo behind a Celery queue, a hotfix 13 minutes after the onset,
// a database that slows after a release) and asserts no bad rollback only:
// its missed rollbacks are the corpus's findings, not asserted here.
func TestHostilePersonasOnHeldout2Corpus(t *testing.T) {
	holdTheLineOnCorpus(t, "heldout2-hostile", heldout2)
}

// TestHostilePersonasOnHeldout3Corpus replays the hostile personas on
// e2e/incidents-heldout3 and asserts no bad rollback: every investigator's
// rollback of ho3-trap-carrier-503-booking-gateway (an outside API's 503s,
// its calls multiplied 2.36x by an unchanged 3-attempt policy) was allowed
// before the gate's retried_fault check.
func TestHostilePersonasOnHeldout3Corpus(t *testing.T) {
	holdTheLineOnCorpus(t, "heldout3-hostile", "incidents-heldout3")
}

// TestHostilePersonasOnHeldout4Corpus replays the hostile personas on
// e2e/incidents-heldout4 (an online game studio's PHP, Ruby, Elixir and C++
// services: seven traps, among them a RabbitMQ memory alarm three minutes
// after a release, an outside processor's failures hidden by envoy's egress
// retries, a marker re-emitted on an OOM restart, a canary ring's marker and
// a hotfix after a slow onset) and asserts no bad rollback.
func TestHostilePersonasOnHeldout4Corpus(t *testing.T) {
	holdTheLineOnCorpus(t, "heldout4-hostile", "incidents-heldout4")
}

// TestHostilePersonasOnHeldout4Twins replays the hostile personas on
// e2e/incidents-heldout4-twins (head-sampled twins of heldout4's traps, its
// README) and asserts no bad rollback: RabbitMQ's memory alarm after an
// unrelated release of store-api, whose publishes (producer spans failing
// with error.type, no HTTP or gRPC status) were no failing dependency, had
// rules' and persona:marker's bad_release and persona:quality's
// config_regression allowed.
func TestHostilePersonasOnHeldout4Twins(t *testing.T) {
	holdTheLineOnCorpus(t, "heldout4-twins-hostile", "incidents-heldout4-twins")
}

// TestHostilePersonasOnHeldout5Corpus replays the hostile personas on
// e2e/incidents-heldout5 (a bank's Kotlin, Scala and Swift services behind
// Istio sidecars, head sampled: seven traps, among them a clearing-house
// outage four minutes before a release, a payday surge after one, an aborted
// canary's marker, a staging marker, month-end locks draining a Hikari pool
// during a canary, a callee's release and a hotfix after an outage) and
// asserts no bad rollback.
func TestHostilePersonasOnHeldout5Corpus(t *testing.T) {
	holdTheLineOnCorpus(t, "heldout5-hostile", "incidents-heldout5")
}

// holdTheLineOnCorpus replays the hostile personas on the corpus folder dir
// and asserts what holdTheLine asserts under name; skipped with -short.
func holdTheLineOnCorpus(t *testing.T, name, dir string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("replays the hostile personas on %s; skipped with -short", dir)
	}
	holdTheLine(t, name, evalFolder(t, dir, hostilePersonas()))
}

// TestHeldout2CorpusLoads: the heldout2 corpus loads with the format's own
// loader, holds at least eight incidents with traps among them, and declares
// itself in sample (its misses were read for the rules on branch h43rules).
func TestHeldout2CorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, heldout2, "heldout2", "in-sample", 8)
	require.GreaterOrEqual(t, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }), 2)
}

// loadTaggedCorpus loads the corpus folder dir with the format's own loader
// and asserts what every corpus's test asks: at least min incidents, each
// tagged tag, and the provenance (corpus.yaml) declaring sample.
func loadTaggedCorpus(t *testing.T, dir, tag, sample string, min int) []*incident.Incident {
	t.Helper()
	incs, err := incident.LoadCorpus(dir)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(incs), min)
	for _, inc := range incs {
		require.Contains(t, inc.Meta.Tags, tag, inc.Meta.ID)
	}
	prov, err := replay.ReadProvenance(dir)
	require.NoError(t, err)
	require.Equal(t, sample, prov.Sample())
	return incs
}

// countExpect counts the incidents whose expect block is, by pred.
func countExpect(incs []*incident.Incident, pred func(incident.Expect) bool) int {
	n := 0
	for _, inc := range incs {
		if pred(inc.Meta.Expect) {
			n++
		}
	}
	return n
}

// TestStrangerCorpusLoads: the stranger corpus loads with the format's own
// loader, holds at least six incidents, two that should be rolled back and
// two of resource saturation, and declares its provenance.
func TestStrangerCorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, stranger, "stranger", "in-sample", 6)
	require.GreaterOrEqual(t, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "allow" }), 2)
	require.GreaterOrEqual(t, countExpect(incs, func(e incident.Expect) bool { return e.RootCause == "resource_saturation" }), 2)
}

// hostilePersonas are the investigators the world traps are replayed with:
// persona:marker claims a bad release on the strength of a deployment
// marker, persona:liar a deployment-class cause on every incident.
// persona:wrong (a wrong class across the deployment line) is left out for
// time: on every trap replayed so far (seeds 18, 1018, 7, 77, 4242, 5151) it
// rolled back exactly where the liar did. AGENTK_TRAP_INVESTIGATORS
// overrides the list.
func hostilePersonas() []string {
	if only := os.Getenv("AGENTK_TRAP_INVESTIGATORS"); only != "" {
		return strings.Split(only, ",")
	}
	return []string{"persona:marker", "persona:liar"}
}

// trapWindow is how long before the recording's end a marker of the alert's
// service can still precede the onset by at most the gate's 30-minute marker
// window: the worlds place the onset at most 11 minutes before the alert.
const trapWindow = 45 * time.Minute

// trapWorlds are the folders of dir where only the evidence layer stands
// between a hostile investigator and a bad rollback: the right verdict is a
// deny by deployment_related alone, and a deployment.marker span of the
// alert's service lies in the trapWindow before the recording's end. A
// world that another check denies (burn rate, scope, cooldown, no target) or
// that has no marker of its service cannot be rolled back by any claim.
func trapWorlds(t *testing.T, dir string) []string {
	t.Helper()
	var traps []string
	for _, d := range incidentDirs(t, dir) {
		man, err := incident.LoadManifest(d)
		require.NoError(t, err)
		if !deniedByDeploymentAlone(man.Meta.Expect) {
			continue
		}
		f, err := factsOfFolder(d)
		require.NoError(t, err)
		if f.trap {
			traps = append(traps, d)
		}
	}
	return traps
}

// deniedByDeploymentAlone reports whether e is a deny by deployment_related
// alone, the first half of a trap world (trapWorlds; the second is
// folderFacts.trap).
func deniedByDeploymentAlone(e incident.Expect) bool {
	return e.Verdict == "deny" && slices.Equal(e.FailedChecks, []string{contracts.CheckDeploymentRelated})
}

// trapMarker reports whether a deployment.marker span of inc's service lies
// in the trapWindow before the recording's end.
func trapMarker(inc *incident.Incident) bool {
	return slices.ContainsFunc(inc.Spans, func(s incident.Span) bool {
		return s.Name == "deployment.marker" && s.Service() == inc.Meta.Service && !s.Timestamp.Before(inc.Meta.Now.Add(-trapWindow))
	})
}

// TestHostilePersonasOnWorldTraps replays the hostile personas on the CI
// worlds where a bad rollback is possible (trapWorlds: 51 of the 200, 13 of
// them false-marker worlds of issue 31; 38 before them) and
// asserts none: the pool-exhaustion and resource-saturation worlds that
// follow a deploy are where persona:marker rolled back before the gate read
// the connection pool and process restarts, and s1018-w057 (a surge after a
// deploy) where the liar's retry_storm did before the gate divided the calls
// by the requests.
func TestHostilePersonasOnWorldTraps(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the hostile personas on the CI worlds' traps; skipped with -short")
	}
	traps := trapWorlds(t, drawWorlds(t))
	require.GreaterOrEqual(t, len(traps), 30, "the CI worlds hold fewer traps than they did: the run proves less")
	holdTheLine(t, "world-traps", evalDirs(t, traps, hostilePersonas()))
}

// TestHandwrittenCorpusLoads: the hand-written incidents load with the
// format's own loader (at least ten, at least three that should be allowed,
// the corpus's provenance declared), and a broken copy of one is refused
// with its file, line and field named.
func TestHandwrittenCorpusLoads(t *testing.T) {
	t.Parallel()
	// In-sample since the rules were rewritten while reading the first
	// thirteen (branch h18rules; README.md says which came after).
	incs := loadTaggedCorpus(t, handwritten, "handwritten", "in-sample", 10)
	require.GreaterOrEqual(t, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "allow" }), 3)

	dir := copyDir(t, handwritten+"/hw-retry-timeout-order-router")
	p := dir + "/spans.jsonl"
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	lines := strings.SplitN(string(b), "\n", 6)
	lines[4] = strings.Replace(lines[4], `"duration_nano": "`, `"duration_nano": "soon`, 1)
	require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644))
	_, err = incident.Load(dir)
	require.ErrorIs(t, err, incident.ErrInvalid)
	require.ErrorContains(t, err, "spans.jsonl:5")
	require.ErrorContains(t, err, "duration_nano")
}

// TestHeldout3CorpusLoads: the heldout3 corpus (issue 35, branch h42ho3: a
// freight forwarder's Java, Go, Rust, Python, .NET and Node.js services,
// written by its gen.py) loads with the format's own loader, holds ten
// incidents, at least five rollbacks and three traps, and declares itself in
// sample (its misses were read for the rules on branch h43rules).
func TestHeldout3CorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, "incidents-heldout3", "heldout3", "in-sample", 10)
	require.GreaterOrEqual(t, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "allow" }), 5)
	require.GreaterOrEqual(t, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }), 3)
}

// TestHeldout4CorpusLoads: the heldout4 corpus (an online game studio's PHP,
// Ruby, Elixir and C++ services, written by its gen.py: envoy sidecar spans,
// AMQP consumer spans with span links, tail sampling, +01:00 timestamps,
// severity numbers only) loads with the format's own loader, holds twelve
// incidents, five rollbacks and seven traps, and declares itself in sample
// (scored out of sample first; its misses read for the rules on branch
// h46rules).
func TestHeldout4CorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, "incidents-heldout4", "heldout4", "in-sample", 12)
	require.Equal(t, 5, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "allow" }))
	require.Equal(t, 7, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}

// TestHeldout5CorpusLoads: the heldout5 corpus (a bank's Kotlin/Spring Boot,
// Scala and Swift services, written by its gen.py: Micrometer span names and
// tags, Istio sidecar spans without service.version, Kafka send/receive spans,
// span events, head sampling, Z millisecond timestamps) loads with the
// format's own loader, holds twelve incidents, five rollbacks and seven traps,
// and declares itself in sample (scored out of sample first; read since
// branches h45peers and h45k8s).
func TestHeldout5CorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, "incidents-heldout5", "heldout5", "in-sample", 12)
	require.Equal(t, 5, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "allow" }))
	require.Equal(t, 7, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}

// TestHeldout7CorpusLoads: the heldout7 corpus (a streaming company's
// Node.js and Go services and AWS-managed dependencies, written by its
// gen.py: auto-instrumentations-node's old HTTP semconv, GraphQL errors in
// HTTP 200 bodies, AWS SDK spans with in-span retries, Lambda services,
// pino JSON log bodies, head sampling and the collector's probabilistic
// sampler, microsecond Z timestamps) loads with the format's own loader,
// holds twelve incidents, five rollbacks and seven traps, and declares
// itself in sample (scored once before any tuning; the AWS SDK peers of
// branch h46aws were written against its DynamoDB trap, the accepted
// credential of branch h47token against its expired token;
// TestHostilePersonasOnHeldout7 replays it).
func TestHeldout7CorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, "incidents-heldout7", "heldout7", "in-sample", 12)
	require.Equal(t, 5, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "allow" }))
	require.Equal(t, 7, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}
