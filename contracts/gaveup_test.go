package contracts

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSaysGaveUpWaiting(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		"upstream timed out after retries":                                           true,
		"context deadline exceeded (Client.Timeout exceeded while awaiting headers)": true,
		"ReadTimeout": true,
		"TimeoutError: timeout of 350ms exceeded": true,
		"connection refused":                      false,
		"ledger sync failed":                      false,
		"":                                        false,
	} {
		require.Equal(t, want, SaysGaveUpWaiting(text), text)
	}
}
