package lockedbuf_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/platform/lockedbuf"
)

// TestConcurrentWrites: every line written from many goroutines arrives
// whole (go test -race checks the locking).
func TestConcurrentWrites(t *testing.T) {
	t.Parallel()
	var b lockedbuf.Buffer
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				_, _ = fmt.Fprintf(&b, "writer %d line %d\n", i, j)
				_ = b.String()
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	require.Len(t, lines, 8*50)
	for _, l := range lines {
		require.Regexp(t, `^writer \d line \d+$`, l)
	}
}
