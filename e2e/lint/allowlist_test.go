package lint

// allowed lists the production functions still over the limits, as
// "path:Func", measured when the limits came in. It only shrinks:
// TestFunctionLimits fails on a listed function that is within the limits
// now (remove it), and on any offender not listed. The engineers who own
// these areas are bringing them within the limits; empty it, then delete it.
var allowed = map[string]bool{
	"e2e/bench/cmd/benchdoc/main.go:table": true,
}
