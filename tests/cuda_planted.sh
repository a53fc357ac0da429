#!/usr/bin/env bash
# Plants one bug at a time in a copy of tinytrace_cuda.cu, builds tests/test_cuda.c on it
# (emulated) and requires the tests to FAIL: the emulator must catch a missing __syncthreads, an
# off-by-one bound and a shuffle with the wrong lane. (Not xor k+1: a butterfly over any basis
# of the 32 lanes, as 17, 9, 5, 3, 2 are, still sums every lane.) Each pattern must match exactly once, so
# the check cannot pass by planting nothing.
#   $1: C++ compiler and flags   $2: C compiler, flags and test sources   $3: link flags   $4: build dir
set -euo pipefail
cxx=$1; cc=$2; libs=$3; dir=$4
plant() {   # name, sed expression, text that must be in the original
    local name=$1 expr=$2 text=$3 n
    n=$(grep -cF -- "$text" tinytrace_cuda.cu || true)
    if [ "$n" != 1 ]; then echo "planted bug '$name': '$text' found $n times in tinytrace_cuda.cu"; exit 1; fi
    sed -e "$expr" tinytrace_cuda.cu > "$dir/planted_$name.cu"
    if cmp -s tinytrace_cuda.cu "$dir/planted_$name.cu"; then echo "planted bug '$name': nothing changed"; exit 1; fi
    $cxx -DTTC_SOURCE="\"$PWD/$dir/planted_$name.cu\"" -c tests/cuda_emu_backend.cpp -o "$dir/planted_$name.o"
    $cc "$dir/planted_$name.o" -o "$dir/planted_$name" $libs
    if TT_ISA=scalar "./$dir/planted_$name" > "$dir/planted_$name.log" 2>&1; then
        echo "planted bug '$name' was NOT caught by tests/test_cuda.c"; exit 1
    fi
    echo "planted bug '$name': caught, $(tail -n 1 "$dir/planted_$name.log") ($(grep -c '^FAIL\|^  *FAIL\|FAILED' "$dir/planted_$name.log" || true) failing checks)"
}
# the GEMM tile is read while another thread still writes it
plant missing_syncthreads '/for (q = 0; q < TTC_TK; q++) {/,/^        __syncthreads();/{/^        __syncthreads();/d}' \
      'for (q = 0; q < TTC_TK; q++) {'
# a pooling window reads one row past the input
plant off_by_one 's/if (at\[1\] < 0 || at\[1\] >= p.in\[1\]) continue;/if (at[1] < 0 || at[1] > p.in[1]) continue;/' \
      'if (at[1] < 0 || at[1] >= p.in[1]) continue;'
# the block sum adds the wrong lanes' partial sums (k / 2: the last step adds the lane itself)
plant wrong_lane 's/v += __shfl_xor_sync(0xffffffffu, v, k);/v += __shfl_xor_sync(0xffffffffu, v, k \/ 2);/' \
      'v += __shfl_xor_sync(0xffffffffu, v, k);'
