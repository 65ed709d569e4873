#!/usr/bin/env bash
# Runs every Go fuzz target of the repository (every `func FuzzX(` in a
# _test.go file) for a bounded time each, one after another:
#   go test -run '^$' -fuzz '^FuzzX$' -fuzztime $FUZZTIME ./pkg
# FUZZTIME (default 10s) is the time per target; FUZZPARALLEL (default: go's
# default, GOMAXPROCS) the number of fuzzing workers. Arguments, when given,
# restrict the run to the targets found under those directories or in those
# files (e.g. ./internal/warehouse, ./evaluators/fuzz_test.go).
# Exits non-zero when any target fails; a failing input is written by go test
# under the package's testdata/fuzz/FuzzX/ and the command to replay it is
# printed.
set -uo pipefail
cd "$(dirname "$0")/.."
fuzztime="${FUZZTIME:-10s}"
parallel=()
if [ -n "${FUZZPARALLEL:-}" ]; then parallel=(-parallel "$FUZZPARALLEL"); fi

dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then dirs=(.); fi

# "pkgdir target" lines, sorted, from every _test.go file outside vendored
# or generated trees.
targets=$(grep -rHE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(' "${dirs[@]}" \
  | grep -v -e '/vendor/' -e '/_build/' -e '/node_modules/' \
  | sed -E 's#^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*#\1 \2#' \
  | sed -E 's#^\./##' | sort -u)
if [ -z "$targets" ]; then
  echo "fuzz: no fuzz targets found in ${dirs[*]}" >&2
  exit 1
fi

count=0
failed=()
while read -r dir name; do
  [ -n "$name" ] || continue
  case "$dir" in ./*|/*) pkg="$dir" ;; *) pkg="./$dir" ;; esac
  count=$((count + 1))
  printf '=== fuzz %s %s (%s)\n' "$pkg" "$name" "$fuzztime"
  out=$(mktemp)
  go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "${parallel[@]}" "$pkg" 2>&1 | tee "$out"
  if [ "${PIPESTATUS[0]}" -ne 0 ]; then
    # A worker still busy with one slow input when the time is up makes
    # go test report "context deadline exceeded" without a failing input
    # (nothing under testdata/fuzz): run the target once more. A real
    # failure names the input it wrote.
    if grep -q 'context deadline exceeded' "$out" && ! grep -q 'Failing input written to' "$out"; then
      echo "fuzz: $pkg $name stopped at the deadline without a failing input; running it again"
      if go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "${parallel[@]}" "$pkg"; then
        rm -f "$out"
        continue
      fi
    fi
    failed+=("$pkg $name")
    echo "--- FAIL fuzz $pkg $name: replay with: go test -run '^${name}\$' $pkg"
  fi
  rm -f "$out"
done <<< "$targets"

echo
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} of $count targets failed:"
  printf '  %s\n' "${failed[@]}"
  echo "$((count - ${#failed[@]})) passed, ${#failed[@]} failed"
  exit 1
fi
echo "fuzz: all $count targets passed"
echo "$count passed, 0 failed"
