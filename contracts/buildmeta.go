package contracts

import "strings"

// BuildMetadataOnly reports whether next differs from prev only after a
// "+" (or "_": an OCI image tag allows no "+") that one or both carry:
// their cores are equal and not empty, their build parts differ
// ("5.2.4+cfg.37" to "5.2.4+cfg.38", "4.11.0" to "4.11.0+cfg.2"): the same
// code built with other settings. core is that shared core.
func BuildMetadataOnly(prev, next string) (core string, ok bool) {
	pc, pb, pok := strings.Cut(strings.ReplaceAll(prev, "_", "+"), "+")
	nc, nb, nok := strings.Cut(strings.ReplaceAll(next, "_", "+"), "+")
	return pc, (pok || nok) && pc != "" && pc == nc && pb != nb
}
