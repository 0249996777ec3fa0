package httpport_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/services/bridge/fakeslack"
	"agentk/services/bridge/internal/approval"
	"agentk/services/bridge/internal/desk"
	"agentk/services/bridge/internal/freezes"
	"agentk/services/bridge/internal/httpport"
	"agentk/services/bridge/internal/slackmsg"
	"agentk/services/bridge/internal/slackport"
	"agentk/services/bridge/internal/store"
	"agentk/services/bridge/internal/testkit"
	"agentk/services/bridge/internal/view"
)

const (
	botToken      = "xoxb-test-token"
	signingSecret = "test-signing-secret-0123456789"
	aliceToken    = "alice-console-token-0123456789"
	bobToken      = "bob-console-token-0123456789ab"
	signozURL     = "http://signoz.test:8080"
)

// publisher records what would go on the bus.
type publisher struct {
	mu   sync.Mutex
	outs []published
}

type published struct {
	env   envelope.Envelope
	msgID string
}

func (p *publisher) Publish(_ context.Context, env envelope.Envelope, msgID string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.outs = append(p.outs, published{env, msgID})
	return nil
}

func (p *publisher) all() []published {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]published(nil), p.outs...)
}

type rig struct {
	keys  testkit.Keys
	clock *testkit.Clock
	desk  *desk.Desk
	slack *fakeslack.Server
	pub   *publisher
	srv   *httptest.Server
	http  *httpport.Server
	fkv   *memKV
	// approvers are the rig's approvers, for a second server in a test.
	approvers approval.Approvers
	inc       *testkit.Incidents
}

func newRig(t *testing.T) *rig {
	t.Helper()
	r := &rig{keys: testkit.NewKeys(t), clock: testkit.NewClock(testkit.Epoch), slack: fakeslack.New(botToken), pub: &publisher{},
		inc: &testkit.Incidents{}}
	t.Cleanup(r.slack.Close)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	approvers, err := approval.NewApprovers(
		map[string]string{"U0ALICE": "alice", "U0BOB": "bob"},
		map[string]string{"alice": aliceToken, "bob": bobToken})
	require.NoError(t, err)
	r.approvers = approvers
	sc := slackport.New(slackport.Options{
		APIURL: r.slack.APIURL(), BotToken: botToken, Channel: "C0INCIDENTS",
		ResponseURLPrefix: r.slack.ResponseURLPrefix(),
		Links: func(rec approval.Record) slackmsg.Links {
			l := view.SigNoz(signozURL, rec.Decision)
			l.Report = "https://agentk.test/console/incidents/" + rec.Decision.IncidentID
			return l
		},
	})
	r.desk = desk.New(desk.Deps{
		Store: store.NewMemory(), Signer: r.keys.Bridge, Keyring: r.keys.Keyring, Publisher: r.pub,
		Notifier: sc, Now: r.clock.Now, Logger: log, Incidents: r.inc,
	})
	r.fkv = &memKV{vals: map[string][]byte{}}
	fd := &freezes.Desk{KV: r.fkv, Signer: r.keys.Bridge, Keyring: r.keys.Keyring, Now: r.clock.Now}
	r.http = httpport.New(httpport.Options{
		Desk: r.desk, Approvers: approvers, SigningSecret: signingSecret, Slack: sc, Freezes: fd,
		InsecureCookies: true, Now: r.clock.Now, Logger: log,
		Links: func(rec approval.Record) view.Links { return view.SigNoz(signozURL, rec.Decision) },
	})
	r.srv = httptest.NewServer(r.http.Handler())
	t.Cleanup(func() {
		r.srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r.http.Close(ctx)
	})
	return r
}

// receive delivers a gate-signed decision and returns its Slack message.
func (r *rig) receive(t *testing.T, dec contracts.DecisionV1) fakeslack.Message {
	t.Helper()
	require.NoError(t, r.desk.Receive(context.Background(), testkit.Seal(t, r.keys.Gate, dec, r.clock.Now())))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m, err := r.slack.WaitMessage(ctx, func(m fakeslack.Message) bool {
		return len(m.Text) > 0 && contains(m.Text, dec.DecisionID)
	})
	require.NoError(t, err)
	return m
}

func (r *rig) record(t *testing.T, id string) approval.Record {
	t.Helper()
	rec, err := r.desk.Get(context.Background(), id)
	require.NoError(t, err)
	return rec
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
