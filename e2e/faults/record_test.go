package faults

import (
	"flag"
	"os"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/reliability.md from this run's outcomes")

// row is one fault or bad input tried, how, and what happened.
type row struct {
	Area    string `json:"area"`
	Fault   string `json:"fault"`
	How     string `json:"how"`
	Outcome string `json:"outcome"`
}

var (
	rowsMu sync.Mutex
	rows   []row
)

// record keeps r for docs/reliability.md if the test passes.
func record(t *testing.T, r row) {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			return
		}
		rowsMu.Lock()
		rows = append(rows, r)
		rowsMu.Unlock()
	})
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if agentkBin != "" && os.Getenv("AGENTK_TEST_AGENTK_BIN") == "" {
		_ = os.RemoveAll(dirOf(agentkBin))
	}
	if code == 0 && *update {
		if err := writeReliability(rows); err != nil {
			_, _ = os.Stderr.WriteString("reliability.md: " + err.Error() + "\n")
			code = 1
		}
	}
	os.Exit(code)
}
