// Package testkit holds the deployer's test fixtures: an embedded JetStream
// server with the deployer's KV buckets, one key per role, and signed
// decisions and approvals. Only tests import it.
package testkit

import (
	"context"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/topology"
	"agentk/services/deployer/internal/kvstore"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/require"
)

// Keys holds one signer per role and a keyring that knows them all.
type Keys struct {
	Gate, Bridge, Deployer, Reviewer, Ingester *envelope.Signer
	Keyring                                    *envelope.Keyring
}

// NewKeys creates fresh keys for the roles the deployer sees.
func NewKeys(t testing.TB) Keys {
	t.Helper()
	mk := func() *envelope.Signer {
		kp, err := nkeys.CreateUser()
		require.NoError(t, err)
		seed, err := kp.Seed()
		require.NoError(t, err)
		s, err := envelope.NewSigner(seed)
		require.NoError(t, err)
		return s
	}
	k := Keys{Gate: mk(), Bridge: mk(), Deployer: mk(), Reviewer: mk(), Ingester: mk()}
	kr, err := envelope.NewKeyring(
		envelope.KeyEntry{KeyID: k.Gate.KeyID(), Role: envelope.RoleGate},
		envelope.KeyEntry{KeyID: k.Bridge.KeyID(), Role: envelope.RoleBridge},
		envelope.KeyEntry{KeyID: k.Deployer.KeyID(), Role: envelope.RoleDeployer},
		envelope.KeyEntry{KeyID: k.Reviewer.KeyID(), Role: envelope.RoleReviewer},
		envelope.KeyEntry{KeyID: k.Ingester.KeyID(), Role: envelope.RoleIngester},
	)
	require.NoError(t, err)
	k.Keyring = kr
	return k
}

// Images of the move a fixture decision approves, the ledger the rollback
// tests seed: v2 runs, v1 is the target.
const (
	FromImage = "agentk-demo/shop-api:v2"
	ToImage   = "agentk-demo/shop-api:v1"
)

// Decision returns an allowing rollback decision for service, decided at
// now, approving FromImage → ToImage.
func Decision(id, service string, now time.Time) contracts.DecisionV1 {
	return DecisionFor(id, service, FromImage, ToImage, now)
}

// DecisionFor is Decision approving the move from → to.
func DecisionFor(id, service, from, to string, now time.Time) contracts.DecisionV1 {
	return contracts.DecisionV1{
		DecisionID: id, IncidentID: "inc-" + id, InvestigationID: "inv-" + id, ReviewID: "rev-" + id,
		Service: service, Action: "rollback", Verdict: contracts.VerdictAllow,
		FailedChecks: []string{}, Diagnosis: "bad_release", Confidence: 0.9,
		CurrentImage: from, RollbackTarget: to,
		DecidedAt: now, ExpiresAt: now.Add(15 * time.Minute),
	}
}

// SealDecision signs d as signer for agentk.decision.v1 with a 15 min TTL.
func SealDecision(t testing.TB, signer *envelope.Signer, d contracts.DecisionV1, now time.Time) envelope.Envelope {
	t.Helper()
	env, err := signer.SealJSON(contracts.SubjectDecision, d, now, 15*time.Minute)
	require.NoError(t, err)
	return env
}

// Approval returns an approving answer to the decision envelope denv.
func Approval(t testing.TB, denv envelope.Envelope, now time.Time) contracts.ApprovalV1 {
	t.Helper()
	var d contracts.DecisionV1
	require.NoError(t, jsonUnmarshal(denv.Payload, &d))
	return contracts.ApprovalV1{
		ApprovalID: "appr-" + d.DecisionID, DecisionID: d.DecisionID, DecisionDigest: denv.Digest(),
		IncidentID: d.IncidentID, Service: d.Service, Answer: contracts.AnswerApprove,
		Approver: "oncall@example.com", Channel: contracts.ChannelCLI,
		AnsweredAt: now, ExpiresAt: d.ExpiresAt, Decision: denv.Marshal(),
	}
}

// SealApproval signs a as signer for agentk.approval.v1 and returns the bytes
// as they travel on the bus.
func SealApproval(t testing.TB, signer *envelope.Signer, a contracts.ApprovalV1, now time.Time) []byte {
	t.Helper()
	env, err := signer.SealJSON(contracts.SubjectApproval, a, now, 10*time.Minute)
	require.NoError(t, err)
	return env.Marshal()
}

// Signed is the common case: a bridge-approved, gate-allowed rollback.
func Signed(t testing.TB, k Keys, id, service string, now time.Time) []byte {
	t.Helper()
	denv := SealDecision(t, k.Gate, Decision(id, service, now), now)
	return SealApproval(t, k.Bridge, Approval(t, denv, now), now)
}

// SignedFor is Signed approving the move from → to.
func SignedFor(t testing.TB, k Keys, id, service, from, to string, now time.Time) []byte {
	t.Helper()
	denv := SealDecision(t, k.Gate, DecisionFor(id, service, from, to, now), now)
	return SealApproval(t, k.Bridge, Approval(t, denv, now), now)
}

// JetStream is an embedded single-node JetStream server and one connection.
type JetStream struct {
	Server *server.Server
	Conn   *nats.Conn
	JS     jetstream.JetStream
}

// StartJetStream runs an embedded server on a random loopback port with its
// storage in a temp dir; it stops at cleanup.
func StartJetStream(t testing.TB) *JetStream {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	require.NoError(t, err)
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("testkit: nats-server not ready")
	}
	nc, err := nats.Connect(s.ClientURL())
	require.NoError(t, err)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close(); s.Shutdown(); s.WaitForShutdown() })
	return &JetStream{Server: s, Conn: nc, JS: js}
}

// Buckets are the deployer's three KV buckets.
type Buckets struct {
	Nonces, Cooldown, Releases, Freezes, Spent, Incidents *kvstore.Bucket
}

// CreateBuckets creates the deployer's buckets on js.
func CreateBuckets(t testing.TB, js jetstream.JetStream) Buckets {
	t.Helper()
	ctx := context.Background()
	mk := func(name string) *kvstore.Bucket {
		kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: name, History: 5})
		require.NoError(t, err)
		return kvstore.New(kv)
	}
	return Buckets{Nonces: mk(topology.BucketNonces), Cooldown: mk(topology.BucketCooldown), Releases: mk(topology.BucketReleases), Freezes: mk(topology.BucketFreezes),
		Spent: mk(topology.BucketSpent), Incidents: mk(topology.BucketIncidents)}
}
