// Command worldgen writes incidents drawn by e2e/worldgen, a corpus that
// shares no code with corpusgen. The rules investigator was tuned on the
// worlds of worldgen.TunedSeeds (the CI seeds among them); draw another seed
// for an out-of-sample measurement. CI draws its corpus (worldgen.CI) into a
// temporary folder; it is never committed.
//
//	go run ./cmd/worldgen -out ../build/worlds              # the CI corpus: 206 worlds (6 culprit worlds)
//	go run ./cmd/worldgen -out ../build/fresh -draw 2718:30 # 30 worlds from a seed nobody tuned on
//	go run ./cmd/worldgen -out ../build/culprit -draw 4040:12:culprit # 12 culprit worlds (issue 33)
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"agentk/e2e/worldgen"
)

func main() {
	out := flag.String("out", "", "folder to write the incidents into (required)")
	draw := flag.String("draw", "", "comma-separated seed:count batches, seed:count:culprit for culprit worlds (default: the CI corpus)")
	flag.Parse()
	batches, err := parse(*draw)
	if *out == "" || err != nil {
		if err != nil {
			fmt.Fprintln(os.Stderr, "worldgen:", err)
		}
		flag.Usage()
		os.Exit(2)
	}
	if err := worldgen.WriteCorpus(*out, batches); err != nil {
		fmt.Fprintln(os.Stderr, "worldgen:", err)
		os.Exit(1)
	}
	n := 0
	for _, b := range batches {
		n += b.N
	}
	fmt.Printf("worldgen: wrote %d incidents to %s\n", n, *out)
}

func parse(s string) ([]worldgen.Batch, error) {
	if s == "" {
		return worldgen.CI, nil
	}
	var out []worldgen.Batch
	for _, part := range strings.Split(s, ",") {
		seed, n, ok := strings.Cut(part, ":")
		n, kind, _ := strings.Cut(n, ":")
		sv, err1 := strconv.ParseUint(seed, 10, 64)
		nv, err2 := strconv.Atoi(n)
		if !ok || err1 != nil || err2 != nil || nv < 1 || (kind != "" && kind != "culprit") {
			return nil, fmt.Errorf("-draw: %q is not seed:count or seed:count:culprit", part)
		}
		out = append(out, worldgen.Batch{Seed: sv, N: nv, Culprit: kind == "culprit"})
	}
	return out, nil
}
