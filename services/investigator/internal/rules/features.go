package rules

import (
	"encoding/json"
	"strconv"
	"strings"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
)

// Feature is an evidence feature named by OpenTelemetry semantic conventions:
// what the rules read from the span and log rows the sandbox recorded, never
// the wording of one corpus. Each value is the text a claim cites.
type Feature string

// Features.
const (
	// FeatServer5xx: the service's own failing server spans answer HTTP 5xx
	// (http.response.status_code, or http.status_code before semconv 1.23).
	FeatServer5xx Feature = "server-error status class on the service's server spans (http.response.status_code / http.status_code)"
	// FeatException: the failing spans carry exception.type or error.type.
	FeatException Feature = "exception.type / error.type on the service's failing spans"
	// FeatNewVersion: every failing span of the service is on the version the
	// latest deployment marker introduced (resource service.version).
	FeatNewVersion Feature = "errors only on the new service.version"
	// FeatPool: failing spans name a connection pool (db.client.connection.pool.name).
	FeatPool Feature = "failing spans on a connection pool (db.client.connection.pool.name)"
	// FeatResend: failing client spans are resends (http.request.resend_count ≥ 1).
	FeatResend Feature = "failing client spans that are resends (http.request.resend_count)"
	// FeatPeer: most of the service's failures are its client spans to a peer
	// (peer.service, server.address, net.peer.name) failing.
	FeatPeer Feature = "failing client spans to a dependency (peer.service / server.address / net.peer.name)"
	// FeatDB: the failing client spans are database calls (db.system / db.system.name).
	FeatDB Feature = "failing database client spans (db.system / db.system.name)"
)

// spanRows reads the data rows of a span evidence's compact text.
func spanRows(compact string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(compact, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var row map[string]any
		if json.Unmarshal([]byte(line), &row) == nil {
			out = append(out, row)
		}
	}
	return out
}

func str(row map[string]any, keys ...string) string {
	for _, k := range keys {
		switch v := row[k].(type) {
		case string:
			if v != "" {
				return v
			}
		case float64:
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
	}
	return ""
}

func number(row map[string]any, keys ...string) (float64, bool) {
	for _, k := range keys {
		switch v := row[k].(type) {
		case float64:
			return v, true
		case string:
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				return f, true
			}
		}
	}
	return 0, false
}

// features reads the Features of service from the span evidence; newVersion
// is the version of the latest deployment marker before the onset ("" when
// none). It returns each feature found with the ids of the evidence it came from.
func features(service, newVersion string, evidence []loop.Evidence) map[Feature][]string {
	out := map[Feature][]string{}
	var ownErr, server5xx, exc, pool, resend, peer, db, onNew int
	ids := map[Feature]map[string]bool{}
	mark := func(f Feature, id string) {
		if ids[f] == nil {
			ids[f] = map[string]bool{}
		}
		ids[f][id] = true
	}
	for _, e := range evidence {
		if e.Tool != contracts.ToolErrorTraces && e.Tool != contracts.ToolGetTrace {
			continue
		}
		for _, row := range spanRows(e.Compact) {
			if str(row, "service") != service || row["error"] != true {
				continue
			}
			ownErr++
			kind := str(row, "kind")
			if code, ok := number(row, "http.response.status_code", "http.status_code"); ok && code >= 500 && kind == "Server" {
				server5xx++
				mark(FeatServer5xx, e.ID)
			}
			if str(row, "exception.type", "error.type", "exception.message") != "" {
				exc++
				mark(FeatException, e.ID)
			}
			if str(row, "db.client.connection.pool.name") != "" {
				pool++
				mark(FeatPool, e.ID)
			}
			if n, ok := number(row, "http.request.resend_count"); ok && n >= 1 {
				resend++
				mark(FeatResend, e.ID)
			}
			if kind == "Client" && str(row, "peer.service", "server.address", "net.peer.name") != "" {
				peer++
				mark(FeatPeer, e.ID)
			}
			if kind == "Client" && str(row, "db.system", "db.system.name") != "" {
				db++
				mark(FeatDB, e.ID)
			}
			if newVersion != "" && str(row, "version") == newVersion {
				onNew++
				mark(FeatNewVersion, e.ID)
			}
		}
	}
	keep := func(f Feature, ok bool) {
		if !ok {
			return
		}
		for id := range ids[f] {
			out[f] = append(out[f], id)
		}
	}
	keep(FeatServer5xx, server5xx > 0 && peer*2 < ownErr)
	keep(FeatException, exc > 0)
	keep(FeatPool, pool > 0)
	keep(FeatResend, resend > 0)
	keep(FeatPeer, peer > 0 && peer*2 >= ownErr)
	keep(FeatDB, db > 0 && db*2 >= ownErr)
	keep(FeatNewVersion, ownErr >= 3 && onNew == ownErr)
	return out
}
