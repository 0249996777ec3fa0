package ingester

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"agentk/platform/fabric"
	"agentk/platform/freeport"
	"agentk/platform/identity"
	"agentk/platform/natsembed"
	"agentk/services/ingester/internal/httpport"
	"agentk/services/ingester/internal/incidents"

	"github.com/stretchr/testify/require"
)

func TestSigNozPayloadsEndToEnd(t *testing.T) {
	f := embedded(t)
	r := start(t, f, nil, nil)
	defer r.stop()
	read := func(name string) []byte {
		b, err := os.ReadFile("webhook/testdata/" + name)
		require.NoError(t, err)
		return b
	}
	steps := []struct {
		file    string
		outcome incidents.Outcome
	}{
		{"signoz-test-notification.json", incidents.TestAck},
		{"signoz-nodata.json", incidents.NoData},
		{"signoz-threshold.json", incidents.Opened},
		{"signoz-threshold.json", incidents.Duplicate},
		{"signoz-resolved.json", incidents.Resolved},
		{"alertmanager-prometheus.json", incidents.Opened},
	}
	for _, s := range steps {
		code, body := post(t, r.url, read(s.file))
		require.Equal(t, 200, code, string(body))
		var resp httpport.Response
		require.NoError(t, json.Unmarshal(body, &resp))
		require.Equal(t, string(s.outcome), resp.Alerts[0].Outcome, s.file)
	}
	alerts := storedAlerts(t, f)
	var kinds []string
	for _, a := range alerts {
		kinds = append(kinds, fmt.Sprintf("%s/%s/nodata=%v", a.Service, a.Status, a.NoData))
	}
	require.Equal(t, []string{
		"shop-api/firing/nodata=true", "shop-api/firing/nodata=false", "shop-api/resolved/nodata=false", "payments/firing/nodata=false",
	}, kinds, "the test notification is never published; the rest are, signed")
	require.Equal(t, alerts[1].IncidentID, alerts[2].IncidentID, "the resolution closes the incident it opened")
	require.Equal(t, 14.4, alerts[1].BurnRate)
}

// killing publishes after shutting the bus down on the first call: the bus
// dies between receipt of the webhook and the JetStream ack.
type killing struct {
	once sync.Once
	kill func()
	next incidents.Publisher
}

func (k *killing) Publish(ctx context.Context, a incidents.Alert, id string) incidents.Pending[bool] {
	k.once.Do(k.kill)
	return k.next.Publish(ctx, a, id)
}

func TestBusKilledBetweenReceiptAndAckThenRetryMakesOneIncident(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	ids, err := identity.Ensure(filepath.Join(dir, "keys"))
	require.NoError(t, err)
	opts := natsembed.Options{DataDir: filepath.Join(dir, "nats"), Port: freePort(t), Users: ids.PublicKeys()}
	srv, err := natsembed.Start(opts)
	require.NoError(t, err)
	f, err := fabric.Remote(ctx, srv.ClientURL(), filepath.Join(dir, "keys"), fabric.Options{})
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	r := start(t, f, map[string]string{"AGENTK_INGEST_TIMEOUT": "1s"}, func(p incidents.Publisher) incidents.Publisher {
		return &killing{kill: srv.Shutdown, next: p}
	})
	defer r.stop()

	body, err := os.ReadFile("webhook/testdata/signoz-threshold.json")
	require.NoError(t, err)
	code, resp := post(t, r.url, body)
	require.Equal(t, 503, code, "no ack, no 2xx: SigNoz must retry (%s)", resp)

	srv2, err := natsembed.Start(opts) // same port, same JetStream store
	require.NoError(t, err)
	defer srv2.Shutdown()
	// SigNoz retries until it gets a 2xx; the connection comes back on its own.
	deadline := time.Now().Add(30 * time.Second)
	for code != 200 && time.Now().Before(deadline) {
		code, resp = post(t, r.url, body)
	}
	require.Equal(t, 200, code, string(resp))
	var out httpport.Response
	require.NoError(t, json.Unmarshal(resp, &out))
	require.Equal(t, string(incidents.Opened), out.Alerts[0].Outcome, "the retry completes the half-filed incident")

	code, _ = post(t, r.url, body)
	require.Equal(t, 200, code)
	alerts := storedAlerts(t, f)
	require.Len(t, alerts, 1, "exactly one incident on the bus")
	records, firing := incidentKeys(t, f)
	require.Equal(t, 1, records)
	require.Equal(t, 1, firing)
}

func TestStormOfTenThousandAlertsAcrossTwentyServices(t *testing.T) {
	if testing.Short() {
		t.Skip("storm test skipped in -short")
	}
	f := embedded(t)
	r := start(t, f, map[string]string{"AGENTK_INGEST_MAX_INVESTIGATIONS": "5"}, nil)
	defer r.stop()
	const services, perService, perBody = 20, 500, 50
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	type job struct{ body []byte }
	jobs := make(chan job)
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				code, body := post(t, r.url, j.body)
				if code != 200 {
					t.Errorf("status %d: %s", code, body)
					continue
				}
				var resp httpport.Response
				if err := json.Unmarshal(body, &resp); err != nil {
					t.Error(err)
					continue
				}
				mu.Lock()
				for _, a := range resp.Alerts {
					outcomes[a.Outcome]++
				}
				mu.Unlock()
			}
		}()
	}
	for first := 0; first < perService; first += perBody {
		for s := range services {
			jobs <- job{stormBody(fmt.Sprintf("svc-%02d", s), first, perBody, t0)}
		}
	}
	close(jobs)
	wg.Wait()

	total := 0
	for _, n := range outcomes {
		total += n
	}
	require.Equal(t, services*perService, total, "every alert filed")
	require.Equal(t, 5, outcomes[string(incidents.Opened)], "five investigations at once")
	require.Equal(t, 15, outcomes[string(incidents.Queued)], "the rest queue")
	records, firing := incidentKeys(t, f)
	require.Equal(t, services, records, "exactly 20 incidents")
	require.Equal(t, services*perService, firing, "no alert lost")
	alerts := storedAlerts(t, f)
	require.Len(t, alerts, 5, "only released incidents reach the investigator")
}

func freePort(t testing.TB) int {
	t.Helper()
	return freeport.Port(t)
}
