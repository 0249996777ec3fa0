package worldgen

import "net/url"

// The attribute writers below spell HTTP, network and database attributes in
// one of the two generations of the OpenTelemetry semantic conventions: the
// pre-1.20 names (http.status_code, http.method, http.url, net.peer.name,
// db.statement, db.operation) or the stable ones (http.response.status_code,
// http.request.method, url.full, server.address, db.query.text,
// db.operation.name, db.system.name).

func httpServerAttrs(sc Semconv, method, route string, status, port int) map[string]any {
	if sc == SemconvOld {
		return map[string]any{"http.method": method, "http.route": route, "http.target": route, "http.scheme": "http",
			"http.status_code": status, "net.host.port": port, "http.flavor": "1.1"}
	}
	return map[string]any{"http.request.method": method, "http.route": route, "url.path": route, "url.scheme": "http",
		"http.response.status_code": status, "server.port": port, "network.protocol.version": "1.1"}
}

func httpClientAttrs(sc Semconv, method, full, host string, port, status int, peer string) map[string]any {
	var m map[string]any
	if sc == SemconvOld {
		m = map[string]any{"http.method": method, "http.url": full, "net.peer.name": host, "net.peer.port": port}
		if status != 0 {
			m["http.status_code"] = status
		}
	} else {
		m = map[string]any{"http.request.method": method, "url.full": full, "server.address": host, "server.port": port}
		if status != 0 {
			m["http.response.status_code"] = status
		}
	}
	if u, err := url.Parse(full); err == nil && u.Host != "" && peer != "" {
		m["peer.service"] = peer
	}
	return m
}

// setStatusAttr records a client span's response code (0 is a connection
// that never answered: no code, an error.type instead).
func setStatusAttr(sc Semconv, m map[string]any, status int, failed bool) {
	key := "http.status_code"
	if sc == SemconvNew {
		key = "http.response.status_code"
		if failed {
			m["error.type"] = map[bool]string{true: "timeout", false: "500"}[status == 504]
		}
	}
	if status != 0 {
		m[key] = status
	}
}

func dbAttrs(sc Semconv, system, name, op, table, text, host string) map[string]any {
	if sc == SemconvOld {
		return map[string]any{"db.system": system, "db.name": name, "db.operation": op, "db.sql.table": table,
			"db.statement": text, "net.peer.name": host, "net.peer.port": 5432}
	}
	return map[string]any{"db.system.name": system, "db.namespace": name, "db.operation.name": op, "db.collection.name": table,
		"db.query.text": text, "server.address": host, "server.port": 5432}
}
