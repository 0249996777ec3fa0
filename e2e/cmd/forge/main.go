// Command forge writes issue 31's forged-marker corpus: every deny incident
// of the given corpora with one deployment.marker of the alerted service's
// running version 8 to 14 minutes before the alert, the release ledger
// (releases.yaml) unchanged. The truth stays deny; replay it with
// `agentk eval` to count the bad rollbacks a false marker buys.
//
//	go run ./cmd/forge -out ../build/forged incidents incidents-handwritten incidents-stranger
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"agentk/e2e/metamorph"
)

func main() {
	out := flag.String("out", "", "folder to write the forged incidents into (required)")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	n := 0
	for _, corpus := range flag.Args() {
		fs, err := metamorph.ForgeDenies(corpus, *out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "forge:", err)
			os.Exit(1)
		}
		for _, f := range fs {
			fmt.Printf("%s: marker %q at %s; the ledger started it %s\n", filepath.Base(f.Dir), f.Version, f.At.Format("2006-01-02T15:04:05Z"), f.Started.Format("2006-01-02T15:04:05Z"))
		}
		n += len(fs)
	}
	prov := "name: forged-markers\nsource: \"e2e/cmd/forge: every deny incident of the corpora plus one marker of the running version 8-14 min before the alert\"\ntuned_on: false\n"
	if err := os.WriteFile(filepath.Join(*out, "corpus.yaml"), []byte(prov), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "forge:", err)
		os.Exit(1)
	}
	fmt.Printf("forge: wrote %d incidents to %s\n", n, *out)
}
