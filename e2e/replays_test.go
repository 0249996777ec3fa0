package e2e

// replays_test.go: every replay of the package made once (issue 36). Several
// tests replay the same incidents with the same investigators: the CI
// worlds with the oracle and the rules (the targets), their false-marker and
// trap worlds with the hostile personas (safety), the metamorphic subjects'
// originals. An outcome is kept by the incident folder's content and the
// investigator, and a test that asks for a replay already made reads its
// outcome: every test still asserts on every outcome it asks for, and run
// alone (go test -run, a mutant's killer) it replays them itself.

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"agentk/cmd/agentk/replay"
	"agentk/contracts/incident"
	"agentk/e2e/worldgen"

	"github.com/stretchr/testify/require"
)

// evalWorkers is how many replays an Eval runs at once (replay.Eval's
// workers): AGENTK_EVAL_WORKERS, else 2. Four on the 2-core machine at
// load 45 (issue 36) left 40 of the culprit corpora's 186 replays without a
// ready stack in its 20 s, each replayed again alone, and cost 88 CPU
// seconds where two cost 54: more is for a machine with more cores.
func evalWorkers() int {
	if n, err := strconv.Atoi(os.Getenv("AGENTK_EVAL_WORKERS")); err == nil && n > 0 {
		return n
	}
	return 2
}

// replayKey is one replay: an incident folder's content (folderDigest) and
// an investigator.
type replayKey struct{ content, inv string }

// replays are the outcomes of the replays the package's tests made, with
// no error (a failed replay is replayed again when another test asks).
var replays struct {
	mu   sync.Mutex
	outs map[replayKey]replay.Outcome
}

// folderDigest is the SHA-256 of an incident folder's files, names and
// contents: two folders written alike are one incident, wherever they are.
func folderDigest(t *testing.T, dir string) string {
	t.Helper()
	d, err := digest(dir)
	require.NoError(t, err)
	return d
}

// digest is folderDigest's work, for goroutines other than the test's.
func digest(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, e := range entries {
		if e.IsDir() {
			return "", fmt.Errorf("%s: an incident folder holds files only", dir)
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return "", err
		}
		_, _ = h.Write([]byte(e.Name() + "\x00"))
		_, _ = h.Write(b)
		_, _ = h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// folderFacts are what two tests read of an incident folder's loaded
// recording besides its replays: TestAllowIncidentsMarkersAgreeWithLedger
// (markerFacts) and trapWorlds (trapMarker).
type folderFacts struct {
	allow   bool
	problem string
	trap    bool
}

// factsOf reads inc's folderFacts.
func factsOf(inc *incident.Incident) folderFacts {
	var f folderFacts
	f.allow, f.problem = markerFacts(inc)
	f.trap = trapMarker(inc)
	return f
}

// loaded are the folderFacts of every folder a replay of the package's
// tests loaded, by the folder's content (folderDigest): the two tests
// read them instead of parsing the recording again (a world's parse is
// about what its replay costs: 27 s of CPU of the package's 695 s went to
// parsing again folders the replays had parsed). A folder no replay
// loaded, or any test run alone, is loaded by the test itself.
var loaded struct {
	mu    sync.Mutex
	facts map[string]folderFacts
}

// remember records the folderFacts of incs, loaded from folders whose
// digests are keys.
func remember(keys []string, incs []*incident.Incident) {
	facts := make([]folderFacts, len(incs))
	for i, inc := range incs {
		facts[i] = factsOf(inc)
	}
	loaded.mu.Lock()
	defer loaded.mu.Unlock()
	if loaded.facts == nil {
		loaded.facts = map[string]folderFacts{}
	}
	for i, k := range keys {
		loaded.facts[k] = facts[i]
	}
}

// factsOfFolder returns the folderFacts of the folder dir: remembered by
// its digest, else read from the folder loaded here.
func factsOfFolder(dir string) (folderFacts, error) {
	key, err := digest(dir)
	if err != nil {
		return folderFacts{}, err
	}
	loaded.mu.Lock()
	f, ok := loaded.facts[key]
	loaded.mu.Unlock()
	if ok {
		return f, nil
	}
	inc, err := incident.Load(dir)
	if err != nil {
		return folderFacts{}, err
	}
	return factsOf(inc), nil
}

// evalDirs replays the incident folders dirs for each investigator, each
// replay that no earlier test made (replays), and returns the outcomes
// investigator by investigator, folder by folder. The folders still to
// replay are grouped by the investigators they need, so that one Eval
// replays an incident with all of them (its telemetry indexed once), and
// loaded 40 at a time so that a corpus of long recordings is never held in
// memory whole.
func evalDirs(t *testing.T, dirs []string, invs []string) []replay.Outcome {
	t.Helper()
	replays.mu.Lock()
	defer replays.mu.Unlock()
	if replays.outs == nil {
		replays.outs = map[replayKey]replay.Outcome{}
	}
	keys := make([]string, len(dirs))
	for i, d := range dirs {
		keys[i] = folderDigest(t, d)
	}
	now := map[replayKey]replay.Outcome{} // this call's replays, failed ones too
	groups, need := map[string][]int{}, map[string][]string{}
	var order []string
	seen := map[string]bool{}
	for i := range dirs {
		var missing []string
		for _, inv := range invs {
			if _, ok := replays.outs[replayKey{keys[i], inv}]; !ok && !slices.Contains(missing, inv) {
				missing = append(missing, inv)
			}
		}
		g := strings.Join(missing, ",")
		if len(missing) == 0 || seen[keys[i]] {
			continue
		}
		seen[keys[i]] = true
		if _, ok := groups[g]; !ok {
			order = append(order, g)
			need[g] = missing
		}
		groups[g] = append(groups[g], i)
	}
	made, ahead := 0, 0
	for _, g := range order {
		m, a := replayGroup(t, dirs, keys, groups[g], need[g], now)
		made, ahead = made+m, ahead+a
	}
	var outs []replay.Outcome
	for _, inv := range invs {
		for i := range dirs {
			k := replayKey{keys[i], inv}
			o, ok := now[k]
			if !ok {
				o, ok = replays.outs[k]
			}
			require.True(t, ok, "%s %s: no outcome", inv, dirs[i])
			outs = append(outs, o)
		}
	}
	t.Logf("replays: %d made, %d read from earlier tests; %d made for later tests", made-ahead, len(outs)-(made-ahead), ahead)
	return outs
}

// replayGroup replays the folders dirs[at...] for each of invs, 40 at a
// time, records each outcome in now and the ones without an error in
// replays, and returns how many replays it made. In a whole run of the
// package (wholeRun) a folder is replayed at once with the investigators
// later tests will ask of it too (laterInvestigators), so that it is
// loaded and indexed once rather than once per test: those outcomes go to
// replays only, for the later tests to read and assert on.
func replayGroup(t *testing.T, dirs, keys []string, at []int, invs []string, now map[replayKey]replay.Outcome) (made, ahead int) {
	t.Helper()
	for len(at) > 0 {
		n := min(40, len(at))
		var batch, batchKeys []string
		for _, i := range at[:n] {
			batch = append(batch, dirs[i])
			batchKeys = append(batchKeys, keys[i])
		}
		incs := loadDirs(t, batch)
		remember(batchKeys, incs)
		// The batch's folders by the investigators later tests add.
		subs, extra := map[string][]int{}, map[string][]string{}
		var order []string
		for j := range batch {
			more := laterInvestigators(batch[j], batchKeys[j], incs[j], invs)
			g := strings.Join(more, ",")
			if _, ok := subs[g]; !ok {
				order = append(order, g)
				extra[g] = more
			}
			subs[g] = append(subs[g], j)
		}
		for _, g := range order {
			m, a := replayBatch(t, batch, batchKeys, incs, subs[g], invs, extra[g], now)
			made, ahead = made+m, ahead+a
		}
		at = at[n:]
	}
	return made, ahead
}

// replayBatch replays incs[js...] for each of invs and more, records the
// outcomes of invs in now and every one without an error in replays, and
// returns how many replays it made and how many of them were of more.
func replayBatch(t *testing.T, dirs, keys []string, incs []*incident.Incident, js []int, invs, more []string, now map[replayKey]replay.Outcome) (made, ahead int) {
	t.Helper()
	sub := make([]*incident.Incident, len(js))
	for k, j := range js {
		sub[k] = incs[j]
	}
	all := append(slices.Clone(invs), more...)
	outs := evalRetrying(t, sub, all)
	require.Len(t, outs, len(all)*len(js))
	for k, inv := range all {
		for m, j := range js {
			o := outs[k*len(js)+m] // Eval's order: investigator by investigator
			require.Equal(t, inv, o.Investigator)
			require.Equal(t, incs[j].Meta.ID, o.Incident, dirs[j])
			key := replayKey{keys[j], inv}
			if k < len(invs) {
				now[key] = o
			}
			if o.Error == "" {
				replays.outs[key] = o
			}
		}
	}
	return len(outs), len(more) * len(js)
}

// wholeRun reports whether the package's tests run whole: no -run, no
// -skip, no -short. Only then are a folder's replays for later tests made
// ahead (laterInvestigators): run alone (a mutant's killer, go test -run),
// a test replays what it asks and nothing more.
func wholeRun() bool {
	if testing.Short() {
		return false
	}
	for _, name := range []string{"test.run", "test.skip"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return false
		}
	}
	return true
}

// laterInvestigators are the investigators that tests running later in a
// whole run (wholeRun) ask of the folder dir (content key, loaded as inc)
// beyond invs and the replays already made: the tests run in file order,
// and each of these pairs asks the same folders first with some
// investigators, then with others.
//   - incidents-stranger: TestGeneralisationCorpora (the oracle, the rules),
//     then TestHostilePersonasOnStrangerCorpus (hostilePersonas);
//   - incidents-false-markers and the CI worlds with a false marker:
//     TestHostilePersonasOnFalseMarkerWorlds (hostilePersonas,
//     persona:wrong), then TestFalseMarkersWithEveryInvestigator
//     (everyInvestigator);
//   - the CI worlds' traps (trapWorlds): TestGeneralisationCorpora, then
//     TestHostilePersonasOnWorldTraps (hostilePersonas);
//   - heldout8Traps: TestHostilePersonasOnHeldout8Corpus, then
//     TestHeldout8TrapsAreDenied (twinInvestigators).
//
// A rule that no longer matches what a later test asks costs time, never
// an assertion: every test still asks for every outcome it asserts on, and
// reads here only outcomes with no error of the same folder content and
// investigator.
func laterInvestigators(dir, key string, inc *incident.Incident, invs []string) []string {
	if !wholeRun() {
		return nil
	}
	var later []string
	world, falseMarker := ciWorld(dir)
	if filepath.Dir(dir) == stranger {
		later = append(later, hostilePersonas()...)
	}
	if filepath.Dir(dir) == falseMarkers || falseMarker {
		later = append(later, everyInvestigator()...)
	}
	if world && deniedByDeploymentAlone(inc.Meta.Expect) && trapMarker(inc) {
		later = append(later, hostilePersonas()...)
	}
	if slices.Contains(heldout8Traps, dir) {
		later = append(later, twinInvestigators...)
	}
	var more []string
	for _, inv := range later {
		_, made := replays.outs[replayKey{key, inv}]
		if !made && !slices.Contains(invs, inv) && !slices.Contains(more, inv) {
			more = append(more, inv)
		}
	}
	return more
}

// ciWorld reports whether dir is a CI world's folder (ciWorldDirs) and
// whether that world carries a false marker.
func ciWorld(dir string) (world, falseMarker bool) {
	if shared.dir == "" || filepath.Dir(dir) != filepath.Join(shared.dir, "worlds") {
		return false, false
	}
	ciWorlds.mu.Lock()
	defer ciWorlds.mu.Unlock()
	for _, w := range ciWorlds.worlds {
		if w.ID == filepath.Base(dir) {
			return true, len(w.FalseMarkers) > 0
		}
	}
	return false, false
}

// loadDirs loads the incident folders dirs side by side, GOMAXPROCS at a
// time: parsing a recording costs about what its replay costs, and one
// after the other they kept one core of two idle while an Eval waited for
// them.
func loadDirs(t *testing.T, dirs []string) []*incident.Incident {
	t.Helper()
	incs := make([]*incident.Incident, len(dirs))
	errs := make([]error, len(dirs))
	each(len(dirs), func(i int) { incs[i], errs[i] = incident.Load(dirs[i]) })
	for i, err := range errs {
		require.NoError(t, err, dirs[i])
	}
	return incs
}

// each calls f(0) … f(n-1), GOMAXPROCS at a time, and returns when all
// have returned.
func each(n int, f func(i int)) {
	var wg sync.WaitGroup
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := range n {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			f(i)
		}()
	}
	wg.Wait()
}

// shared is the package's own temporary folder, for what several tests
// share (the CI worlds, the culprit worlds); TestMain removes it.
var shared struct {
	once sync.Once
	dir  string
	err  error
}

// scratchDir makes (once) and returns a folder name under shared.
func scratchDir(t *testing.T, name string) string {
	t.Helper()
	shared.once.Do(func() { shared.dir, shared.err = os.MkdirTemp("", "agentk-e2e-") })
	require.NoError(t, shared.err)
	dir := filepath.Join(shared.dir, name)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// TestMain runs the package's tests with the collector tuned as agentk eval
// tunes it (replay.TuneGC: GOGC=300 unless GOGC is set): the replays
// allocate gigabytes while the heap they hold is a few hundred MB, and
// marking it at Go's default of 100 was a tenth of their CPU.
func TestMain(m *testing.M) {
	restore := replay.TuneGC()
	code := m.Run()
	restore()
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// ciWorlds is the CI world corpus (worldgen.CI), drawn once for the test
// binary; each world is written once, the first time a test asks for it,
// into one folder the tests only read.
var ciWorlds struct {
	mu      sync.Mutex
	worlds  []worldgen.World
	written map[string]bool
	all     bool
}

// ciWorldDirs draws the CI worlds (once), writes those keep accepts (each
// once, side by side) and returns their folders.
func ciWorldDirs(t *testing.T, keep func(worldgen.World) bool) []string {
	t.Helper()
	ciWorlds.mu.Lock()
	defer ciWorlds.mu.Unlock()
	if ciWorlds.worlds == nil {
		for _, b := range worldgen.CI {
			ciWorlds.worlds = append(ciWorlds.worlds, b.Worlds()...)
		}
		ciWorlds.written = map[string]bool{}
	}
	dir := scratchDir(t, "worlds")
	var dirs []string
	var write []worldgen.World
	for _, w := range ciWorlds.worlds {
		if keep(w) {
			dirs = append(dirs, filepath.Join(dir, w.ID))
			if !ciWorlds.written[w.ID] {
				write = append(write, w)
			}
		}
	}
	// Side by side: each world draws its telemetry from its own seed.
	errs := make([]error, len(write))
	each(len(write), func(i int) { errs[i] = worldgen.WriteOne(dir, write[i]) })
	for i, err := range errs {
		require.NoError(t, err, write[i].ID)
		ciWorlds.written[write[i].ID] = true
	}
	return dirs
}

// drawWorlds writes the whole CI world corpus (206 worlds from fixed seeds)
// with its provenance into the CI worlds' folder the first time it is
// called, and returns that folder.
func drawWorlds(t *testing.T) string {
	t.Helper()
	ciWorldDirs(t, func(worldgen.World) bool { return true })
	ciWorlds.mu.Lock()
	defer ciWorlds.mu.Unlock()
	dir := scratchDir(t, "worlds")
	if !ciWorlds.all {
		require.NoError(t, worldgen.WriteProvenance(dir, worldgen.CI))
		ciWorlds.all = true
	}
	return dir
}
