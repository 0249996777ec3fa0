package incidents_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/ingester/internal/incidents"

	"github.com/stretchr/testify/require"
)

// losing stores every write, but reports the first write of a key with
// the prefix lose (or the first publication, for "publish") as failed: its
// acknowledgement was lost, as when the connection drops after JetStream
// stored the message.
type losing struct {
	*memKV
	p    *pub
	mu   sync.Mutex
	lose string
}

func (l *losing) lost(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lose != "" && strings.HasPrefix(key, l.lose) {
		l.lose = ""
		return true
	}
	return false
}

func (l *losing) CreateAsync(ctx context.Context, key string, v []byte) incidents.Pending[uint64] {
	wait := l.memKV.CreateAsync(ctx, key, v)
	if l.lost(key) {
		_, _ = wait()
		return failed[uint64](errDown)
	}
	return wait
}

func (l *losing) Publish(ctx context.Context, a incidents.Alert, id string) incidents.Pending[bool] {
	wait := l.p.Publish(ctx, a, id)
	if l.lost("publish") {
		_, _ = wait()
		return failed[bool](errDown)
	}
	return wait
}

// TestALostAckIsCompletedByTheRetry: one write of a new incident's second
// round trip (the record and the publication, sent together, awaited
// together) was stored but its
// acknowledgement was lost, so the sender got no 2xx. Its retry, by the same
// process or by one restarted, completes the incident: the alert is stored
// once (the republication under the same Nats-Msg-Id is dropped as a
// duplicate), the record is investigating and the alert attached once. The
// same process reports the retry opened; a restarted one cannot tell it
// from a repeat notification.
func TestALostAckIsCompletedByTheRetry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, lose string
		restart    bool
		outcome    incidents.Outcome
	}{
		{name: "publication", lose: "publish", outcome: incidents.Opened},
		{name: "publication, then a restart", lose: "publish", restart: true, outcome: incidents.Duplicate},
		{name: "record", lose: "inc-", outcome: incidents.Opened},
		{name: "record, then a restart", lose: "inc-", restart: true, outcome: incidents.Duplicate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			l := &losing{memKV: newKV(), p: newPub(), lose: tc.lose}
			x := incidents.New(l, l, 4, time.Hour)
			a := alert("shop-api", "r1", "fp1", t0, contracts.AlertFiring)
			_, err := x.Ingest(ctx, a, t0)
			require.ErrorIs(t, err, incidents.ErrStore, "no ack, no 2xx")

			if tc.restart {
				x = incidents.New(l, l, 4, time.Hour)
			}
			r, err := x.Ingest(ctx, a, t0.Add(10*time.Second))
			require.NoError(t, err)
			require.Equal(t, tc.outcome, r.Outcome)
			require.Equal(t, a.IncidentID, r.IncidentID)
			require.Len(t, l.p.published(), 1, "stored once")
			require.Equal(t, incidents.StateInvestigating, state(t, l.memKV, a.IncidentID).State)
			require.Equal(t, map[string]bool{"fp." + a.IncidentID + ".fp1": true}, l.firing(), "the alert fires, once")
		})
	}
}
