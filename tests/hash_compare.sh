#!/usr/bin/env bash
# hash_compare.sh - did a change to tinytrace.h keep every output bitwise identical?
#
#   bash tests/hash_compare.sh BASE_DIR NEW_DIR
#
# Builds tests/hash_outputs.c (this checkout's copy) against BASE_DIR/tinytrace.h and against
# NEW_DIR/tinytrace.h, each twice: gcc -std=c99 -O2, and the same with -march=native (since
# v0.6 the SIMD kernels are chosen at run time, but the plain-C twins and the code that is not
# a twin follow the flags; TT_ISA picks the ISA both builds run). Runs all four and diffs base
# against new per flag set.
# Prints "hashes identical: N lines" and exits 0, or the differing lines and exits 1.
# Build errors, compiler warnings, and runs that fail or report ERROR lines are shown too;
# a failed build or run also gives exit 1 (warnings alone do not).
#
# BASE_DIR may instead be the prefix of saved outputs: with no BASE_DIR/tinytrace.h but files
# BASE_DIR-O2.txt and BASE_DIR-native.txt, those are the base (e.g. /work/hash-baseline, from
# an earlier run's build-hash/base-O2.txt and base-native.txt). Saved outputs are only
# comparable on the same machine and compiler: the SGEMM block size comes from the cache sizes.
#
# Everything goes to build-hash/ at the repository root (ignored by .gitignore's build-*):
#   hash_{base,new}_{O2,native}          the programs
#   {base,new}-{O2,native}.txt           their output (one line per output tensor)
#   {base,new}-{O2,native}.err           their stderr (summary, failure messages)
#   diff-{O2,native}.txt                 diff of base against new
# Environment: CC (default gcc), HASH_BUILD (default <repo>/build-hash), HASH_FILTER (a
# substring: only the cases whose name contains it, for bisecting a difference).
set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 BASE_DIR NEW_DIR   (directories holding tinytrace.h)" >&2
    exit 2
fi
BASE=$1
NEW=$2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC=$ROOT/tests/hash_outputs.c
OUT=${HASH_BUILD:-$ROOT/build-hash}
CC=${CC:-gcc}
FILTER=${HASH_FILTER:-}
FLAGSETS="O2 native"

mkdir -p "$OUT" || exit 2
status=0

base_saved=0
if [ ! -f "$BASE/tinytrace.h" ]; then
    if [ -f "$BASE-O2.txt" ] && [ -f "$BASE-native.txt" ]; then
        base_saved=1
        echo "base: saved outputs $BASE-O2.txt and $BASE-native.txt"
    else
        echo "error: $BASE/tinytrace.h not found (nor saved outputs $BASE-O2.txt, $BASE-native.txt)" >&2
        exit 2
    fi
fi
if [ ! -f "$NEW/tinytrace.h" ]; then
    echo "error: $NEW/tinytrace.h not found" >&2
    exit 2
fi

extra_flags() { if [ "$1" = native ]; then echo "-march=native"; fi; }

# ---- build (the up-to-four compiles in parallel) ----
sides="new"
[ $base_saved -eq 0 ] && sides="base new"
pids=""
for side in $sides; do
    if [ "$side" = base ]; then dir=$BASE; else dir=$NEW; fi
    for fs in $FLAGSETS; do
        exe=$OUT/hash_${side}_$fs
        rm -f "$exe" "$OUT/$side-$fs.txt" "$OUT/$side-$fs.err"
        # shellcheck disable=SC2046
        ( $CC -std=c99 -O2 $(extra_flags "$fs") -Wall -Wextra -I"$dir" "$SRC" -o "$exe" -lm -lpthread \
              > "$OUT/build_${side}_$fs.log" 2>&1 ) &
        pids="$pids $!"
    done
done
for p in $pids; do wait "$p"; done
for side in $sides; do
    if [ "$side" = base ]; then dir=$BASE; else dir=$NEW; fi
    for fs in $FLAGSETS; do
        log=$OUT/build_${side}_$fs.log
        if [ ! -x "$OUT/hash_${side}_$fs" ]; then
            echo "BUILD FAILED: $side ($dir) $fs:"
            head -25 "$log"
            status=1
        elif [ -s "$log" ]; then
            echo "warnings building $side ($dir) $fs:"
            head -25 "$log"
        fi
    done
done
[ $status -ne 0 ] && exit 1

# ---- run ----
for side in $sides; do
    for fs in $FLAGSETS; do
        t0=$(date +%s.%N)
        # shellcheck disable=SC2086
        "$OUT/hash_${side}_$fs" $FILTER > "$OUT/$side-$fs.txt" 2> "$OUT/$side-$fs.err"
        rc=$?
        t1=$(date +%s.%N)
        printf '%-4s %-6s %6d lines  %6.1f s  %s\n' "$side" "$fs" "$(wc -l < "$OUT/$side-$fs.txt")" \
            "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$(tail -n 1 "$OUT/$side-$fs.err")"
        if [ $rc -ne 0 ]; then
            echo "RUN FAILED ($side $fs, exit $rc):"
            grep -v '^hash_outputs: [0-9]* lines' "$OUT/$side-$fs.err" | head -20
            status=1
        fi
    done
done
if [ $base_saved -eq 1 ]; then
    for fs in $FLAGSETS; do cp "$BASE-$fs.txt" "$OUT/base-$fs.txt"; done
fi

# ---- compare ----
total=0
for fs in $FLAGSETS; do
    a=$OUT/base-$fs.txt
    b=$OUT/new-$fs.txt
    if [ -n "$FILTER" ] && [ $base_saved -eq 1 ]; then       # saved base holds every case
        awk -v f="$FILTER" '{ split($1, p, "/"); if (index(p[2], f)) print }' "$a" > "$a.filtered"
        a=$a.filtered
    fi
    n=$(wc -l < "$b")
    if [ "$n" -eq 0 ]; then
        echo "$fs: no output"
        status=1
    elif diff "$a" "$b" > "$OUT/diff-$fs.txt"; then
        echo "$fs: hashes identical: $n lines"
        total=$((total + n))
    else
        nd=$(grep -c '^[<>]' "$OUT/diff-$fs.txt")
        echo "$fs: HASHES DIFFER: $nd differing lines (< base, > new; all in $OUT/diff-$fs.txt):"
        grep '^[<>]' "$OUT/diff-$fs.txt" | head -60
        [ "$nd" -gt 60 ] && echo "  ... $((nd - 60)) more"
        status=1
    fi
done
if [ $status -eq 0 ]; then
    echo "hashes identical: $total lines"
else
    echo "FAILED: see above"
fi
exit $status
