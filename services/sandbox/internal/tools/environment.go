package tools

import (
	"slices"
	"strconv"

	"agentk/contracts"
	"agentk/services/sandbox/internal/signoz"
)

// EnvironmentKeys are the resource attributes that name a deployment
// environment, newest convention first: OpenTelemetry's
// deployment.environment.name (semantic conventions 1.27 on) and the older
// deployment.environment.
var EnvironmentKeys = []string{"deployment.environment.name", "deployment.environment"}

// environmentQueries are deployment_markers' queries after "markers": the
// marker spans' environment ("marker_env") and the service's latest other
// spans' ("span_env"), each selecting every one of EnvironmentKeys. Both are
// optional, so that a SigNoz that refuses one loses the environments, never
// the markers. Every key is selected with its context (resource), which
// SigNoz maps to a column without its metadata: a key no span carries is a
// warning ("key … not found in metadata"), not a refusal (only a bare key,
// without a context, that SigNoz has never seen is refused), so one query
// reads both conventions where one per key doubled the queries.
func environmentQueries(svc string, from, to int64, lim Limits) []Query {
	fields := []signoz.FieldKey{span("span_id", "string"), span("timestamp", "number"), resource("service.name", signoz.SignalTraces)}
	for _, key := range EnvironmentKeys {
		fields = append(fields, resource(key, signoz.SignalTraces))
	}
	return []Query{
		{Name: "marker_env", Optional: true, Request: signoz.NewRequest(signoz.RequestRaw, from, to,
			signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, Filter: signoz.Filter{Expression: and(svc, "name = 'deployment.marker'")}, Limit: lim.MaxRows, Order: desc("timestamp"), SelectFields: fields})},
		{Name: "span_env", Optional: true, Request: signoz.NewRequest(signoz.RequestRaw, from, to,
			signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, Filter: signoz.Filter{Expression: and(svc, notMarker)}, Limit: lim.MaxRows, Order: desc("timestamp"), SelectFields: fields})},
	}
}

// markerEnvironments reads environmentQueries' answers (resps[first] and
// resps[first+1]): the environment of each marker span by span id, and the
// environments the service's latest other spans name, sorted. A span's
// environment is the value of the first of EnvironmentKeys it carries. Rows
// of another service are ignored; an answer SigNoz refused is an answer with
// no rows.
func markerEnvironments(svc string, resps []signoz.Response, first int) (map[string]string, []string) {
	byMarker := map[string]string{}
	spanEnv := map[string]string{}
	for j, into := range []map[string]string{byMarker, spanEnv} {
		rows, err := rawRows(resps, first+j)
		if err != nil {
			continue
		}
		for n, r := range rows {
			if resourceValue(r.Data, "service.name") != svc {
				continue
			}
			id := attrString(r.Data, "span_id")
			if id == "" {
				id = "#" + strconv.Itoa(n)
			}
			for _, key := range EnvironmentKeys {
				if env := resourceValue(r.Data, key); env != "" {
					into[id] = env
					break
				}
			}
		}
	}
	var envs []string
	for _, env := range spanEnv {
		if !slices.Contains(envs, env) {
			envs = append(envs, env)
		}
	}
	slices.Sort(envs)
	return byMarker, envs
}

// withEnvironments sets each marker's Environment from byMarker (by span id).
func withEnvironments(ms []contracts.DeploymentMarker, byMarker map[string]string) {
	for i := range ms {
		if ms[i].SpanID != "" {
			ms[i].Environment = byMarker[ms[i].SpanID]
		}
	}
}
