// cuda_emu_selftest.cpp - checks that tests/cuda_emu.h gives CUDA's semantics.
//
// Build and run (also with clang++, and with -fsanitize=address,undefined):
//   g++ -std=c++17 -Wall -Wextra -Wpedantic -Werror -O2 -Itests
//       tests/cuda_emu_selftest.cpp -o /tmp/emu_self && /tmp/emu_self
//
// The kernels are written as CUDA code; each check prints one line, and the
// last line is "N passed, N failed" (exit status 1 on any failure).
#include "cuda_emu.h"

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

static int g_passed = 0, g_failed = 0;

__attribute__((format(printf, 2, 3))) static void check(bool ok, const char* fmt, ...) {
    std::printf("%s ", ok ? "ok  " : "FAIL");
    va_list ap;
    va_start(ap, fmt);
    std::vprintf(fmt, ap);
    va_end(ap);
    std::printf("\n");
    ++(ok ? g_passed : g_failed);
}

// Evaluates the condition before the message's arguments (which may read state the condition changes).
#define CHECK(cond, ...)           \
    do {                           \
        const bool ok_ = (cond);   \
        check(ok_, __VA_ARGS__);   \
    } while (0)

static const unsigned kFull = 0xffffffffu;

// Copies n ints to a new device buffer.
static int* to_device(const std::vector<int>& h) {
    void* d = nullptr;
    cudaMalloc(&d, h.size() * sizeof(int));
    cudaMemcpy(d, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice);
    return static_cast<int*>(d);
}

static std::vector<int> to_host(const int* d, std::size_t n) {
    std::vector<int> h(n);
    cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost);
    return h;
}

static int* device_ints(std::size_t n, int value) { return to_device(std::vector<int>(n, value)); }

// ---- Kernels ------------------------------------------------------------------

__global__ void block_sum(const int* in, int* out, int n) {
    __shared__ int s[256];
    const unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < static_cast<unsigned>(n) ? in[i] : 0;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, s[0]);
}

// The same reduction without its barriers: a classic race.
__global__ void block_sum_racy(const int* in, int* out, int n) {
    __shared__ int s[256];
    const unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < static_cast<unsigned>(n) ? in[i] : 0;
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2)
        if (t < stride) s[t] += s[t + stride];
    if (t == 0) atomicAdd(out, s[0]);
}

// Logs the order threads run in, before and after a barrier.
__global__ void order_log(int* log, int* counter) {
    log[atomicAdd(counter, 1)] = static_cast<int>(threadIdx.x);
    __syncthreads();
    log[atomicAdd(counter, 1)] = 100 + static_cast<int>(threadIdx.x);
}

// out[linear block * threads + linear thread] = position in execution order.
__global__ void ids_in_order(int* out, int* counter) {
    const unsigned lin = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
    const unsigned blk = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
    out[blk * blockDim.x * blockDim.y * blockDim.z + lin] = atomicAdd(counter, 1);
}

// Warp sums of (threadIdx.x + 1); lane 0 (down) or every lane (xor) writes.
// `guarded` skips lanes that do not exist in a partial warp.
__global__ void warp_sums(int* down_out, int* xor_out, int guarded) {
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned lanes = blockDim.x - warp * 32 < 32 ? blockDim.x - warp * 32 : 32;
    int v = static_cast<int>(threadIdx.x) + 1, x = v;
    for (unsigned off = 16; off > 0; off /= 2) {
        int o = __shfl_down_sync(kFull, v, off);
        if (!guarded || lane + off < lanes) v += o;
        int p = __shfl_xor_sync(kFull, x, static_cast<int>(off));
        if (!guarded || (lane ^ off) < lanes) x += p;
    }
    if (lane == 0) down_out[warp] = v;
    xor_out[threadIdx.x] = x;
}

// Every flavour of shuffle on one warp; out is [11][32].
__global__ void shuffle_rules(int* out) {
    const int lane = static_cast<int>(threadIdx.x);
    int* o = out;
    int scan = lane + 1;   // inclusive prefix sum by __shfl_up_sync
    for (unsigned d = 1; d < 32; d *= 2) {
        int u = __shfl_up_sync(kFull, scan, d);
        if (static_cast<unsigned>(lane) >= d) scan += u;
    }
    o[0 * 32 + lane] = scan;
    o[1 * 32 + lane] = __shfl_up_sync(kFull, lane + 100, 1);      // lane 0 keeps its own
    o[2 * 32 + lane] = __shfl_sync(kFull, lane * 10, 3);           // broadcast
    o[3 * 32 + lane] = __shfl_sync(kFull, lane * 10, 11, 8);       // srcLane mod width, in segment
    o[4 * 32 + lane] = __shfl_sync(kFull, lane * 10, -1, 8);       // -1 -> last lane of segment
    o[5 * 32 + lane] = __shfl_down_sync(kFull, lane, 2, 8);
    o[6 * 32 + lane] = __shfl_up_sync(kFull, lane, 2, 8);
    o[7 * 32 + lane] = __shfl_xor_sync(kFull, lane, 1, 8);
    o[8 * 32 + lane] = __shfl_xor_sync(kFull, lane, 8, 8);        // later segment: own value
    float f = __shfl_down_sync(kFull, 0.5f * static_cast<float>(lane), 1);
    o[9 * 32 + lane] = static_cast<int>(f * 2.0f);
    double dv = __shfl_sync(kFull, 1e10 + lane, 31);
    o[10 * 32 + lane] = dv == 1e10 + 31 ? 1 : 0;
}

// Votes on one warp of blockDim.x (<= 32) threads.
__global__ void votes(unsigned* out) {
    const unsigned lane = threadIdx.x;
    unsigned b = __ballot_sync(kFull, lane % 3 == 0);
    unsigned all_b = __ballot_sync(kFull, 1);
    int any0 = __any_sync(kFull, lane == 7);
    int anyn = __any_sync(kFull, 0);
    int all1 = __all_sync(kFull, 1);
    int alln = __all_sync(kFull, lane != 4);
    if (lane == 0) {
        out[0] = b, out[1] = all_b, out[2] = static_cast<unsigned>(any0), out[3] = static_cast<unsigned>(anyn);
        out[4] = static_cast<unsigned>(all1), out[5] = static_cast<unsigned>(alln), out[6] = __activemask();
    }
}

__global__ void barrier_votes(int* out) {
    const int t = static_cast<int>(threadIdx.x);
    int count = __syncthreads_count(t % 2 == 0);
    int all = __syncthreads_and(t >= 0);
    int none = __syncthreads_or(t > 1000);
    int some = __syncthreads_and(t != 3);
    if (t == 0) out[0] = count, out[1] = all, out[2] = none, out[3] = some;
}

// Shuffles many times in a row: the exchange must not mix rounds.
__global__ void shuffle_loop(int* out, int rounds) {
    const int lane = static_cast<int>(threadIdx.x % 32);
    int v = lane, bad = 0;
    for (int r = 0; r < rounds; ++r) {
        int next = __shfl_sync(kFull, v, (lane + 1) % 32);   // rotate left by one
        int expect = (lane + r + 1) % 32;
        if (next != expect) ++bad;
        v = next;
    }
    atomicAdd(out, bad);
}

__global__ void count_threads(unsigned* counter) { atomicAdd(counter, 1u); }

__global__ void atomic_mix(int* iv, unsigned* uv, float* fv, unsigned long long* lv) {
    const int t = static_cast<int>(threadIdx.x);   // 64 threads
    atomicMax(&iv[0], t * 3 - 50);
    atomicMin(&iv[1], t * 3 - 50);
    atomicSub(&iv[2], 2);
    int old = iv[3], assumed;                      // CAS loop: += 5
    do {
        assumed = old;
        old = atomicCAS(&iv[3], assumed, assumed + 5);
    } while (old != assumed);
    atomicAnd(&iv[4], ~(1 << (t % 31)));
    atomicOr(&iv[5], 1 << (t % 31));
    atomicXor(&iv[6], 1);
    atomicExch(&iv[7], 42);
    atomicMax(&uv[0], static_cast<unsigned>(t));
    atomicMin(&uv[1], static_cast<unsigned>(t) + 7u);
    atomicInc(&uv[2], 9u);                         // 64 increments wrapping at 10
    atomicDec(&uv[3], 9u);
    atomicAdd(&fv[0], 0.5f);
    atomicExch(&fv[1], 2.5f);
    atomicAdd(&lv[0], 1ull << 40);
    atomicCAS(&lv[1], 0ull, 7ull);
}

__global__ void scale_bounded(const float* x, float* y, float k, int n) {
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n) y[i] = k * x[i];
}

__global__ void scale_ints(const int* x, int* y, int k, int n) {
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n) y[i] = k * x[i];
}

// Thread 5 returns before the barrier the others wait at (undefined in CUDA).
__global__ void early_return(int* out) {
    if (threadIdx.x == 5) return;
    __syncthreads();
    out[threadIdx.x] = 1;
}

// Lane 3 returns; the others then shuffle with a full mask naming it.
__global__ void exited_lane(int* out) {
    if (threadIdx.x == 3) return;
    out[threadIdx.x] = __shfl_sync(kFull, static_cast<int>(threadIdx.x), 0);
}

// Half the warp waits at __syncthreads, the other half at __syncwarp.
__global__ void deadlock(int* out) {
    if (threadIdx.x < 16)
        __syncthreads();
    else
        __syncwarp();
    out[threadIdx.x] = 1;
}

// Each half-warp synchronizes on its own: legal, no fault.
__global__ void split_syncwarp(int* out) {
    __syncwarp(threadIdx.x < 16 ? 0x0000ffffu : 0xffff0000u);
    out[threadIdx.x] = __shfl_sync(threadIdx.x < 16 ? 0x0000ffffu : 0xffff0000u, static_cast<int>(threadIdx.x), 0, 16);
}

__global__ void barrier_loop(int* out, int iters) {
    __shared__ int s[1024];
    const unsigned t = threadIdx.x;
    int acc = 0;
    for (int k = 0; k < iters; ++k) {
        s[t] = k + static_cast<int>(t);
        __syncthreads();
        acc += s[(t + 1) % blockDim.x] - s[t];   // neighbour wrote this round: +1 (or -1023)
        __syncthreads();
    }
    out[t] = acc;
}

__global__ void fill_index(int* out, int n) {
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n) out[i] = i;
}

__global__ void no_args() {}

template <class T, int K>
__global__ void add_k(T* p) {
    p[threadIdx.x] += static_cast<T>(K);
}

__constant__ float c_coef[4];

__global__ void use_constants(float* out) { out[threadIdx.x] = c_coef[threadIdx.x] * 2.0f; }

__global__ void math_intrinsics(float* f, int* i) {
    f[0] = __expf(1.0f);
    f[1] = __logf(1.0f);
    f[2] = __sinf(0.0f) + __cosf(0.0f);
    f[3] = __fdividef(1.0f, 4.0f);
    f[4] = rsqrtf(4.0f);
    f[5] = __fmaf_rn(2.0f, 3.0f, 1.0f);
    f[6] = __saturatef(1.5f) + __saturatef(-2.0f) + __saturatef(0.25f);
    f[7] = __int_as_float(0x3f800000);
    f[8] = __uint_as_float(__float_as_uint(2.0f));
    f[9] = __ldg(&f[5]);
    i[0] = __float_as_int(1.0f);
    i[1] = __popc(0xf0f0u);
    i[2] = __ffs(0) * 100 + __ffs(8);
    i[3] = __clz(0) * 100 + __clz(1);
}

// ---- Checks -------------------------------------------------------------------

static void test_reductions() {
    const int n = 1000;
    std::vector<int> h(n);
    for (int i = 0; i < n; ++i) h[i] = i + 1;
    int* in = to_device(h);
    int* out = device_ints(1, 0);
    cudaError_t e = TTEMU_LAUNCH(block_sum, (n + 255) / 256, 256, nullptr, in, out, n);
    int sum = to_host(out, 1)[0];
    CHECK(e == cudaSuccess && sum == 500500, "block reduction with __syncthreads: %d (want 500500)", sum);

    cudaMemset(out, 0, sizeof(int));
    TTEMU_LAUNCH(block_sum_racy, (n + 255) / 256, 256, nullptr, in, out, n);
    int racy = to_host(out, 1)[0];
    CHECK(racy != 500500, "the same reduction without barriers is wrong (race made visible): %d", racy);
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "a race is not a fault: sync succeeds");
    cudaFree(in);
    cudaFree(out);
}

static void test_order() {
    int* log = device_ints(16, -1);
    int* counter = device_ints(1, 0);
    TTEMU_LAUNCH(order_log, 2, 4, nullptr, log, counter);
    std::vector<int> got = to_host(log, 16);
    const int want[16] = {0, 1, 2, 3, 100, 101, 102, 103, 0, 1, 2, 3, 100, 101, 102, 103};
    CHECK(std::memcmp(got.data(), want, sizeof want) == 0,
          "threads run in index order, again after a barrier, block after block");

    const dim3 grid(3, 2, 2), block(4, 3, 2);
    const int total = 12 * 24;
    int* ids = device_ints(total, -1);
    cudaMemset(counter, 0, sizeof(int));
    TTEMU_LAUNCH(ids_in_order, grid, block, nullptr, ids, counter);
    std::vector<int> order = to_host(ids, total);
    bool in_order = true;
    for (int k = 0; k < total; ++k) in_order = in_order && order[k] == k;
    CHECK(in_order, "3-D grid and block: blocks z,y,x and threads x + y*bx + z*bx*by in linear order");
    cudaFree(log);
    cudaFree(counter);
    cudaFree(ids);
}

static void test_warp_reductions() {
    const unsigned sizes[] = {256, 48, 20};
    for (unsigned bs : sizes) {
        const unsigned warps = (bs + 31) / 32;
        int* down = device_ints(warps, 0);
        int* x = device_ints(bs, 0);
        TTEMU_LAUNCH(warp_sums, 1, bs, nullptr, down, x, 1);
        std::vector<int> d = to_host(down, warps), xs = to_host(x, bs);
        bool ok = cudaDeviceSynchronize() == cudaSuccess;
        for (unsigned w = 0; w < warps; ++w) {
            const unsigned first = w * 32, last = std::min(bs, first + 32);   // threads [first, last)
            const int want = static_cast<int>((first + 1 + last) * (last - first) / 2);
            ok = ok && d[w] == want && xs[first] == want;
            if (last - first == 32)   // a full butterfly leaves the sum in every lane
                for (unsigned t = first; t < last; ++t) ok = ok && xs[t] == want;
        }
        CHECK(ok, "warp reduction, shfl_down and shfl_xor, block of %u (%s)", bs,
              bs % 32 ? "the last warp partial" : "full warps");
        cudaFree(down);
        cudaFree(x);
    }
    // Without the guard, a partial warp reads lanes that do not exist: the
    // emulator hands back the caller's own value, so the sum is visibly wrong.
    int* down = device_ints(1, 0);
    int* x = device_ints(20, 0);
    TTEMU_LAUNCH(warp_sums, 1, 20, nullptr, down, x, 0);
    int unguarded = to_host(down, 1)[0];
    CHECK(unguarded != 210, "unguarded shuffle reduction over a partial warp is wrong: %d (true sum 210)", unguarded);
    cudaFree(down);
    cudaFree(x);
}

static void test_shuffle_rules() {
    int* out = device_ints(11 * 32, -1);
    TTEMU_LAUNCH(shuffle_rules, 1, 32, nullptr, out);
    std::vector<int> o = to_host(out, 11 * 32);
    bool scan = true, up1 = true, bcast = true, idx = true, neg = true, down = true, up = true, xr = true,
         xr8 = true, fl = true, dbl = true;
    for (int l = 0; l < 32; ++l) {
        const int seg = l / 8 * 8, in_seg = l % 8;
        scan = scan && o[l] == (l + 1) * (l + 2) / 2;
        up1 = up1 && o[32 + l] == (l == 0 ? 100 : l + 99);
        bcast = bcast && o[64 + l] == 30;
        idx = idx && o[96 + l] == (seg + 3) * 10;
        neg = neg && o[128 + l] == (seg + 7) * 10;
        down = down && o[160 + l] == (in_seg + 2 < 8 ? l + 2 : l);
        up = up && o[192 + l] == (in_seg >= 2 ? l - 2 : l);
        xr = xr && o[224 + l] == (l ^ 1);
        xr8 = xr8 && o[256 + l] == ((l ^ 8) <= seg + 7 ? (l ^ 8) : l);
        fl = fl && o[288 + l] == (l < 31 ? l + 1 : l);
        dbl = dbl && o[320 + l] == 1;
    }
    CHECK(scan, "shfl_up inclusive scan");
    CHECK(up1, "shfl_up below the segment start returns the caller's own value");
    CHECK(bcast, "shfl broadcast from lane 3");
    CHECK(idx && neg, "shfl with width 8: srcLane taken modulo the width, inside the segment");
    CHECK(down && up, "shfl_down / shfl_up with width 8 stay inside the segment");
    CHECK(xr && xr8, "shfl_xor with width 8: earlier segments readable, later ones return own value");
    CHECK(fl && dbl, "float and double shuffles");
    cudaFree(out);

    int* bad = device_ints(1, 0);
    TTEMU_LAUNCH(shuffle_loop, 1, 64, nullptr, bad, 1000);
    CHECK(to_host(bad, 1)[0] == 0 && cudaDeviceSynchronize() == cudaSuccess,
          "1000 shuffles in a loop on two warps: no round mixed with the next");
    cudaFree(bad);
}

static void test_votes() {
    unsigned* out = nullptr;
    cudaMalloc(reinterpret_cast<void**>(&out), 7 * sizeof(unsigned));
    unsigned h[7];
    TTEMU_LAUNCH(votes, 1, 32, nullptr, out);
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    CHECK(h[0] == 0x49249249u && h[1] == kFull, "ballot: 0x%08x 0x%08x", h[0], h[1]);
    CHECK(h[2] == 1 && h[3] == 0 && h[4] == 1 && h[5] == 0, "any / all");
    CHECK(h[6] == kFull, "__activemask on a full warp");
    TTEMU_LAUNCH(votes, 1, 20, nullptr, out);
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    CHECK(h[0] == (0x49249249u & 0xfffffu) && h[1] == 0xfffffu && h[6] == 0xfffffu,
          "ballot and activemask on a partial warp of 20: only existing lanes");
    cudaFree(out);

    int* bv = device_ints(4, -1);
    TTEMU_LAUNCH(barrier_votes, 1, 100, nullptr, bv);
    std::vector<int> b = to_host(bv, 4);
    CHECK(b[0] == 50 && b[1] == 1 && b[2] == 0 && b[3] == 0, "__syncthreads_count / _and / _or");
    cudaFree(bv);
}

static void test_atomics() {
    unsigned* counter = nullptr;
    cudaMalloc(reinterpret_cast<void**>(&counter), sizeof(unsigned));
    cudaMemset(counter, 0, sizeof(unsigned));
    ttemu_reset_stats();
    TTEMU_LAUNCH(count_threads, 1000, 128, nullptr, counter);
    unsigned c = 0;
    cudaMemcpy(&c, counter, sizeof c, cudaMemcpyDeviceToHost);
    ttemu_counters st = ttemu_stats();
    CHECK(c == 128000 && st.blocks_run == 1000 && st.kernel_launches == 1,
          "atomicAdd from 1000 blocks of 128: %u, %llu blocks", c, st.blocks_run);
    cudaFree(counter);

    const int iv0[8] = {-1000, 1000, 0, 0, -1, 0, 0, 0};
    const unsigned uv0[4] = {0, 1000, 0, 0};
    const float fv0[2] = {0, 0};
    const unsigned long long lv0[2] = {0, 0};
    void *iv, *uv, *fv, *lv;
    cudaMalloc(&iv, sizeof iv0), cudaMalloc(&uv, sizeof uv0), cudaMalloc(&fv, sizeof fv0), cudaMalloc(&lv, sizeof lv0);
    cudaMemcpy(iv, iv0, sizeof iv0, cudaMemcpyHostToDevice);
    cudaMemcpy(uv, uv0, sizeof uv0, cudaMemcpyHostToDevice);
    cudaMemcpy(fv, fv0, sizeof fv0, cudaMemcpyHostToDevice);
    cudaMemcpy(lv, lv0, sizeof lv0, cudaMemcpyHostToDevice);
    TTEMU_LAUNCH(atomic_mix, 1, 64, nullptr, static_cast<int*>(iv), static_cast<unsigned*>(uv),
                 static_cast<float*>(fv), static_cast<unsigned long long*>(lv));
    int i[8];
    unsigned u[4];
    float f[2];
    unsigned long long l[2];
    cudaMemcpy(i, iv, sizeof i, cudaMemcpyDeviceToHost);
    cudaMemcpy(u, uv, sizeof u, cudaMemcpyDeviceToHost);
    cudaMemcpy(f, fv, sizeof f, cudaMemcpyDeviceToHost);
    cudaMemcpy(l, lv, sizeof l, cudaMemcpyDeviceToHost);
    CHECK(i[0] == 139 && i[1] == -50 && i[2] == -128 && i[3] == 320, "atomicMax/Min/Sub/CAS on int");
    CHECK(i[4] == static_cast<int>(0x80000000u) && i[5] == 0x7fffffff && i[6] == 0 && i[7] == 42,
          "atomicAnd/Or/Xor/Exch on int");
    CHECK(u[0] == 63 && u[1] == 7 && u[2] == 64 % 10 && u[3] == 6, "atomicMax/Min/Inc/Dec on unsigned: %u %u %u %u",
          u[0], u[1], u[2], u[3]);
    CHECK(f[0] == 32.0f && f[1] == 2.5f && l[0] == 64ull << 40 && l[1] == 7, "atomics on float and unsigned long long");
    int x = 5;
    CHECK(atomicAdd(&x, 3) == 5 && x == 8 && atomicExch(&x, 1) == 8 && atomicCAS(&x, 2, 9) == 1 && x == 1,
          "atomics return the old value");
    int big = 0x7fffffff;
    atomicAdd(&big, 1);
    CHECK(big == static_cast<int>(0x80000000u), "atomicAdd on int wraps like the hardware (no UB)");
    cudaFree(iv), cudaFree(uv), cudaFree(fv), cudaFree(lv);
}

static void test_bounds_and_misc_launches() {
    const int n = 1000;
    std::vector<float> hx(n), hy(n, -1.0f);
    for (int k = 0; k < n; ++k) hx[k] = static_cast<float>(k);
    void *x, *y;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));   // exact size: an unguarded kernel would overrun (ASan)
    cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    ttemu_reset_stats();
    TTEMU_LAUNCH(scale_bounded, (n + 255) / 256, 256, nullptr, static_cast<const float*>(x), static_cast<float*>(y),
                 2.0f, n);
    cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
    bool ok = true;
    for (int k = 0; k < n; ++k) ok = ok && hy[k] == 2.0f * static_cast<float>(k);
    CHECK(ok && ttemu_stats().blocks_run == 4, "1000 elements in 4 blocks of 256 with a bounds check");
    CHECK(cudaMemcpy(hy.data(), y, (n + 1) * sizeof(float), cudaMemcpyDeviceToHost) == cudaErrorInvalidValue,
          "copying one element too many is caught: %s", ttemu_last_message());
    cudaFree(x);
    cudaFree(y);

    CHECK(TTEMU_LAUNCH(no_args, 1, 1, nullptr) == cudaSuccess, "a kernel without parameters");
    int* p = device_ints(8, 1);
    TTEMU_LAUNCH((add_k<int, 4>), 1, 8, nullptr, p);
    CHECK(to_host(p, 8)[7] == 5, "a template kernel with two template arguments");
    cudaFree(p);

    const float coef[4] = {1, 2, 3, 4};
    void* out;
    cudaMalloc(&out, sizeof coef);
    CHECK(cudaMemcpyToSymbol(c_coef, coef, sizeof coef) == cudaSuccess, "cudaMemcpyToSymbol");
    TTEMU_LAUNCH(use_constants, 1, 4, nullptr, static_cast<float*>(out));
    float back[4];
    cudaMemcpy(back, out, sizeof back, cudaMemcpyDeviceToHost);
    float sym[4];
    cudaMemcpyFromSymbol(sym, c_coef, sizeof sym);
    CHECK(back[3] == 8.0f && sym[2] == 3.0f, "__constant__ memory read by a kernel");
    CHECK(cudaMemcpyToSymbol(c_coef, coef, sizeof coef, 4) == cudaErrorInvalidValue, "symbol copy past its end fails");
    cudaFree(out);

    void *f, *i;
    cudaMalloc(&f, 10 * sizeof(float));
    cudaMalloc(&i, 4 * sizeof(int));
    TTEMU_LAUNCH(math_intrinsics, 1, 1, nullptr, static_cast<float*>(f), static_cast<int*>(i));
    float hf[10];
    int hi[4];
    cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost);
    cudaMemcpy(hi, i, sizeof hi, cudaMemcpyDeviceToHost);
    CHECK(std::fabs(hf[0] - 2.7182817f) < 1e-5f && hf[1] == 0.0f && hf[2] == 1.0f && hf[3] == 0.25f && hf[4] == 0.5f &&
              hf[5] == 7.0f && hf[6] == 1.25f && hf[7] == 1.0f && hf[8] == 2.0f && hf[9] == 7.0f,
          "fast-math intrinsics and bit casts");
    CHECK(hi[0] == 0x3f800000 && hi[1] == 8 && hi[2] == 4 && hi[3] == 3231, "__popc / __ffs / __clz");
    cudaFree(f);
    cudaFree(i);
}

static void test_faults() {
    int* out = device_ints(64, 0);
    ttemu_reset_stats();
    CHECK(TTEMU_LAUNCH(early_return, 4, 64, nullptr, out) == cudaSuccess, "a faulting launch itself succeeds");
    CHECK(cudaPeekAtLastError() == cudaErrorLaunchFailure, "cudaPeekAtLastError reports the fault");
    CHECK(std::strstr(ttemu_last_message(), "returned") != nullptr, "message: %s", ttemu_last_message());
    CHECK(to_host(out, 64)[0] == 0 && cudaGetLastError() == cudaErrorLaunchFailure,
          "cudaMemcpy after the fault returns it instead of copying");
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "a fault is reported once");
    std::vector<int> o = to_host(out, 64);
    CHECK(o[0] == 1 && o[5] == 0 && ttemu_stats().blocks_run == 1,
          "the waiting threads were released; the later blocks were skipped");
    cudaGetLastError();

    TTEMU_LAUNCH(early_return, 1, 64, nullptr, out);
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure, "early return before __syncthreads: cudaDeviceSynchronize "
                                                             "returns cudaErrorLaunchFailure");
    CHECK(cudaGetLastError() == cudaErrorLaunchFailure && cudaGetLastError() == cudaSuccess,
          "cudaGetLastError returns the error once, then clears it");

    TTEMU_LAUNCH(exited_lane, 1, 32, nullptr, out);
    CHECK(cudaStreamSynchronize(nullptr) == cudaErrorLaunchFailure, "a lane named in a shuffle mask has exited: %s",
          ttemu_last_message());
    TTEMU_LAUNCH(deadlock, 1, 32, nullptr, out);
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure && std::strstr(ttemu_last_message(), "deadlock"),
          "mismatched barriers deadlock: %s", ttemu_last_message());
    cudaGetLastError();

    TTEMU_LAUNCH(split_syncwarp, 1, 32, nullptr, out);
    std::vector<int> halves = to_host(out, 32);
    CHECK(cudaDeviceSynchronize() == cudaSuccess && halves[3] == 0 && halves[20] == 16,
          "__syncwarp and shuffles on disjoint half-warp masks");
    cudaFree(out);
}

static void test_invalid_configs() {
    struct Case {
        dim3 grid, block;
        const char* what;
    } cases[] = {
        {dim3(1), dim3(0), "block of 0 threads"},
        {dim3(1), dim3(1025), "block of 1025 threads"},
        {dim3(1), dim3(32, 33), "block of 32x33 threads"},
        {dim3(1), dim3(1, 1, 65), "block.z of 65"},
        {dim3(0), dim3(32), "grid.x of 0"},
        {dim3(0x80000000u), dim3(32), "grid.x of 2^31"},
        {dim3(1, 65536), dim3(32), "grid.y of 65536"},
        {dim3(1, 1, 0), dim3(32), "grid.z of 0"},
    };
    int* out = device_ints(1, 0);
    for (const Case& c : cases) {
        ttemu_reset_stats();
        cudaError_t e = TTEMU_LAUNCH(no_args, c.grid, c.block, nullptr);
        CHECK(e == cudaErrorInvalidConfiguration && cudaGetLastError() == cudaErrorInvalidConfiguration &&
                  cudaGetLastError() == cudaSuccess && ttemu_stats().kernel_launches == 0,
              "invalid configuration: %s", c.what);
    }
    ttemu_reset_stats();
    CHECK(TTEMU_LAUNCH(no_args, dim3(1, 65535, 1), dim3(16, 16, 4), nullptr) == cudaSuccess &&
              ttemu_stats().blocks_run == 65535,
          "the largest grid.y, with a 1024-thread block, is valid");
    cudaFree(out);
}

static void test_memory_checks() {
    void* d = nullptr;
    char host[512] = {0};
    CHECK(cudaMalloc(&d, 100) == cudaSuccess && reinterpret_cast<std::uintptr_t>(d) % 256 == 0,
          "cudaMalloc is 256-byte aligned");
    unsigned char first = 0;
    cudaMemcpy(&first, d, 1, cudaMemcpyDeviceToHost);
    CHECK(first == 0xff, "fresh device memory is filled with 0xff (uninitialized reads stand out)");
    char* c = static_cast<char*>(d);
    CHECK(cudaMemcpy(d, host, 100, cudaMemcpyHostToDevice) == cudaSuccess, "copy of the whole allocation");
    CHECK(cudaMemcpy(d, host, 101, cudaMemcpyHostToDevice) == cudaErrorInvalidValue, "off by one: %s",
          ttemu_last_message());
    CHECK(cudaMemcpy(c + 50, host, 50, cudaMemcpyHostToDevice) == cudaSuccess &&
              cudaMemcpy(c + 50, host, 51, cudaMemcpyHostToDevice) == cudaErrorInvalidValue,
          "interior pointer: the range must end inside the allocation");
    CHECK(cudaMemcpy(host, d, 100, cudaMemcpyHostToDevice) == cudaErrorInvalidValue,
          "swapped direction is caught: %s", ttemu_last_message());
    CHECK(cudaMemcpy(host, host + 100, 100, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue,
          "a host pointer as the device source is caught");
    CHECK(cudaMemcpy(d, host, 10, static_cast<cudaMemcpyKind>(7)) == cudaErrorInvalidMemcpyDirection,
          "bad cudaMemcpyKind");
    CHECK(cudaMemcpy(host, d, 100, cudaMemcpyDefault) == cudaSuccess &&
              cudaMemcpy(c, c + 50, 50, cudaMemcpyDefault) == cudaSuccess,
          "cudaMemcpyDefault infers both sides");
    CHECK(cudaMemcpy(nullptr, host, 0, cudaMemcpyHostToDevice) == cudaSuccess, "a zero-byte copy is a no-op");
    CHECK(cudaMemset(d, 0, 100) == cudaSuccess && cudaMemset(c + 1, 0, 100) == cudaErrorInvalidValue,
          "memset range check");
    CHECK(cudaMemsetAsync(host, 0, 10) == cudaErrorInvalidValue, "memset of host memory is caught");
    CHECK(cudaFree(c + 1) == cudaErrorInvalidDevicePointer, "cudaFree of an interior pointer: %s",
          ttemu_last_message());
    CHECK(cudaFree(host) == cudaErrorInvalidDevicePointer, "cudaFree of a host pointer");
    CHECK(cudaFree(nullptr) == cudaSuccess, "cudaFree(nullptr)");
    const int live = ttemu_live_allocations();
    CHECK(cudaFree(d) == cudaSuccess && ttemu_live_allocations() == live - 1, "cudaFree");
    CHECK(cudaFree(d) == cudaErrorInvalidDevicePointer, "double cudaFree is caught");
    CHECK(cudaMemcpy(host, d, 1, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue, "copy from freed memory is caught");
    void* z = &host;
    CHECK(cudaMalloc(&z, 0) == cudaSuccess && z == nullptr && ttemu_live_allocations() == live - 1,
          "cudaMalloc of 0 bytes gives nullptr and allocates nothing");
    void* ph = nullptr;
    CHECK(cudaMallocHost(&ph, 64) == cudaSuccess && cudaFreeHost(ph) == cudaSuccess &&
              cudaFreeHost(host) == cudaErrorInvalidValue,
          "cudaMallocHost / cudaFreeHost");
    std::size_t free_b = 0, total_b = 0;
    CHECK(cudaMemGetInfo(&free_b, &total_b) == cudaSuccess && free_b <= total_b && total_b > 0, "cudaMemGetInfo");
    cudaGetLastError();
}

static void test_graphs() {
    const int n = 300;
    std::vector<int> hin(n), hout(n, 0);
    int* din = device_ints(n, 0);
    int* dout = device_ints(n, 0);
    cudaStream_t s = nullptr;
    CHECK(cudaStreamCreate(&s) == cudaSuccess, "cudaStreamCreate");
    int k = 3;
    ttemu_reset_stats();
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess &&
              cudaStreamIsCapturing(s, &st) == cudaSuccess && st == cudaStreamCaptureStatusActive,
          "begin capture");
    cudaMemcpyAsync(din, hin.data(), n * sizeof(int), cudaMemcpyHostToDevice, s);
    TTEMU_LAUNCH(scale_ints, (n + 127) / 128, 128, s, din, dout, k, n);
    cudaMemcpyAsync(hout.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost, s);
    k = 100;   // parameters were copied at the launch
    ttemu_counters during = ttemu_stats();
    CHECK(during.kernel_launches == 0 && during.memcpy_calls == 0, "nothing runs while capturing");
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    CHECK(cudaStreamEndCapture(s, &graph) == cudaSuccess && graph != nullptr, "end capture");
    CHECK(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess, "instantiate");
    for (int round = 1; round <= 2; ++round) {
        for (int j = 0; j < n; ++j) hin[j] = j * round;   // bytes read at replay, not capture
        CHECK(cudaGraphLaunch(exec, s) == cudaSuccess && cudaStreamSynchronize(s) == cudaSuccess, "graph launch %d",
              round);
        bool ok = true;
        for (int j = 0; j < n; ++j) ok = ok && hout[j] == 3 * j * round;
        CHECK(ok, "replay %d used the host bytes as of the replay and the captured parameter k=3", round);
    }
    ttemu_counters after = ttemu_stats();
    CHECK(after.graph_launches == 2 && after.graph_nodes_replayed == 6 && after.kernel_launches == 2 &&
              after.memcpy_calls == 4 && after.blocks_run == 6,
          "graph counters: %llu launches, %llu nodes", after.graph_launches, after.graph_nodes_replayed);

    // A buffer freed after the capture: the replay faults.
    int* tmp = device_ints(n, 0);
    cudaGraph_t g2 = nullptr;
    cudaGraphExec_t x2 = nullptr;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
    cudaMemsetAsync(tmp, 0, n * sizeof(int), s);
    void* scratch = nullptr;
    CHECK(cudaMalloc(&scratch, 4) == cudaSuccess && cudaFree(scratch) == cudaSuccess,
          "cudaMalloc and cudaFree are allowed in a relaxed capture");
    cudaStreamEndCapture(s, &g2);
    cudaGraphInstantiate(&x2, g2);
    cudaFree(tmp);
    cudaGraphLaunch(x2, s);
    CHECK(cudaStreamSynchronize(s) == cudaErrorIllegalAddress, "replaying a memset into freed memory faults: %s",
          ttemu_last_message());
    cudaGetLastError();
    cudaGraphExecDestroy(x2);
    cudaGraphDestroy(g2);

    // Forbidden during a (global-mode) capture.
    cudaGraph_t bad = nullptr;
    CHECK(cudaStreamBeginCapture(nullptr, cudaStreamCaptureModeGlobal) == cudaErrorStreamCaptureUnsupported,
          "capture on the legacy stream is refused");
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaErrorIllegalState, "nested begin capture");
    CHECK(cudaMemcpy(hout.data(), dout, 4, cudaMemcpyDeviceToHost) == cudaErrorStreamCaptureUnsupported,
          "synchronous cudaMemcpy during a capture");
    CHECK(cudaStreamIsCapturing(s, &st) == cudaSuccess && st == cudaStreamCaptureStatusInvalidated,
          "... invalidates the capture");
    CHECK(cudaStreamEndCapture(s, &bad) == cudaErrorStreamCaptureInvalidated && bad == nullptr,
          "EndCapture reports cudaErrorStreamCaptureInvalidated");
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    CHECK(cudaStreamSynchronize(s) == cudaErrorStreamCaptureUnsupported, "cudaStreamSynchronize during a capture");
    CHECK(cudaStreamEndCapture(s, &bad) == cudaErrorStreamCaptureInvalidated, "... invalidates it");
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    void* m = nullptr;
    CHECK(cudaMalloc(&m, 16) == cudaErrorStreamCaptureUnsupported, "cudaMalloc during a global capture");
    CHECK(cudaStreamEndCapture(s, &bad) == cudaErrorStreamCaptureInvalidated, "... invalidates it");
    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
    CHECK(TTEMU_LAUNCH(no_args, 1, 1, nullptr) == cudaErrorStreamCaptureImplicit,
          "a launch on the legacy stream while a blocking stream captures");
    CHECK(cudaStreamEndCapture(s, &bad) == cudaErrorStreamCaptureInvalidated, "... invalidates it");
    CHECK(cudaStreamEndCapture(s, &bad) == cudaErrorIllegalState, "EndCapture without a capture");
    cudaGetLastError();

    // Events recorded during a capture take their time at replay; a graph
    // launched into a capturing stream is recorded there.
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaGraph_t outer = nullptr;
    cudaGraphExec_t outer_exec = nullptr;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    CHECK(cudaStreamIsCapturing(nullptr, &st) == cudaErrorStreamCaptureImplicit,
          "cudaStreamIsCapturing on the legacy stream during a blocking capture");
    cudaEventRecord(e0, s);
    cudaGraphLaunch(exec, s);
    cudaEventRecord(e1, s);
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, e0, e1) == cudaErrorInvalidResourceHandle, "captured events are not recorded yet");
    CHECK(cudaStreamEndCapture(s, &outer) == cudaSuccess && cudaGraphInstantiate(&outer_exec, outer) == cudaSuccess,
          "capture of a graph launch");
    ttemu_reset_stats();
    for (int j = 0; j < n; ++j) hin[j] = 7;
    cudaGraphLaunch(outer_exec, s);
    CHECK(cudaStreamSynchronize(s) == cudaSuccess && hout[n - 1] == 21 && ttemu_stats().graph_nodes_replayed == 5 &&
              cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess && ms >= 0.0f,
          "the outer graph replays the inner one's nodes between its two events (%.3f ms)", ms);
    cudaGraphExecDestroy(outer_exec);
    cudaGraphDestroy(outer);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);

    cudaStream_t nb = nullptr;
    cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking);
    cudaStreamBeginCapture(nb, cudaStreamCaptureModeRelaxed);
    CHECK(TTEMU_LAUNCH(no_args, 1, 1, nullptr) == cudaSuccess, "a non-blocking stream's capture allows legacy work");
    cudaGraph_t g3 = nullptr;
    CHECK(cudaStreamEndCapture(nb, &g3) == cudaSuccess && g3 != nullptr, "... and stays valid");
    cudaGraphDestroy(g3);
    cudaStreamDestroy(nb);

    CHECK(cudaGraphExecDestroy(exec) == cudaSuccess && cudaGraphDestroy(graph) == cudaSuccess &&
              cudaStreamDestroy(s) == cudaSuccess,
          "destroy graph, exec, stream");
    CHECK(cudaStreamDestroy(s) == cudaErrorInvalidResourceHandle, "destroying a stream twice is caught");
    cudaGetLastError();
    cudaFree(din);
    cudaFree(dout);
}

static void test_events() {
    cudaEvent_t a = nullptr, b = nullptr;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, a, b) == cudaErrorInvalidResourceHandle, "elapsed time needs recorded events");
    cudaEventRecord(a);
    int* p = device_ints(1 << 16, 0);
    TTEMU_LAUNCH(fill_index, 256, 256, nullptr, p, 1 << 16);
    cudaEventRecord(b, nullptr);
    CHECK(cudaEventSynchronize(b) == cudaSuccess && cudaEventElapsedTime(&ms, a, b) == cudaSuccess && ms >= 0.0f,
          "events: %.3f ms for a 65536-thread kernel", ms);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    cudaFree(p);
    cudaGetLastError();
}

static void test_devices_and_knobs() {
    int count = -1, dev = -1, drv = 0, rt = 0;
    CHECK(cudaGetDeviceCount(&count) == cudaSuccess && count == 1 && cudaGetDevice(&dev) == cudaSuccess && dev == 0,
          "one device by default");
    CHECK(cudaDriverGetVersion(&drv) == cudaSuccess && drv == 13000 && cudaRuntimeGetVersion(&rt) == cudaSuccess &&
              rt == CUDART_VERSION,
          "driver %d, runtime %d", drv, rt);
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0) == cudaSuccess &&
              std::strcmp(prop.name, "tinytrace CUDA emulator (CPU)") == 0 && prop.major == 8 && prop.minor == 0 &&
              prop.warpSize == 32 && prop.maxThreadsPerBlock == 1024,
          "device properties: %s, sm_%d%d", prop.name, prop.major, prop.minor);
    CHECK(cudaSetDevice(1) == cudaErrorInvalidDevice && cudaGetDeviceProperties(&prop, 1) == cudaErrorInvalidDevice,
          "device 1 does not exist");
    ttemu_set_device_count(2);
    CHECK(cudaSetDevice(1) == cudaSuccess && cudaGetDevice(&dev) == cudaSuccess && dev == 1, "two devices");
    ttemu_reset();

    ttemu_set_device_count(0);
    void* p = nullptr;
    CHECK(cudaGetDeviceCount(&count) == cudaErrorNoDevice && count == 0, "no device: cudaGetDeviceCount");
    CHECK(cudaMalloc(&p, 16) == cudaErrorNoDevice && TTEMU_LAUNCH(no_args, 1, 1, nullptr) == cudaErrorNoDevice,
          "no device: cudaMalloc and launches fail");
    ttemu_reset();

    ttemu_set_driver_version(11080);
    CHECK(cudaGetDeviceCount(&count) == cudaErrorInsufficientDriver && count == 0,
          "old driver: cudaGetDeviceCount returns cudaErrorInsufficientDriver");
    CHECK(cudaMalloc(&p, 16) == cudaErrorInsufficientDriver && cudaGetLastError() == cudaErrorInsufficientDriver,
          "old driver: the next call fails too: %s", ttemu_last_message());
    CHECK(cudaDriverGetVersion(&drv) == cudaSuccess && drv == 11080, "the old driver's version is readable");
    ttemu_reset();

    const int live = ttemu_live_allocations();
    ttemu_fail_malloc_after(2);
    void *a = nullptr, *b = nullptr, *c = &a;
    CHECK(cudaMalloc(&a, 8) == cudaSuccess && cudaMalloc(&b, 8) == cudaSuccess, "fail_malloc_after(2): two succeed");
    CHECK(cudaMalloc(&c, 8) == cudaErrorMemoryAllocation && c == nullptr &&
              cudaMalloc(&c, 8) == cudaErrorMemoryAllocation,
          "... then cudaMalloc fails with cudaErrorMemoryAllocation");
    CHECK(ttemu_live_allocations() == live + 2, "live allocations counted");
    ttemu_reset();
    CHECK(cudaMalloc(&c, 8) == cudaSuccess && cudaGetLastError() == cudaSuccess, "ttemu_reset: cudaMalloc works again");
    cudaFree(a), cudaFree(b), cudaFree(c);
    CHECK(ttemu_live_allocations() == live, "all freed");
    CHECK(std::strcmp(cudaGetErrorString(cudaErrorMemoryAllocation), "out of memory") == 0 &&
              std::strcmp(cudaGetErrorName(cudaErrorLaunchFailure), "cudaErrorLaunchFailure") == 0 &&
              cudaErrorStreamCaptureInvalidated == 901 && cudaErrorNoDevice == 100,
          "error names, strings and codes");
}

static void test_timing() {
    int* out = device_ints(1024, 0);
    const auto t0 = std::chrono::steady_clock::now();
    TTEMU_LAUNCH(barrier_loop, 1, 1024, nullptr, out, 100);
    const double barrier_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::vector<int> o = to_host(out, 1024);
    bool ok = cudaDeviceSynchronize() == cudaSuccess;
    for (int t = 0; t < 1024; ++t) ok = ok && o[t] == (t == 1023 ? -102300 : 100);
    CHECK(ok, "1024 threads x 100 iterations of two __syncthreads: results exact");
    CHECK(barrier_s < 1.0, "... in %.3f s (limit 1 s)", barrier_s);
    cudaFree(out);

    const int n = 1 << 20;
    int* big = device_ints(n, -1);
    const auto t1 = std::chrono::steady_clock::now();
    TTEMU_LAUNCH(fill_index, n / 256, 256, nullptr, big, n);
    const double flat_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    std::vector<int> b = to_host(big, n);
    CHECK(b[0] == 0 && b[n - 1] == n - 1, "a 1M-thread elementwise kernel in %.3f s", flat_s);
    cudaFree(big);
}

// Host threads launch concurrently: the emulator serializes them.
static void test_host_threads() {
    const int n = 1000;
    std::vector<int> h(n);
    for (int i = 0; i < n; ++i) h[i] = i + 1;
    int bad[2] = {0, 0};
    auto worker = [&](int id) {
        int* in = to_device(h);
        int* out = device_ints(1, 0);
        for (int r = 0; r < 20; ++r) {
            cudaMemsetAsync(out, 0, sizeof(int));
            TTEMU_LAUNCH(block_sum, (n + 255) / 256, 256, nullptr, in, out, n);
            if (to_host(out, 1)[0] != 500500) ++bad[id];
        }
        cudaFree(in);
        cudaFree(out);
    };
    std::thread a(worker, 0), b(worker, 1);
    a.join();
    b.join();
    CHECK(bad[0] == 0 && bad[1] == 0, "two host threads launching block reductions concurrently");
}

static void test_device_reset() {
    void* p = nullptr;
    cudaStream_t s = nullptr;
    cudaMalloc(&p, 64);
    cudaStreamCreate(&s);
    CHECK(cudaDeviceReset() == cudaSuccess && ttemu_live_allocations() == 0, "cudaDeviceReset frees every allocation");
    CHECK(cudaStreamDestroy(s) == cudaErrorInvalidResourceHandle && cudaFree(p) == cudaErrorInvalidDevicePointer,
          "... and its handles are gone");
    cudaGetLastError();
}

int main() {
    test_reductions();
    test_order();
    test_warp_reductions();
    test_shuffle_rules();
    test_votes();
    test_atomics();
    test_bounds_and_misc_launches();
    test_faults();
    test_invalid_configs();
    test_memory_checks();
    test_graphs();
    test_events();
    test_devices_and_knobs();
    test_timing();
    test_host_threads();
    CHECK(ttemu_live_allocations() == 0, "no device allocation leaked by the self-test");
    test_device_reset();
    std::printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
}
