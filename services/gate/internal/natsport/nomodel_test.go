package natsport_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
)

// panicTransport stands in for every model client: any HTTP request made
// while the gate decides panics.
type panicTransport struct{}

func (panicTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	panic("the gate made an HTTP request to " + r.URL.String())
}

// Not parallel: it replaces the process's default HTTP transport.
func TestFullEvaluationsWithModelClientsThatPanic(t *testing.T) {
	prev, prevClient := http.DefaultTransport, http.DefaultClient.Transport
	http.DefaultTransport, http.DefaultClient.Transport = panicTransport{}, panicTransport{}
	t.Cleanup(func() { http.DefaultTransport, http.DefaultClient.Transport = prev, prevClient })

	for _, verdict := range []string{contracts.VerdictAllow, contracts.VerdictDeny} {
		w := newWorld(t)
		if verdict == contracts.VerdictDeny {
			w.review.Best.Class = "db_pool_exhaustion"
			w.review.Kept[0].Class = "db_pool_exhaustion"
		}
		require.NotPanics(t, func() {
			outs, err := w.run(t)
			require.NoError(t, err)
			d, _ := w.decision(t, outs)
			require.Equal(t, verdict, d.Verdict)
		})
	}
}
