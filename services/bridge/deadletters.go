package bridge

import (
	"context"
	"time"

	"agentk/platform/bus"
)

// busDeadLetters reads the newest dead letters for the console: the
// bridge's grant lets it read the dead-letter stream, not consume it.
type busDeadLetters struct{ c *bus.Conn }

// deadLetterPage bounds how many the console lists.
const deadLetterPage = 200

func (b busDeadLetters) DeadLetters(ctx context.Context) ([]bus.DeadLetter, error) {
	return bus.ReadDeadLetters(ctx, b.c.JetStream(), time.Time{}, deadLetterPage)
}
