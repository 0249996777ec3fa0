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

// environmentQueries are deployment_markers' queries after "markers": for
// each of EnvironmentKeys, the marker spans' value of it and the service's
// latest other spans' value of it. Each is optional and selects one key
// alone: SigNoz refuses a query that selects a key it has never seen, and
// a recording that names only one convention must not lose the other, nor
// the markers themselves.
func environmentQueries(svc string, from, to int64, lim Limits) []Query {
	var qs []Query
	for _, key := range EnvironmentKeys {
		fields := []signoz.FieldKey{span("span_id", "string"), span("timestamp", "number"), resource("service.name", signoz.SignalTraces), resource(key, signoz.SignalTraces)}
		qs = append(qs,
			Query{Name: "marker_env " + key, Optional: true, Request: signoz.NewRequest(signoz.RequestRaw, from, to,
				signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, Filter: signoz.Filter{Expression: and(svc, "name = 'deployment.marker'")}, Limit: lim.MaxRows, Order: desc("timestamp"), SelectFields: fields})},
			Query{Name: "span_env " + key, Optional: true, Request: signoz.NewRequest(signoz.RequestRaw, from, to,
				signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, Filter: signoz.Filter{Expression: and(svc, notMarker)}, Limit: lim.MaxRows, Order: desc("timestamp"), SelectFields: fields})})
	}
	return qs
}

// markerEnvironments reads environmentQueries' answers (resps[first:]): the
// environment of each marker span by span id, and the environments the
// service's latest other spans name, sorted. A span's environment is the
// value of the first of EnvironmentKeys it carries. Rows of another service
// are ignored; an answer SigNoz refused is an answer with no rows.
func markerEnvironments(svc string, resps []signoz.Response, first int) (map[string]string, []string) {
	byMarker := map[string]string{}
	spanEnv := map[string]string{}
	for k := range EnvironmentKeys {
		// The older key first, so that the newer one, read last, wins.
		key := EnvironmentKeys[len(EnvironmentKeys)-1-k]
		i := first + 2*(len(EnvironmentKeys)-1-k)
		for j, into := range []map[string]string{byMarker, spanEnv} {
			rows, err := rawRows(resps, i+j)
			if err != nil {
				continue
			}
			for n, r := range rows {
				if resourceValue(r.Data, "service.name") != svc {
					continue
				}
				id := attrString(r.Data, "span_id")
				if id == "" {
					id = key + "#" + strconv.Itoa(n)
				}
				if env := resourceValue(r.Data, key); env != "" {
					into[id] = env
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
