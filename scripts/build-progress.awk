# Reads `go build -v` (packages as they compile, and any error) and prints
# progress: a line every 25 packages and a total, so a cold first build is
# never silent; anything that is not a package path (a compiler error) is
# passed through as it is. Used by `make demo`.
/^[A-Za-z0-9_.\/~+-]+$/ {
	n++
	if (n == 1 || n % 25 == 0) {
		printf "  compiling: %d packages so far (now %s)\n", n, $0
		fflush()
	}
	next
}
{ print; fflush() }
END {
	if (n > 0) printf "  compiled %d packages\n", n
	else print "  nothing to compile: the build cache is warm"
}
