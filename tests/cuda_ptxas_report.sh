#!/usr/bin/env bash
# ptxas -v's report of tinytrace_cuda.cu (nvcc's stderr, in $1): one line per kernel and
# architecture (registers, stack, spills, shared memory); fails when a kernel spills.
set -euo pipefail
log=$1
awk '
    /Compiling entry function/ {
        match($0, /_Z[0-9]+/); len = substr($0, RSTART + 2, RLENGTH - 2) + 0
        kernel = substr($0, RSTART + RLENGTH, len)        # the mangled name: _Z<length><name>...
        match($0, /sm_[0-9]+/); arch = substr($0, RSTART, RLENGTH)
        entry = 1 }
    /bytes stack frame/ && entry { stack = $1; spills = $5 + $9 }
    /Used [0-9]+ registers/ && entry {
        match($0, /Used [0-9]+ registers/); regs = substr($0, RSTART + 5, RLENGTH - 15)
        smem = 0; if (match($0, /[0-9]+ bytes smem/)) smem = substr($0, RSTART, RLENGTH - 11) + 0
        printf "  %-7s %-20s %4d registers %4d B stack %5d B shared %d B spilled\n", arch, kernel, regs, stack, smem, spills
        n++; if (spills != 0) bad++; entry = 0 }
    END { printf "ptxas: %d kernels x architectures, %d spilling\n", n, bad + 0; if (n == 0 || bad > 0) exit 1 }
' "$log"
