package ingester

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/fabric"
	"agentk/platform/service"
	"agentk/platform/topology"
	"agentk/services/ingester/internal/incidents"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// running is an ingester served over a real fabric.
type running struct {
	url  string
	deps service.Deps
	f    *fabric.Fabric
	stop func()
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// start serves the ingester on the fabric f with env vars vars, optionally
// wrapping its publisher, and returns once it is ready.
func start(t testing.TB, f *fabric.Fabric, vars map[string]string, wrap func(incidents.Publisher) incidents.Publisher) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	base := map[string]string{"AGENTK_INGEST_LOCAL_ONLY": "true", "AGENTK_INGEST_DISPATCH_INTERVAL": "1h"}
	for k, v := range vars {
		base[k] = v
	}
	d, err := f.Deps(ctx, envelope.RoleIngester, func() time.Time { return time.Now().UTC() }, env(base))
	require.NoError(t, err)
	ready := make(chan struct{})
	d.Ready = func() { close(ready) }
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() { errc <- serve(ctx, d, ln, wrap) }()
	select {
	case <-ready:
	case err := <-errc:
		t.Fatalf("ingester did not start: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("ingester not ready after 30 s")
	}
	r := &running{url: "http://" + ln.Addr().String(), deps: d, f: f}
	r.stop = func() {
		cancel()
		require.NoError(t, <-errc)
	}
	return r
}

func embedded(t testing.TB) *fabric.Fabric {
	t.Helper()
	f, err := fabric.StartEmbedded(context.Background(), fabric.Options{DataDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// client keeps a connection per concurrent sender (the default transport
// keeps two, so 8 senders would dial for most requests).
var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

func post(t testing.TB, url string, body []byte) (int, []byte) {
	t.Helper()
	resp, err := client.Post(url+"/v1/alerts", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	return resp.StatusCode, buf.Bytes()
}

// storedAlerts opens every message of the alert stream, verifying the
// ingester's signature as the investigator will.
func storedAlerts(t testing.TB, f *fabric.Fabric) []contracts.AlertV1 {
	t.Helper()
	ctx := context.Background()
	admin, err := f.Admin(ctx)
	require.NoError(t, err)
	defer func() { _ = admin.Close() }()
	name, ok := topology.StreamFor(contracts.SubjectAlert)
	require.True(t, ok)
	s, err := admin.JetStream().Stream(ctx, name)
	require.NoError(t, err)
	info, err := s.Info(ctx)
	require.NoError(t, err)
	var out []contracts.AlertV1
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		m, err := s.GetMsg(ctx, seq)
		require.NoError(t, err)
		var a contracts.AlertV1
		_, err = f.Keyring().Open(m.Data, contracts.SubjectAlert, time.Now(), &a)
		require.NoError(t, err)
		out = append(out, a)
	}
	return out
}

// incidentKeys counts the incident records of the bucket and the firing
// alerts it holds: the fp keys, and the opening alert of each record that
// has not resolved it (a new incident writes no fp key for its own alert).
func incidentKeys(t testing.TB, f *fabric.Fabric) (records, firing int) {
	t.Helper()
	ctx := context.Background()
	admin, err := f.Admin(ctx)
	require.NoError(t, err)
	defer func() { _ = admin.Close() }()
	kv, err := admin.KeyValue(ctx, topology.BucketIncidents)
	require.NoError(t, err)
	l, err := kv.ListKeys(ctx)
	if err == jetstream.ErrNoKeysFound {
		return 0, 0
	}
	require.NoError(t, err)
	alerts := map[string]bool{}
	for k := range l.Keys() {
		switch {
		case strings.HasPrefix(k, "inc-"):
			records++
			e, err := kv.Get(ctx, k)
			require.NoError(t, err)
			var rec incidents.Record
			require.NoError(t, json.Unmarshal(e.Value(), &rec))
			if !rec.AlertResolved {
				alerts["fp."+rec.IncidentID+"."+rec.Alert.Fingerprint] = true
			}
		case strings.HasPrefix(k, "fp."):
			alerts[k] = true
		}
	}
	return records, len(alerts)
}

// stormBody is one webhook body of n alerts of service svc (rule "burn"),
// fingerprints first..first+n-1, shaped as SigNoz sends them.
func stormBody(svc string, first, n int, startsAt time.Time) []byte {
	type alert struct {
		Status       string            `json:"status"`
		Labels       map[string]string `json:"labels"`
		Annotations  map[string]string `json:"annotations"`
		StartsAt     string            `json:"startsAt"`
		EndsAt       string            `json:"endsAt"`
		GeneratorURL string            `json:"generatorURL"`
		Fingerprint  string            `json:"fingerprint"`
	}
	alerts := make([]alert, n)
	for i := range n {
		alerts[i] = alert{
			Status: "firing",
			Labels: map[string]string{"alertname": svc + " error budget burn", "ruleId": "burn-" + svc, "service.name": svc,
				"severity": "critical", "instance": fmt.Sprintf("%s-%d", svc, first+i)},
			Annotations:  map[string]string{"burn_rate": "3.5", "summary": svc + " is burning its error budget"},
			StartsAt:     startsAt.Add(time.Duration(first+i) * time.Second).Format(time.RFC3339),
			EndsAt:       "0001-01-01T00:00:00Z",
			GeneratorURL: "http://signoz:8080/alerts/edit?ruleId=burn-" + svc,
			Fingerprint:  fmt.Sprintf("%08x%08x", len(svc)*7919+int(svc[len(svc)-1]), first+i),
		}
	}
	b, _ := json.Marshal(map[string]any{
		"receiver": "agentk", "status": "firing", "alerts": alerts, "version": "4",
		"groupLabels": map[string]string{"alertname": svc + " error budget burn"}, "externalURL": "http://signoz:8080",
		"groupKey": `{}/{ruleId="burn-` + svc + `"}:{}`, "truncatedAlerts": 0,
	})
	return b
}
