#!/usr/bin/env bash
# check_docs.sh - are the graphs of docs/TRACING.md fresh? Run from the repo root by make
# (docs-check, part of `make test`) as: bash tests/check_docs.sh GEN_GRAPHS OUT_DIR
#
# 1. GEN_GRAPHS (docs/graphs/gen_graphs.c, built) writes every graph again into OUT_DIR, as text
#    (NAME.txt, tt_graph_str) and as Graphviz (NAME.dot, tt_graph_dot); each must equal the
#    committed docs/graphs/NAME.* byte for byte. The pictures (NAME.svg) must exist; they are
#    not compared, since Graphviz versions draw the same text differently.
# 2. Each block that docs/TRACING.md quotes after "<!-- graphs/X.txt -->" is X.txt whole; each
#    line of a block after "<!-- excerpt: X.txt -->" ("..." aside) is a line of X.txt.
# Exits 1 with what differs and "run make docs"; prints one line when all is fresh.
set -u
gen=$1
out=$2
rm -rf "$out" && mkdir -p "$out"
"$gen" "$out" || { echo "check_docs: $gen failed"; exit 1; }
if ! diff -r -x '*.svg' -x '*.c' docs/graphs "$out" > "$out.diff"; then
    cat "$out.diff"
    echo "check_docs: docs/graphs is out of date: run make docs, and commit docs/graphs"
    exit 1
fi
for f in docs/graphs/*.dot; do
    [ -f "${f%.dot}.svg" ] || { echo "check_docs: ${f%.dot}.svg is missing: run make docs where Graphviz is installed"; exit 1; }
done
awk -v dir=docs/graphs '
    /^<!-- (graphs\/|excerpt: )[a-z0-9_]+\.txt -->$/ {        # the next block quotes a file
        whole = $0 ~ /graphs\//
        file = $0
        sub(/^<!-- (graphs\/|excerpt: )/, "", file)
        sub(/ -->$/, "", file)
        want = 1
        next
    }
    want && !inside && /^```/ { inside = 1; n = 0; next }
    inside && /^```/ {                                        # the block ends: compare it
        m = 0
        split("", has)
        while ((getline line < (dir "/" file)) > 0) { ref[++m] = line; has[line] = 1 }
        close(dir "/" file)
        ok = m > 0 && (!whole || n == m)
        for (i = 1; i <= n; i++) ok = ok && (whole ? block[i] == ref[i] : block[i] == "..." || (block[i] in has))
        if (!ok) { print "docs/TRACING.md:" NR ": the block quoting " file " differs from " dir "/" file; bad = 1 }
        inside = 0
        want = 0
        next
    }
    inside { block[++n] = $0 }
    END { exit bad }
' docs/TRACING.md || { echo "check_docs: docs/TRACING.md quotes graphs that changed: copy them from docs/graphs/*.txt"; exit 1; }
echo "check_docs: docs/graphs and the graphs docs/TRACING.md quotes are up to date ($(ls docs/graphs/*.txt | wc -l) graphs)"
