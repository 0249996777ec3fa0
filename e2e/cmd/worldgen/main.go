// Command worldgen writes incidents drawn by e2e/worldgen: a corpus that the
// pipeline's rules were not tuned on. CI draws them into a temporary folder;
// they are never committed.
//
//	go run ./cmd/worldgen -out /tmp/worlds -seed 18 -n 200
package main

import (
	"flag"
	"fmt"
	"os"

	"agentk/e2e/worldgen"
)

func main() {
	out := flag.String("out", "", "folder to write the incidents into (required)")
	seed := flag.Uint64("seed", 18, "generator seed")
	n := flag.Int("n", 200, "how many incidents")
	flag.Parse()
	if *out == "" || *n < 1 {
		flag.Usage()
		os.Exit(2)
	}
	ws := worldgen.Generate(*seed, *n)
	if err := worldgen.Write(*out, ws); err != nil {
		fmt.Fprintln(os.Stderr, "worldgen:", err)
		os.Exit(1)
	}
	fmt.Printf("worldgen: wrote %d incidents (seed %d) to %s\n", len(ws), *seed, *out)
}
