#!/usr/bin/env bash
# check_api_table.sh - every public function of tinytrace.h has a row in tests/test_args.c.
# A public function is a name declared as `TT_API ... name(` or `TT_API ... (name)(` in the
# public part of the header (before `#if defined(TINYTRACE_IMPLEMENTATION)`); a row is the
# name as the first argument of `ROW(` in tests/test_args.c. Run from the repo root.
# Exits 1 listing the names without a row; otherwise prints how many there are.
set -u
header=tinytrace.h
table=tests/test_args.c
for f in "$header" "$table"; do
    if [ ! -f "$f" ]; then echo "check_api_table: $f not found (run from the repo root)" >&2; exit 2; fi
done

# The name is the identifier right before the '(' that opens the parameter list.
api=$(sed -n '1,/^#if defined(TINYTRACE_IMPLEMENTATION)/p' "$header" \
    | grep -E '^TT_API[[:space:]]' \
    | sed -E -n \
        -e 's/^[^(]*\(([A-Za-z_][A-Za-z0-9_]*)\)[[:space:]]*\(.*/\1/p' \
        -e 't' \
        -e 's/^[^(]*[^A-Za-z0-9_(]([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\(.*/\1/p' \
    | sort -u)
rows=$(grep -o -E 'ROW\([[:space:]]*[A-Za-z_][A-Za-z0-9_]*' "$table" | sed -E 's/^ROW\([[:space:]]*//' | sort -u)

n=$(printf '%s\n' "$api" | grep -c .)
if [ "$n" -eq 0 ]; then echo "check_api_table: no TT_API declarations found in $header" >&2; exit 2; fi
missing=$(comm -23 <(printf '%s\n' "$api") <(printf '%s\n' "$rows"))
if [ -n "$missing" ]; then
    echo "check_api_table: $(printf '%s\n' "$missing" | grep -c .) of $n public functions have no row in $table:"
    printf '%s\n' "$missing" | sed 's/^/  /'
    exit 1
fi
echo "check_api_table: $n public functions, all have a row"
