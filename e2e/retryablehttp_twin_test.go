package e2e

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// The twins of the two go-retryablehttp releases that persona:oracle is
// denied (issue 35; docs/eval/generalisation.md, "session 16, h45impatient").
// In both the gate names the client's peer a slow or failing dependency (and
// in heldout3 fx-rates a shared cause); each twin below is the same world
// with the peer failing or slowing on its own under a client that did not
// change, the story the recorded telemetry cannot be told from (ledger-sync)
// or that a reading of the client's patience would have to keep apart
// (tariff-engine). No investigator may roll a twin back.
const (
	ledgerSync   = "incidents-signals/sig-retryablehttp-ledger-sync"
	tariffEngine = "incidents-heldout3/ho3-retryablehttp-timeout-tariff-engine"
)

// tariffOnset is the start of tariff-engine's onset bucket, and
// tariffRelease the early twin's marker and ledger start for git-b92a4f1:
// 30 s before the bucket, so that the recorded sub-minute order (the ledger
// 1.5 s after the bucket's start) does not deny the twins by itself.
var (
	tariffOnset   = time.Date(2026, 12, 2, 15, 40, 0, 0, time.UTC)
	tariffRelease = tariffOnset.Add(-30 * time.Second)
)

// loadEarlyTariff loads the tariff-engine incident with git-b92a4f1's
// marker and ledger start moved to tariffRelease.
func loadEarlyTariff(t *testing.T) *incident.Incident {
	t.Helper()
	return loadMovedRelease(t, tariffEngine, "tariff-engine", "git-b92a4f1", tariffRelease)
}

// fxSlowsAlone edits the early twin into fx-rates slowing threefold on its
// own at the onset (every operation, for every caller) under a client that
// kept its old 2 s timeout: since the onset tariff-engine makes one attempt
// a call (the resends and their fx-rates spans gone, no resend_count, no
// retry log line), waits for fx-rates' answer (the call lasts it and 1 ms)
// and fails nothing; its request spans lose what the client's retries added
// and gain what fx-rates' slowing adds.
func fxSlowsAlone(inc *incident.Incident) {
	calls, last := map[string]incident.Span{}, map[string]incident.Span{}
	for _, s := range inc.Spans {
		if s.Service() == "tariff-engine" && s.Kind == 3 && s.Name == "POST" && !s.Timestamp.Before(tariffOnset) {
			calls[s.SpanID] = s
		}
	}
	for _, s := range inc.Spans {
		if _, ok := calls[s.ParentSpanID]; ok && s.Service() == "fx-rates" {
			if l, seen := last[s.ParentSpanID]; !seen || s.Timestamp.After(l.Timestamp) {
				last[s.ParentSpanID] = s
			}
		}
	}
	delta := map[string]int64{}
	for id, c := range calls {
		k := last[id]
		k.Timestamp, k.DurationNano = c.Timestamp.Add(time.Millisecond), 3*k.DurationNano
		k.HasError, k.StatusCode, k.StatusMessage = false, 0, ""
		k.Attributes = maps.Clone(k.Attributes)
		k.Attributes["http.response.status_code"] = json.RawMessage("200")
		last[id] = k
		delta[c.ParentSpanID] = k.DurationNano + int64(time.Millisecond) - c.DurationNano
	}
	out := make([]incident.Span, 0, len(inc.Spans))
	for _, s := range inc.Spans {
		if _, req := delta[s.SpanID]; s.Timestamp.Before(tariffOnset) && !req {
			out = append(out, s)
			continue
		}
		out = append(out, slowAlone(s, calls, last, delta)...)
	}
	inc.Spans = out
	inc.Logs = slices.DeleteFunc(inc.Logs, func(l incident.Log) bool {
		return !l.Timestamp.Before(tariffOnset) && strings.Contains(l.Body, "retrying in")
	})
}

// slowAlone is fxSlowsAlone's edit of one span since the onset: nothing
// (an attempt that was not the call's last), the call's last attempt, the
// call itself, its request span, or any other fx-rates span slowed 3x.
func slowAlone(s incident.Span, calls, last map[string]incident.Span, delta map[string]int64) []incident.Span {
	if _, ok := calls[s.ParentSpanID]; ok && s.Service() == "fx-rates" {
		if k := last[s.ParentSpanID]; k.SpanID == s.SpanID {
			return []incident.Span{k}
		}
		return nil
	}
	if c, ok := calls[s.SpanID]; ok {
		c.DurationNano = last[s.SpanID].DurationNano + int64(time.Millisecond)
		c.HasError, c.StatusCode, c.StatusMessage = false, 0, ""
		c.Attributes = maps.Clone(c.Attributes)
		delete(c.Attributes, "http.request.resend_count")
		delete(c.Attributes, "error.type")
		c.Attributes["http.response.status_code"] = json.RawMessage("200")
		return []incident.Span{c}
	}
	if d, ok := delta[s.SpanID]; ok {
		s.DurationNano += d
		s.HasError, s.StatusCode, s.StatusMessage = false, 0, ""
		s.Attributes = maps.Clone(s.Attributes)
		s.Attributes["http.response.status_code"] = json.RawMessage("200")
		return []incident.Span{s}
	}
	if s.Service() == "fx-rates" {
		s.DurationNano *= 3
	}
	return []incident.Span{s}
}

// fxFailsAlone edits the early twin into fx-rates failing on its own at the
// onset under the unchanged client (its 2 s timeout, its 1000 ms wait on a
// 503, as git-7d41c0e logged it): every attempt of a call since the onset
// but the last is fx-rates' 503 ("upstream ECB feed stale"), answered in the
// time it took, and the client waits 1000 ms before the next; the last is
// fx-rates' 200, or its 503 when the call gave up after 5 attempts. The
// calls, their request spans and the retry lines follow.
func fxFailsAlone(inc *incident.Incident) {
	calls, attempts := map[string]incident.Span{}, map[string][]incident.Span{}
	for _, s := range inc.Spans {
		if s.Service() == "tariff-engine" && s.Kind == 3 && s.Name == "POST" && !s.Timestamp.Before(tariffOnset) {
			calls[s.SpanID] = s
		}
	}
	for _, s := range inc.Spans {
		if _, ok := calls[s.ParentSpanID]; ok && s.Service() == "fx-rates" {
			attempts[s.ParentSpanID] = append(attempts[s.ParentSpanID], s)
		}
	}
	edited, delta := map[string]incident.Span{}, map[string]int64{}
	for id, c := range calls {
		as := attempts[id]
		slices.SortFunc(as, func(a, b incident.Span) int { return a.Timestamp.Compare(b.Timestamp) })
		gaveUp := c.HasError && len(as) == 5
		at := c.Timestamp.Add(time.Millisecond)
		for i, a := range as {
			a.Timestamp, a.DurationNano = at, min(a.DurationNano, int64(1900*time.Millisecond))
			fail := i < len(as)-1 || gaveUp
			a.HasError, a.StatusCode, a.StatusMessage = fail, 0, ""
			a.Attributes = maps.Clone(a.Attributes)
			a.Attributes["http.response.status_code"] = json.RawMessage("200")
			if fail {
				a.StatusCode, a.StatusMessage = 2, "upstream ECB feed stale"
				a.Attributes["http.response.status_code"] = json.RawMessage("503")
			}
			edited[a.SpanID] = a
			at = a.Timestamp.Add(time.Duration(a.DurationNano) + time.Second)
		}
		end := at.Add(-time.Second + time.Millisecond)
		c.DurationNano, c.HasError, c.StatusCode, c.StatusMessage = int64(end.Sub(c.Timestamp)), gaveUp, 0, ""
		c.Attributes = maps.Clone(c.Attributes)
		delete(c.Attributes, "error.type")
		c.Attributes["http.response.status_code"] = json.RawMessage("200")
		if gaveUp {
			c.StatusCode, c.StatusMessage = 2, "POST https://fx-rates.pricing.svc.cluster.local:8443/v2/convert giving up after 5 attempt(s): 503 Service Unavailable"
			c.Attributes["http.response.status_code"], c.Attributes["error.type"] = json.RawMessage("503"), json.RawMessage(`"503"`)
		}
		delta[c.ParentSpanID] = c.DurationNano - calls[id].DurationNano
		edited[id] = c
	}
	for i, s := range inc.Spans {
		if e, ok := edited[s.SpanID]; ok {
			inc.Spans[i] = e
		} else if d, ok := delta[s.SpanID]; ok {
			s.DurationNano += d
			s.HasError = edited[callOf(calls, s.SpanID)].HasError
			inc.Spans[i] = s
		}
	}
	for i, l := range inc.Logs {
		if !l.Timestamp.Before(tariffOnset) && strings.Contains(l.Body, ": retrying in ") {
			left := l.Body[strings.LastIndex(l.Body, "("):]
			inc.Logs[i].Body = "[DEBUG] POST https://fx-rates.pricing.svc.cluster.local:8443/v2/convert (status: 503): retrying in 1000ms " + left
		}
	}
}

// callOf is the id of the call (among calls) whose parent is the request
// span req.
func callOf(calls map[string]incident.Span, req string) string {
	for id, c := range calls {
		if c.ParentSpanID == req {
			return id
		}
	}
	return ""
}

// TestRetryablehttpTwinsAreDenied replays, with every investigator, the
// early tariff-engine twin (the release itself: logged, not required, as
// fx-rates' co-regression and the slow calls deny it today) and the traps:
//   - tariff-engine, fx-rates slows on its own under the unchanged client
//     (fxSlowsAlone): fx-rates is a slow dependency and a shared cause;
//   - tariff-engine, fx-rates answers 503 on its own under the unchanged
//     client, which retries them as before (fxFailsAlone);
//   - ledger-sync as recorded, read as ledger.internal failing at 08:58 on
//     its own under r323's unchanged retry policy (r322 logged the same
//     "retrying in 1s (4 left)", and r323 served three minutes clean
//     first): no span of the ledger, nothing in the telemetry tells this
//     twin from the release, so the release stays a missed rollback while
//     the twin holds. persona:quality's config_regression was rolled back
//     on main 352eab5: the version's new "upstream timed out after
//     retries" stood for what a configuration changed (mutant
//     gate.change_timeout);
//   - the same outage twin where ledger-sync wraps its client's give-up in
//     a text of its own, "ledger sync failed" (wrapLedgerFailures):
//     persona:quality's config_regression was rolled back on h45impatient
//     3e1d424 (the gate read only the service's status); the failed calls'
//     own give-up (timed_out_dependencies) now denies it (mutants
//     gate.change_timed_out, sandbox.timed_out_peers).
func TestRetryablehttpTwinsAreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the retryablehttp twins; skipped with -short")
	}
	dir := t.TempDir()
	early := loadEarlyTariff(t)
	incs := []*incident.Incident{writeTwin(t, dir, early, "ho3-retryablehttp-timeout-tariff-engine-early-twin")}
	slow := loadEarlyTariff(t)
	fxSlowsAlone(slow)
	slow.Meta.Expect.Verdict = "deny"
	incs = append(incs, writeTwin(t, dir, slow, "ho3-retryablehttp-timeout-tariff-engine-fx-slows-alone-twin"))
	fails := loadEarlyTariff(t)
	fxFailsAlone(fails)
	fails.Meta.Expect.Verdict = "deny"
	incs = append(incs, writeTwin(t, dir, fails, "ho3-retryablehttp-timeout-tariff-engine-fx-fails-alone-twin"))
	ledger, err := incident.Load(ledgerSync)
	require.NoError(t, err)
	ledger.Meta.ID += "-ledger-outage-twin"
	ledger.Meta.Expect.Verdict = "deny"
	incs = append(incs, ledger)
	wrapped, err := incident.Load(ledgerSync)
	require.NoError(t, err)
	wrapped.Meta.Expect.Verdict = "deny"
	wrapLedgerFailures(wrapped)
	wrapped = writeTwin(t, dir, wrapped, "sig-retryablehttp-ledger-sync-wrapped-outage-twin")
	incs = append(incs, wrapped)
	invs := append([]string{"rules", "persona:oracle", "persona:wrong", "persona:quality"}, hostilePersonas()...)
	outs := evalRetrying(t, incs, invs)
	for _, o := range outs {
		t.Logf("%s %s: verdict %s diagnosis %s failed %v %v", o.Incident, o.Investigator, o.Verdict, o.Diagnosis, o.FailedChecks, o.FailedReasons)
	}
	holdSafe(t, "retryablehttp-twins", outs)
}

// wrapLedgerFailures edits the ledger outage twin into a service that wraps
// its client's give-up: ledger-sync's failed requests say "ledger sync
// failed" while their client spans to ledger.internal still say "upstream
// timed out after retries" (the handler's own text over the client's, as
// tariff-engine's "fx conversion failed" over "… context deadline exceeded").
func wrapLedgerFailures(inc *incident.Incident) {
	for i, s := range inc.Spans {
		if s.Service() == "ledger-sync" && s.Kind == 2 && s.StatusMessage == "upstream timed out after retries" {
			inc.Spans[i].StatusMessage = "ledger sync failed"
		}
	}
}
