#!/usr/bin/env bash
# Runs every fuzz target of the workspace for a set time each (default 20s):
#   scripts/fuzz.sh [FUZZTIME] [REGEXP]
# FUZZTIME is anything `go test -fuzztime` takes (30s, 1m, 5000x); REGEXP,
# when given, keeps only the targets whose "module/package.FuzzName" matches.
# Plain `go test` already runs each target's seed corpus (f.Add seeds and
# testdata/fuzz/<Target>/) as a regression test; this finds new inputs. A
# failing input is written by Go under the package's testdata/fuzz/<Target>/:
# commit it with the fix, and it becomes a seed that runs in CI.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
fuzztime=${1:-20s}
filter=${2:-}

mapfile -t modules < <(go list -m -f '{{.Dir}}')
targets=()
for mod in "${modules[@]}"; do
	while IFS= read -r line; do
		file=${line%%:*}
		name=$(sed -E 's/^.*func (Fuzz[A-Za-z0-9_]*)\(.*/\1/' <<<"${line#*:}")
		pkg=./$(realpath --relative-to="$mod" "$(dirname "$file")")
		targets+=("$mod|$pkg|$name")
	done < <(grep -rHE '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' --include='*_test.go' "$mod" | grep -v '/testdata/' || true)
done

if ((${#targets[@]} == 0)); then
	echo "fuzz: no fuzz targets found" >&2
	exit 1
fi

failed=()
ran=0
for t in "${targets[@]}"; do
	IFS='|' read -r mod pkg name <<<"$t"
	label="$(realpath --relative-to="$root" "$mod")/${pkg#./}.$name"
	if [[ -n $filter && ! $label =~ $filter ]]; then
		continue
	fi
	echo "== fuzz $label for $fuzztime"
	ran=$((ran + 1))
	if ! (cd "$mod" && go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg"); then
		failed+=("$label")
	fi
done

echo "fuzz: $ran target(s) run for $fuzztime each, ${#failed[@]} failed"
if ((${#failed[@]} > 0)); then
	printf '  FAILED %s\n' "${failed[@]}"
	exit 1
fi
