package bus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"agentk/contracts/envelope"
	"agentk/platform/topology"

	"github.com/nats-io/nats.go/jetstream"
)

// DeadLetter is one message of the dead-letter stream, as an operator reads
// it: where it was going, why it was set aside, when, and the ids it names.
type DeadLetter struct {
	// Seq is the dead letter's own sequence in topology.DLQStream.
	Seq uint64 `json:"seq"`
	// Subject is the subject the message was on.
	Subject string    `json:"subject"`
	At      time.Time `json:"at"`
	// Reason is "permanent", "content" or "max_deliver"; Error is the
	// handler's error (bounded).
	Reason     string `json:"reason"`
	Error      string `json:"error"`
	Handler    string `json:"handler"`
	Deliveries int    `json:"deliveries"`
	// StreamSeq is the original message's sequence in its own stream.
	StreamSeq     uint64 `json:"stream_seq"`
	CorrelationID string `json:"correlation_id,omitempty"`
	// IncidentID is read from the payload without verifying its signature:
	// a pointer for a human, not a fact.
	IncidentID string `json:"incident_id,omitempty"`
	Bytes      int    `json:"bytes"`
}

// ReadDeadLetters returns the dead letters stored since since (all when
// zero), oldest first, at most limit of the newest (all when limit <= 0).
// It needs a connection that may read topology.DLQStream (the admin's).
func ReadDeadLetters(ctx context.Context, js jetstream.JetStream, since time.Time, limit int) ([]DeadLetter, error) {
	st, err := js.Stream(ctx, topology.DLQStream)
	if err != nil {
		return nil, fmt.Errorf("bus: dead letters: %w", err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("bus: dead letters: %w", err)
	}
	first := info.State.FirstSeq
	if limit > 0 && info.State.LastSeq >= first+uint64(limit) {
		first = info.State.LastSeq - uint64(limit) + 1
	}
	var out []DeadLetter
	for seq := first; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		m, err := st.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("bus: dead letter %d: %w", seq, err)
		}
		if !since.IsZero() && m.Time.Before(since) {
			continue
		}
		out = append(out, deadLetter(m))
	}
	return out, nil
}

func deadLetter(m *jetstream.RawStreamMsg) DeadLetter {
	h := func(k string) string { return m.Header.Get(k) }
	d := DeadLetter{
		Seq: m.Sequence, Subject: strings.TrimPrefix(m.Subject, topology.DLQPrefix), At: m.Time.UTC(),
		Reason: h(HeaderDLQReason), Error: h(HeaderDLQError), Handler: h(HeaderDLQHandler),
		CorrelationID: h(HeaderCorrelationID), Bytes: len(m.Data),
	}
	d.Deliveries, _ = strconv.Atoi(h(HeaderDLQDeliveries))
	d.StreamSeq, _ = strconv.ParseUint(h(HeaderDLQStreamSeq), 10, 64)
	if env, err := envelope.Parse(m.Data); err == nil {
		var ids struct {
			IncidentID string `json:"incident_id"`
		}
		if json.Unmarshal(env.Payload, &ids) == nil && SafeKey(ids.IncidentID) == nil {
			d.IncidentID = ids.IncidentID
		}
	}
	return d
}
