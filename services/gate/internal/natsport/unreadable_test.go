package natsport

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/contracts/envelope"
)

// getter answers every Get with err, or with value when err is nil.
type getter struct {
	value []byte
	err   error
}

func (g getter) Get(context.Context, string) (jetstream.KeyValueEntry, error) {
	if g.err != nil {
		return nil, g.err
	}
	return value(g.value), nil
}

type value []byte

func (v value) Bucket() string                  { return "" }
func (v value) Key() string                     { return "" }
func (v value) Value() []byte                   { return v }
func (v value) Revision() uint64                { return 1 }
func (v value) Created() time.Time              { return time.Time{} }
func (v value) Delta() uint64                   { return 0 }
func (v value) Operation() jetstream.KeyValueOp { return jetstream.KeyValuePut }

// TestReadMarksOnlyNoAnswerUnreadable: only a read that reached no answer
// is errUnreadable (the review is read again); an absent key, a key that
// cannot be one or a value that does not verify are answers.
func TestReadMarksOnlyNoAnswerUnreadable(t *testing.T) {
	t.Parallel()
	ring, err := envelope.NewKeyring()
	require.NoError(t, err)
	h := &Handler{Keyring: ring}
	cases := []struct {
		name       string
		key        string
		kv         Getter
		unreadable bool
		text       string
	}{
		{name: "timeout", key: "shop-api", kv: getter{err: nats.ErrTimeout}, unreadable: true, text: "read shop-api: unreadable: nats: timeout"},
		{name: "deadline", key: "shop-api", kv: getter{err: context.DeadlineExceeded}, unreadable: true, text: "read shop-api: unreadable: context deadline exceeded"},
		{name: "no responders", key: "shop-api", kv: getter{err: nats.ErrNoResponders}, unreadable: true},
		{name: "absent key", key: "shop-api", kv: getter{err: jetstream.ErrKeyNotFound}},
		{name: "deleted key", key: "shop-api", kv: getter{err: jetstream.ErrKeyDeleted}},
		{name: "invalid key", key: "shop-api", kv: getter{err: jetstream.ErrInvalidKey}},
		{name: "unsafe key", key: "shop api", kv: getter{err: nats.ErrTimeout}},
		{name: "no key", kv: getter{err: nats.ErrTimeout}},
		{name: "no store", key: "shop-api"},
		{name: "does not verify", key: "shop-api", kv: getter{value: []byte("not an envelope")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var cd contracts.CooldownV1
			_, err := h.read(context.Background(), tc.kv, tc.key, contracts.SubjectCooldown, time.Now(), &cd)
			require.Equal(t, tc.unreadable, errors.Is(err, errUnreadable), "%v", err)
			require.Equal(t, tc.unreadable, firstUnreadable(nil, errors.New("bad seal"), err) != nil)
			if tc.text != "" {
				require.EqualError(t, err, tc.text, "the reason a denial gives reads as before")
			}
		})
	}
}
