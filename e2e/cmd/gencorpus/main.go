// Command gencorpus writes the recorded incident corpus (e2e/incidents) from
// the scenario table in e2e/corpusgen.
package main

import (
	"flag"
	"fmt"
	"os"

	"agentk/e2e/corpusgen"
)

func main() {
	dir := flag.String("out", "incidents", "folder to write the incidents into")
	flag.Parse()
	scs := corpusgen.Scenarios()
	if err := corpusgen.Write(*dir, scs); err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
	fmt.Printf("gencorpus: wrote %d incidents to %s\n", len(scs), *dir)
}
