/*
 * gpu_emu.cpp - the GPU entries of <ravioli/kernel.h> (procNbr, procBox) run
 * on the CPU, one CUDA thread after another, and compared with the
 * definition of the operations. This checks the entries' index, strip,
 * border-clamp, stride and reduction logic on machines without a GPU (the
 * kernels' arithmetic is the element functions', shared with the CPU form).
 *
 * How: the GPU half of kernel.h is compiled by the host C++ compiler with
 * the few CUDA built-ins it uses defined here (threadIdx & co. as globals,
 * fences as no-ops, %dynamic_smem_size from a variable). The threads of a
 * block run as coroutines on one OS thread: __syncthreads() waits until
 * every thread of the block has reached it (or ended), a warp shuffle
 * waits until every lane of its mask has posted its value (a lane of the
 * mask that ended first, or a caller outside its own mask, fails the
 * case), cp.async copies land at the latest moment the hardware allows
 * (the issuing thread's wait) and bulk copies at the first wait on their
 * mbarrier phase. So the procNbr shared tile, the procBox template copy
 * and the warp and block reductions (procBox with blocks of 5, 37 and 64
 * threads, reductions with 32 and 64) are exact for any grid; the grid-wide reduction through scratch
 * and the counter is exercised with 1 to 1000 blocks. pixel.h's GPU-only
 * code (__vsadu4 and the lop3 bit-select in rv_abs_diff) is not covered:
 * the host form is used.
 *
 * The reference evaluates every sample position from the definition:
 * procNbr with clamping at every position and the result filling its S x S
 * block; procBox over x = i*S <= W - box_w, ties of min/max to the
 * smallest (y, x).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>
#include <ucontext.h>
#include <map>
#include <vector>
#define RV_CUDA 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __grid_constant__
#define __launch_bounds__(...)
#define __shared__ thread_local /* static storage, like shared memory */
#define __align__(n) __attribute__((aligned(n)))
struct emu3 { unsigned x, y, z; };
static emu3 threadIdx, blockIdx, blockDim, gridDim;
static unsigned emu_dsz;
extern "C" {
alignas(16) thread_local unsigned char rv__dyn[1 << 16]; /* extern __shared__ of the box entries */
}
struct uint2 { unsigned x, y; };
struct uint4 { unsigned x, y, z, w; };
template <class T> static T __ldg(const T *p) { return *p; }
template <class T> static T __ldcg(const T *p) { return *p; }
static void emu_sync(); /* __syncthreads: waits for every thread of the block */
static void __syncthreads() { emu_sync(); }
/* warp shuffles: a real exchange between the lanes named in the mask (see
 * emu_exchange); a lane past the block's last thread reads as 0 (an
 * invalid partial), a source lane past 31 as the caller's own value */
static unsigned long long emu_exchange(unsigned mask, unsigned long long v, int src_lane);
template <class T> static T emu_shfl(unsigned mask, T v, int src_lane)
{
    static_assert(sizeof(T) <= 8, "shuffled values fit 8 bytes");
    unsigned long long u = 0;
    memcpy(&u, &v, sizeof(T));
    u = emu_exchange(mask, u, src_lane);
    T r;
    memcpy(&r, &u, sizeof(T));
    return r;
}
static unsigned emu_cur; /* the running thread of the block */
template <class T> static T __shfl_down_sync(unsigned mask, T v, int off) { return emu_shfl(mask, v, (int)(emu_cur & 31) + off); }
template <class T> static T __shfl_xor_sync(unsigned mask, T v, int b) { return emu_shfl(mask, v, (int)(emu_cur & 31) ^ b); }
static void __threadfence() {}
static void __threadfence_system() {}
static unsigned atomicAdd(unsigned *p, unsigned v) { unsigned o = *p; *p += v; return o; }
/* cp.async (the procNbr tile copies): in the lazy mode a copy reads its
 * source when issued and lands in shared memory only when the issuing
 * thread waits (the latest the hardware may complete it), so a read of the
 * tile before the wait and the barrier sees stale data; in the eager mode it
 * lands at once, so a copy into the buffer still being read shows. Copies
 * left unwaited when a thread ends are counted as errors. */
#define RV__EMU_CP_ASYNC 1
static bool emu_cp_lazy = true;
static long emu_progress; /* barriers, shuffles, copies and arrivals passed, threads ended */
static long emu_cp_left = 0;
struct emu_cp { void *dst; unsigned char val[16]; int n; };
static std::vector<emu_cp> emu_cp_q[1024];
template <int N> static void rv__cp_async(void *d, const void *s)
{
    static_assert(N == 4 || N == 8 || N == 16, "cp.async copies 4, 8 or 16 bytes");
    if (((uintptr_t)d | (uintptr_t)s) % N != 0) { emu_cp_left += 1000000; return; } /* misaligned: fail */
    if (!emu_cp_lazy) { memcpy(d, s, N); return; }
    emu_cp c;
    c.dst = d; c.n = N;
    memcpy(c.val, s, N);
    emu_cp_q[emu_cur].push_back(c);
}
static void rv__cp_commit() {}
static void rv__cp_wait_all()
{
    for (auto &c : emu_cp_q[emu_cur]) memcpy(c.dst, c.val, (size_t)c.n);
    emu_cp_q[emu_cur].clear();
}
/* Bulk copies and their mbarrier (RV_GPU_NBR_BULK): a copy is counted
 * against the barrier it names; in the lazy mode it lands only when the
 * barrier's phase completes (arrival with expect_tx seen and all expected
 * bytes copied; copies may come before the arrival, as on the hardware)
 * and a thread waits on it (the latest the hardware may complete it, so a
 * tile read without a wait sees stale data), in the eager mode at once. A wait on a phase not yet complete yields to
 * the other threads of the block (the hardware spins); a wait that never
 * completes (bytes missing or in excess), a second arrival in one phase,
 * or copies never waited for fail the case. */
struct emu_bar { unsigned phase; long expect, copied; bool arrived; std::vector<emu_cp> q; std::vector<std::vector<unsigned char>> big; };
static std::vector<emu_bar> emu_bars;
static long emu_bar_errors = 0;
static emu_bar &emu_bar_of(unsigned long long *bar) { return emu_bars[(size_t)*bar]; }
static void rv__mbar_init(unsigned long long *bar)
{
    emu_bars.push_back(emu_bar{0, 0, 0, false, {}, {}});
    *bar = emu_bars.size() - 1;
}
static void emu_bar_try(emu_bar &b, bool waiting = false)
{
    if (b.arrived && b.copied == b.expect && (waiting || !emu_cp_lazy)) {
        for (auto &c : b.q) memcpy(c.dst, c.val, (size_t)c.n);
        for (size_t i = 0; i < b.big.size(); i++) memcpy(*(void **)b.big[i].data(), b.big[i].data() + sizeof(void *), b.big[i].size() - sizeof(void *));
        b.q.clear(); b.big.clear();
        b.phase++; b.expect = b.copied = 0; b.arrived = false;
    }
}
static void rv__mbar_expect(unsigned long long *bar, unsigned bytes)
{
    emu_bar &b = emu_bar_of(bar);
    if (b.arrived) emu_bar_errors++; /* two arrivals on a barrier of count 1 */
    b.expect += bytes; b.arrived = true;
    emu_progress++;
    emu_bar_try(b);
}
static void rv__bulk_copy(void *d, const void *s, unsigned bytes, unsigned long long *bar)
{
    emu_bar &b = emu_bar_of(bar);
    if (((uintptr_t)d | (uintptr_t)s | bytes) % 16 != 0) { emu_bar_errors++; return; }
    if (!emu_cp_lazy) memcpy(d, s, bytes);
    else {
        std::vector<unsigned char> v(sizeof(void *) + bytes);
        memcpy(v.data(), &d, sizeof(void *));
        memcpy(v.data() + sizeof(void *), s, bytes);
        b.big.push_back(std::move(v));
    }
    b.copied += bytes;
    emu_progress++;
    emu_bar_try(b);
}
static void emu_yield();
static void rv__mbar_wait(unsigned long long *bar, unsigned parity)
{
    /* spins (yielding to the other threads, not a barrier arrival) while
     * the phase is open; a wait through which no thread of the block makes
     * progress for a few rounds never completes: a failure */
    long seen = emu_progress;
    for (int idle = 0; (emu_bar_of(bar).phase & 1u) == parity;) {
        emu_bar_try(emu_bar_of(bar), true);
        if ((emu_bar_of(bar).phase & 1u) != parity)
            break;
        if (idle > 4) { emu_bar_errors++; return; }
        emu_yield(); /* the other threads run (and issue their copies) */
        idle = emu_progress == seen ? idle + 1 : 0;
        seen = emu_progress;
    }
}
#define __builtin_assume_aligned(p, n) (p)
#define asm(...) (rv__dsz = emu_dsz)
#define RV__SAD_V4_ANYWHERE 1 /* rv_win_sad_rows_rgba's 16-byte path, as on the GPU */
static long emu_misaligned; /* 16-byte reads off the 16-byte grid (a fault on the GPU) */
#define RV__EMU_ALIGN_CHECK(p, n) (emu_misaligned += ((uintptr_t)(p) % (n)) != 0)
/* 16-byte reads that fall outside every row of the image and template
 * (rows taken to their 16-byte-rounded end) and outside the shared array:
 * past a row's rounded end a GPU read can leave the allocation (the last
 * row) or read another row's bytes; set by check_box */
struct emu_rd_area { const unsigned char *lo; int64_t pitch, rowlen, rows; };
static emu_rd_area emu_rd[3];
static long emu_oob;
static void emu_read_check(const void *p, size_t n)
{
    const unsigned char *c = (const unsigned char *)p;
    for (const emu_rd_area &r : emu_rd) {
        if (!r.lo || c < r.lo || c >= r.lo + r.pitch * r.rows)
            continue;
        const int64_t off = (int64_t)(c - r.lo) % r.pitch;
        if (off + (int64_t)n <= r.rowlen)
            return;
    }
    emu_oob++;
}
#define RV__EMU_READ_CHECK(p, n) emu_read_check((p), (n))
#include <ravioli/kernel.h>
#include "modules/samples/samples.c"
#undef asm

typedef void (*entry)(const rv_args);
/* The threads of a block are coroutines (ucontext) on one OS thread:
 * __syncthreads() switches to the next thread of the block, so every thread
 * runs to its next barrier before any goes past it (a barrier's meaning),
 * and the block's shared arrays (static storage) are one for all of them. */
static ucontext_t emu_main, emu_ctx[1024];
static bool emu_done[1024];
static entry emu_f;
static rv_args emu_a; /* a copy of the launch's arguments: a pointer to the caller's would
                         * outlive its frame (GCC 13: -Wdangling-pointer) */
static std::vector<char> emu_stacks;
static unsigned emu_nt;     /* threads of the running block */
static unsigned emu_bar[1024]; /* barriers each thread has reached */
static void emu_yield()
{
    if (emu_nt > 1)
        swapcontext(&emu_ctx[emu_cur], &emu_main);
}
/* __syncthreads: this thread arrives, then waits (yielding to the others)
 * until every thread of the block has arrived here or ended */
static void emu_sync()
{
    if (emu_nt <= 1)
        return;
    const unsigned me = emu_cur, my = ++emu_bar[me];
    emu_progress++;
    for (;;) {
        bool all = true;
        for (unsigned u = 0; u < emu_nt && all; u++)
            all = emu_done[u] || emu_bar[u] >= my;
        if (all)
            return;
        emu_yield();
    }
}
/* shuffles, counted per thread and mask (the lanes of a mask make the same
 * number of calls with it): the caller posts its value for call k, waits
 * until every lane of the mask in the block has posted call k, reads the
 * source lane's value of call k. A lane of the mask that ended first fails
 * the run (emu_shfl_bad). */
struct emu_shf { unsigned n; unsigned long long v[2]; };
static std::map<unsigned, emu_shf> emu_shfs[1024];
static long emu_shfl_bad;
static unsigned long long emu_exchange(unsigned mask, unsigned long long v, int src_lane)
{
    const unsigned me = emu_cur, base = me & ~31u;
    if (!(mask >> (me & 31) & 1u)) { emu_shfl_bad++; return v; }
    emu_shf &mine = emu_shfs[me][mask];
    const unsigned k = mine.n;
    mine.v[k & 1] = v;
    mine.n = k + 1;
    emu_progress++;
    for (;;) {
        bool all = true;
        for (unsigned l = 0; l < 32 && all; l++) {
            const unsigned u = base + l;
            if (!(mask >> l & 1u) || u >= emu_nt || u == me)
                continue;
            all = emu_shfs[u][mask].n >= k + 1;
            if (!all && emu_done[u]) { emu_shfl_bad++; all = true; break; }
        }
        if (all)
            break;
        emu_yield();
    }
    if (src_lane > 31 || src_lane < 0)
        return v;
    const unsigned src = base + (unsigned)src_lane;
    if (src >= emu_nt)
        return 0;
    if (!(mask >> src_lane & 1u)) { emu_shfl_bad++; return 0; }
    return emu_shfs[src][mask].v[k & 1];
}
static void emu_thread()
{
    emu_f(emu_a);
    emu_progress++;
    emu_done[emu_cur] = true;
    emu_cp_left += (long)emu_cp_q[emu_cur].size();
    emu_cp_q[emu_cur].clear();
}
/* getcontext/swapcontext return twice: kept out of launch() (no locals of
 * theirs to clobber) */
__attribute__((noinline)) static void emu_resume(unsigned t) { swapcontext(&emu_main, &emu_ctx[t]); }
__attribute__((noinline)) static void emu_start(unsigned t, char *stack, size_t size)
{
    getcontext(&emu_ctx[t]);
    emu_ctx[t].uc_stack.ss_sp = stack;
    emu_ctx[t].uc_stack.ss_size = size;
    emu_ctx[t].uc_link = &emu_main;
    makecontext(&emu_ctx[t], emu_thread, 0);
    emu_done[t] = false;
}
static void launch(entry f, const rv_args &a, unsigned gx, unsigned gy, unsigned bx, unsigned by)
{
    const size_t stk = 256 * 1024;
    const unsigned nt = bx * by;
    gridDim = {gx, gy, 1}; blockDim = {bx, by, 1};
    emu_f = f; emu_a = a;
    if (nt > 1 && emu_stacks.size() < nt * stk) emu_stacks.resize(nt * stk);
    emu_nt = nt;
    for (unsigned b = 0; b < gx * gy; b++) {
        blockIdx = {b % gx, b / gx, 0};
        for (unsigned t = 0; t < nt; t++) {
            emu_bar[t] = 0;
            emu_shfs[t].clear();
        }
        if (nt == 1) {
            threadIdx = {0, 0, 0};
            emu_cur = 0;
            f(a);
            emu_cp_left += (long)emu_cp_q[0].size();
            emu_cp_q[0].clear();
            continue;
        }
        for (unsigned t = 0; t < nt; t++) emu_start(t, emu_stacks.data() + t * stk, stk);
        for (bool left = true; left;) { /* rounds: each thread to its next yield */
            left = false;
            const long before = emu_progress;
            for (unsigned t = 0; t < nt; t++) {
                if (emu_done[t]) continue;
                emu_cur = t;
                threadIdx = {t % bx, t / bx, 0};
                emu_resume(t);
                left = left || !emu_done[t];
            }
            if (left && emu_progress == before) { /* every thread waits: a barrier or */
                printf("FAIL: threads of block %u wait for each other forever\n", b); /* shuffle */
                exit(1);                                          /* some never reach */
            }
        }
    }
}
static uint32_t rnd(uint64_t &s) { s = s * 6364136223846793005ull + 1442695040888963407ull; return (uint32_t)(s >> 33); }

static int emu_odd_pitch = 0, emu_tpl_odd = 0, emu_img_odd = 0;

template <class T, class F>
static int check_nbr(const char *name, entry f, F fn, int w, int h, int s, int R, unsigned gx, unsigned gy, unsigned bx, unsigned by, const void *prm, size_t psz)
{
    uint64_t seed = (uint64_t)w * 7919 + h * 31 + s;
    /* emu_odd_pitch: rows one sample off the 16-byte grid (no vector stores) */
    const int64_t pitch = ((int64_t)w * (int64_t)sizeof(T) + 15) / 16 * 16 + 16 + emu_odd_pitch * (int64_t)sizeof(T);
    std::vector<unsigned char> src(pitch * h), dst(pitch * h, 0xcd), ref(pitch * h, 0xcd);
    for (auto &c : src) c = (unsigned char)rnd(seed);
    if (sizeof(T) == 4 && strstr(name, "laplacef")) /* finite floats (also "w:laplacef") */
        for (int y = 0; y < h; y++) for (int x = 0; x < w; x++) ((float *)(src.data() + y * pitch))[x] = (float)(rnd(seed) % 1000) / 7.0f;
    rv_args a; memset(&a, 0, sizeof a);
    a.src = {src.data(), pitch, w, h};
    a.dst = {dst.data(), pitch, w, h};
    a.s = s;
    memcpy(a.params, prm, psz);
    emu_cp_left = 0;
    emu_bars.clear();
    emu_bar_errors = 0;
    launch(f, a, gx, gy, bx, by);
    for (auto &b : emu_bars) /* bulk copies or an arrival never waited for */
        if (b.arrived || b.copied || !b.big.empty()) emu_bar_errors++;
    if (emu_bar_errors) {
        printf("FAIL %s %dx%d S=%d grid %ux%u block %ux%u: %ld bulk copy / barrier errors\n", name, w, h, s, gx, gy, bx, by, emu_bar_errors);
        return 1;
    }
    if (emu_cp_left) {
        printf("FAIL %s %dx%d S=%d grid %ux%u block %ux%u: %ld tile copies not waited for (or misaligned)\n", name, w, h, s, gx, gy, bx, by, emu_cp_left);
        return 1;
    }
    /* reference from the definition: every sample clamps, fills its S x S block */
    for (int y = 0; y < h; y += s)
        for (int x = 0; x < w; x += s) {
            rv_nbr n = {src.data(), pitch, x, y, w, h, s, 1, 0, 0};
            T v = fn(n);
            for (int yy = y; yy < y + s && yy < h; yy++)
                for (int xx = x; xx < x + s && xx < w; xx++) memcpy(ref.data() + yy * pitch + xx * sizeof(T), &v, sizeof(T));
        }
    for (int y = 0; y < h; y++)
        if (memcmp(dst.data() + y * pitch, ref.data() + y * pitch, pitch) != 0) { /* padding too */
            printf("FAIL %s %dx%d S=%d R=%d grid %ux%u block %ux%u %s copies: row %d\n", name, w, h, s, R, gx, gy, bx, by, emu_cp_lazy ? "lazy" : "eager", y);
            return 1;
        }
    (void)R;
    return 0;
}

/* procPix / compImg (two inputs when TI2 is not void): the S = 1 vector path
 * and the S > 1 block fill (vector stores of 16 / 8 bytes where the block
 * row allows, emu_odd_pitch: rows off the 16-byte grid, scalar stores) */
template <class TI, class TI2, class TO, class F>
static int check_pc(const char *name, entry f, F fn, int w, int h, int s, unsigned gx, unsigned gy, unsigned bx, unsigned by, const void *prm, size_t psz)
{
    uint64_t seed = (uint64_t)w * 31 + h * 7919 + s * 3;
    const size_t big = sizeof(TI) > sizeof(TO) ? sizeof(TI) : sizeof(TO);
    const int64_t pitch = ((int64_t)w * (int64_t)big + 15) / 16 * 16 + 16 + emu_odd_pitch * (int64_t)big;
    std::vector<unsigned char> src(pitch * h), src2(pitch * h), dst(pitch * h, 0xcd), ref(pitch * h, 0xcd);
    for (auto &c : src) c = (unsigned char)rnd(seed);
    for (auto &c : src2) c = (unsigned char)rnd(seed);
    rv_args a; memset(&a, 0, sizeof a);
    a.src = {src.data(), pitch, w, h};
    a.src2 = {src2.data(), pitch, w, h};
    a.dst = {dst.data(), pitch, w, h};
    a.s = s;
    memcpy(a.params, prm, psz);
    launch(f, a, gx, gy, bx, by);
    for (int y = 0; y < h; y += s)
        for (int x = 0; x < w; x += s) {
            TI v1; TI2 v2;
            memcpy(&v1, src.data() + y * pitch + x * sizeof(TI), sizeof(TI));
            memcpy(&v2, src2.data() + y * pitch + x * sizeof(TI2), sizeof(TI2));
            TO v = fn(v1, v2);
            for (int yy = y; yy < y + s && yy < h; yy++)
                for (int xx = x; xx < x + s && xx < w; xx++) memcpy(ref.data() + yy * pitch + xx * sizeof(TO), &v, sizeof(TO));
        }
    for (int y = 0; y < h; y++)
        if (memcmp(dst.data() + y * pitch, ref.data() + y * pitch, pitch) != 0) { /* padding too */
            printf("FAIL %s %dx%d S=%d grid %ux%u block %ux%u odd=%d: row %d\n", name, w, h, s, gx, gy, bx, by, emu_odd_pitch, y);
            return 1;
        }
    return 0;
}

template <class TS, class TI, class TR, class F>
static int check_box(const char *name, entry f, F fn, int W, int H, int bw, int bh, int s, int red, bool smem, unsigned gx, bool ref_img, unsigned bt = 1)
{
    uint64_t seed = (uint64_t)W * 131 + H * 7 + bw + s * 1000 + red;
    /* emu_img_odd: image rows one sample off the 16-byte grid */
    const int64_t pitch = ((int64_t)W * (int64_t)sizeof(TI) + 15) / 16 * 16 + emu_img_odd * (int64_t)sizeof(TI);
    /* emu_tpl_odd: template rows off the 16-byte grid */
    const int64_t tpitch = ((int64_t)bw * (int64_t)sizeof(TR) + 15) / 16 * 16 + 32 + emu_tpl_odd * (int64_t)sizeof(TR);
    std::vector<unsigned char> src(pitch * H), tpl(tpitch * bh);
    for (auto &c : src) c = (unsigned char)(rnd(seed) % 8); /* small range: many ties */
    for (auto &c : tpl) c = (unsigned char)(rnd(seed) % 8);
    if (sizeof(TI) == 4 && strcmp(name, "meanf") == 0)
        for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) ((float *)(src.data() + y * pitch))[x] = (float)(rnd(seed) % 4);
    const int64_t dpitch = (int64_t)W * 4 + 16;
    std::vector<unsigned char> dst(dpitch * H, 0xcd), rdst(dpitch * H, 0xcd);
    const int cols = (W - bw) / s + 1, rows = (H - bh) / s + 1;
    std::vector<unsigned char> scratch(64 + 32 * (size_t)gx, 0);
    rv_args a; memset(&a, 0, sizeof a);
    a.src = {src.data(), pitch, W, H};
    a.src2 = {ref_img ? tpl.data() : nullptr, tpitch, bw, bh};
    a.dst = {dst.data(), dpitch, W, H};
    a.s = s; a.box_w = bw; a.box_h = bh; a.reduce = red;
    a.scratch = (uint64_t)(uintptr_t)scratch.data();
    /* the backend's mapped copy of the result (RV_BOX_SCRATCH_HOST): the
     * last block writes it beside the scratch copy */
    rv_partial hcopy; memset(&hcopy, 0x5a, sizeof hcopy); hcopy.valid = -1;
    const uint64_t hp = (uint64_t)(uintptr_t)&hcopy;
    memcpy(scratch.data() + RV_BOX_SCRATCH_HOST, &hp, sizeof hp);
    emu_dsz = smem ? 1u << 16 : 0;
    emu_shfl_bad = 0;
    emu_misaligned = 0;
    emu_oob = 0;
    emu_rd[0] = {src.data(), pitch, ((int64_t)W * (int64_t)sizeof(TI) + 15) / 16 * 16, H};
    emu_rd[1] = {tpl.data(), tpitch, ((int64_t)bw * (int64_t)sizeof(TR) + 15) / 16 * 16, bh};
    emu_rd[2] = {rv__dyn, (int64_t)sizeof rv__dyn, (int64_t)sizeof rv__dyn, 1};
    launch(f, a, gx, 1, bt, 1);
    emu_rd[0] = emu_rd[1] = emu_rd[2] = emu_rd_area{};
    /* reference from the definition */
    rv_win w0 = {src.data(), pitch, ref_img ? tpl.data() : nullptr, tpitch, 0, 0, (bw + s - 1) / s, (bh + s - 1) / s, s, 0};
    double best = 0, sum = 0; int64_t isum = 0; int bx = 0, by = 0, found = 0;
    for (int j = 0; j < rows; j++)
        for (int i = 0; i < cols; i++) {
            w0.x = i * s; w0.y = j * s;
            TS v = fn(w0);
            if (red == RV_REDUCE_NONE) {
                for (int yy = w0.y; yy < w0.y + s && yy < H; yy++)
                    for (int xx = w0.x; xx < w0.x + s && xx < W; xx++) { float fv = (float)v; memcpy(rdst.data() + yy * dpitch + xx * 4, &fv, 4); }
            } else if (red == RV_REDUCE_SUM) { isum += (int64_t)v; sum += (double)v; found = 1; }
            else if (!found || (red == RV_REDUCE_MIN ? (double)v < best : (double)v > best)) { best = v; bx = w0.x; by = w0.y; found = 1; }
        }
    int bad = emu_shfl_bad != 0 || emu_misaligned != 0 || emu_oob != 0;
    if (emu_misaligned) printf("  %ld misaligned 16-byte reads\n", emu_misaligned);
    if (emu_oob) printf("  %ld 16-byte reads past a row's 16-byte-rounded end\n", emu_oob);
    if (bad) printf("  %ld shuffles with a lane missing or outside the mask\n", emu_shfl_bad);
    if (red == RV_REDUCE_NONE) {
        for (int y = 0; y < H; y++) if (memcmp(dst.data() + y * dpitch, rdst.data() + y * dpitch, W * 4)) bad = 1;
    } else {
        rv_partial r; memcpy(&r, scratch.data() + 16, sizeof r);
        const bool hbad = memcmp(&r, &hcopy, sizeof r) != 0;
        if (hbad) printf("  mapped result copy differs\n");
        /* (|=: the read, alignment and shuffle failures above stand) */
        bool rbad = !r.valid;
        if (!rbad && red == RV_REDUCE_SUM) rbad = std::is_integral<TS>::value ? r.isum != isum : r.score != sum;
        else if (!rbad) rbad = r.score != best || r.x != bx || r.y != by;
        bad |= rbad;
        if (rbad) printf("  got %g (%d,%d) isum %lld, want %g (%d,%d) isum %lld\n", r.score, r.x, r.y, (long long)r.isum, red == RV_REDUCE_SUM ? sum : best, bx, by, (long long)isum);
        if (*(unsigned *)scratch.data() != 0) bad = 1; /* counter reset */
        if (hbad) bad = 1;
    }
    if (bad) printf("FAIL %s %dx%d box %dx%d S=%d red=%d smem=%d tpl_odd=%d img_odd=%d grid %u x %u\n", name, W, H, bw, bh, s, red, (int)smem, emu_tpl_odd, emu_img_odd, gx, bt);
    return bad;
}

/* pixel.h helpers added for the GPU (host forms here; the GPU forms are
 * checked against the CPU by gpu_equivalence through the sample kernels) */
static int check_pixel_helpers(void)
{
    int bad = 0;
    uint64_t seed = 12345;
    for (int k = 0; k < 200000; k++) {
        const int r = (int)(rnd(seed) % 1500) - 600, g = (int)(rnd(seed) % 1500) - 600;
        const int b = (int)(rnd(seed) % 1500) - 600, al = (int)(rnd(seed) % 1500) - 600;
        const RV_Pixel p = rnd(seed);
        auto c8 = [](int v) { return v < 0 ? 0u : v > 255 ? 255u : (unsigned)v; };
        const RV_Pixel want = c8(r) | c8(g) << 8 | c8(b) << 16 | c8(al) << 24;
        bad += rv_rgba_sat(r, g, b, al) != want;
        bad += rv_rgb_sat(r, g, b) != ((want & 0x00ffffffu) | 0xff000000u);
        const unsigned v = (unsigned)r & 0xffu;
        bad += rv_set_gray(p, r) != ((p & 0xff000000u) | v | v << 8 | v << 16);
        bad += rv_g(p) != (int)((p >> 8) & 0xff) || rv_b(p) != (int)((p >> 16) & 0xff);
    }
    printf("pixel helpers: %d mismatches\n", bad);
    return bad != 0;
}

/* SAD of a window from the definition (sum of |R|, |G|, |B| differences
 * over the window's samples), independent of kernel.h's helpers */
static int32_t sad_def(rv_win w)
{
    int32_t sum = 0;
    for (int j = 0; j < w.h; j++)
        for (int i = 0; i < w.w; i++) {
            uint32_t p, q;
            memcpy(&p, w.base + (int64_t)(w.y + j * w.s) * w.pitch + (int64_t)(w.x + i * w.s) * 4, 4);
            memcpy(&q, w.ref + (int64_t)(j * w.s) * w.ref_pitch + (int64_t)(i * w.s) * 4, 4);
            for (int c = 0; c < 24; c += 8) {
                const int d = (int)((p >> c) & 0xff) - (int)((q >> c) & 0xff);
                sum += d < 0 ? -d : d;
            }
        }
    return sum;
}

#ifndef RV_EMU_NBR_ONLY
#define RV_EMU_NBR_ONLY 0
#endif
#ifndef RV_EMU_BOX_ONLY /* 1: procBox cases only, 2: RV_PROC_BOXR only (quicker runs by hand) */
#define RV_EMU_BOX_ONLY 0
#endif
/* Sharding: `test_gpu_emu K N` runs the K-th of N interleaved parts of
 * the cases (ctest runs the parts side by side; without arguments, all).
 * A part is a (size, stride) or (box, stride, reduction) combination. */
static int emu_shard = 0, emu_nshards = 1, emu_part = 0;
static bool mine() { return emu_part++ % emu_nshards == emu_shard; }

int main(int argc, char **argv)
{
    if (argc == 3) {
        emu_shard = atoi(argv[1]);
        emu_nshards = atoi(argv[2]);
        if (emu_nshards < 1 || emu_shard < 0 || emu_shard >= emu_nshards) {
            fprintf(stderr, "usage: %s [K N] (0 <= K < N): run part K of N\n", argv[0]);
            return 2;
        }
    } else if (argc != 1) {
        fprintf(stderr, "usage: %s [K N] (0 <= K < N): run part K of N\n", argv[0]);
        return 2;
    }
    int fails = emu_shard == 0 ? check_pixel_helpers() : 0, runs = 0;
    const int sizes[][2] = {{1, 1}, {2, 3}, {3, 2}, {5, 17}, {17, 5}, {33, 9}, {64, 64}, {67, 41}, {130, 37}, {40, 200}, {197, 139}, {389, 101}};
    rv_threshold_params tp0 = {0}, tp1 = {100};
    rv_noparam np = {0};
    for (int lazy = 0; lazy <= (RV_EMU_BOX_ONLY ? -1 : 1); lazy++)
    for (int odd = 0; odd <= 1; odd++)
    for (auto &sz : sizes)
        for (int s : {1, 2, 3, 4, 8}) {
            if (!mine())
                continue;
            emu_odd_pitch = odd;
            emu_cp_lazy = lazy;
            const int w = sz[0], h = sz[1];
            const int rows = (h + s - 1) / s, cols = (w + s - 1) / s;
            /* the backend's grid, plus odd smaller and larger ones */
            /* (the backend's two S = 1 shapes: strips of RV_GPU_NBR_ROWS x
             * RV_GPU_NBR_COLS, or RV_GPU_NBR_ROWS_SMALL x 1 for small planes;
             * 1x1-thread blocks make the small shape's condition hold for
             * every size) */
            const unsigned sx = s == 1 ? (cols + RV_GPU_NBR_COLS - 1) / RV_GPU_NBR_COLS : cols;
            const unsigned sy = s == 1 ? (rows + RV_GPU_NBR_ROWS - 1) / RV_GPU_NBR_ROWS : rows;
            const unsigned ssy = s == 1 ? (rows + RV_GPU_NBR_ROWS_SMALL - 1) / RV_GPU_NBR_ROWS_SMALL : rows;
            const unsigned grids[][4] = {
                {(sx + 31) / 32, (sy + 7) / 8, 32, 8},
                {(unsigned)(cols + 31) / 32, (ssy + 7) / 8, 32, 8},
                {(unsigned)cols, ssy, 1, 1},
                {1, 1, 32, 8}, {2, 3, 8, 2}, {1, 1, 1, 1}, {7, 13, 3, 1},
                /* shared tiles of blocks under 8 warps (by = 3, 1) */
                {(sx + 31) / 32, (sy + 2) / 3, 32, 3}, {1, 2, 32, 1},
                /* fewer blocks than tiles: each block runs several tiles */
                /* through its two buffers (the backend's resident-wave grid */
                /* is 1D; odd counts and a 2D one here) */
                {3, 1, 32, 8}, {2, 2, 32, 2}, {5, 1, 32, 1}};
            for (auto &g : grids) {
#define NB(NAME, FN, T, R, P)                                                                     \
    fails += check_nbr<T>(#NAME, rvk_##NAME, [&](rv_nbr n) { return FN(n, &(P)); }, w, h, s, R, \
                          g[0], g[1], g[2], g[3], &(P), sizeof(P)); runs++;
                NB(emboss, emboss, RV_Pixel, 1, np)
                NB(edge, sobel, RV_Pixel, 1, tp0)
                NB(edge, sobel, RV_Pixel, 1, tp1)
                NB(blur8, blur8, uint8_t, 1, np)
                NB(blur16, blur16, uint16_t, 2, np)
                NB(laplacef, laplacef, float, 1, np)
                /* the large-plane entries rvkw_ (kernel.h RV_GPU_NBR_WIDE: */
                /* 4 x 4 strips; the backend launches them at S = 1 only,  */
                /* any grid; 389 x 101 has interior tiles of 16-byte copies) */
#if RV_GPU_NBR_WIDE
                if (s <= 2) {
#define NBW(NAME, FN, T, R, P)                                                                    \
    fails += check_nbr<T>("w:" #NAME, rvkw_##NAME, [&](rv_nbr n) { return FN(n, &(P)); }, w, h, s, R, \
                          g[0], g[1], g[2], g[3], &(P), sizeof(P)); runs++;
                    NBW(emboss, emboss, RV_Pixel, 1, np)
                    NBW(edge, sobel, RV_Pixel, 1, tp1)
                    NBW(blur8, blur8, uint8_t, 1, np)
                    NBW(blur16, blur16, uint16_t, 2, np)
                    NBW(laplacef, laplacef, float, 1, np)
                }
#endif
            }
        }
    printf("nbr: %d runs, %d failed\n", runs, fails);
    int bf = 0, br = 0;
    if (!RV_EMU_NBR_ONLY) { /* the variant builds differ in procNbr's tile copies only */
    int pf = 0, pr = 0;
    rv_threshold_params tp90 = {90};
    for (int odd = 0; odd <= 1; odd++)
        for (auto &sz : sizes)
            for (int s : {1, 2, 3, 4, 8}) {
                if (!mine())
                    continue;
                emu_odd_pitch = odd;
                const int w = sz[0], h = sz[1];
                const unsigned cols = (unsigned)(w + s - 1) / s, rows = (unsigned)(h + s - 1) / s;
                const unsigned grids[][4] = {{(cols + 31) / 32, (rows + 7) / 8, 32, 8}, {1, 1, 32, 8}, {3, 2, 8, 1}, {1, 1, 1, 1}};
                for (auto &g : grids) {
#define PX(NAME, TI, TO, EXPR, P)                                                                     \
    pf += check_pc<TI, TI, TO>(#NAME, rvk_##NAME, [&](TI v, TI) { return EXPR; }, w, h, s, g[0], g[1], \
                               g[2], g[3], &(P), sizeof(P)); pr++;
#define CP(NAME, TI, TO, EXPR, P)                                                                     \
    pf += check_pc<TI, TI, TO>(#NAME, rvk_##NAME, [&](TI v, TI u) { return EXPR; }, w, h, s, g[0],   \
                               g[1], g[2], g[3], &(P), sizeof(P)); pr++;
                    PX(gray, RV_Pixel, RV_Pixel, gray(v, &np), np)
                    PX(luma8, RV_Pixel, uint8_t, luma8(v, &np), np)
                    PX(invert8, uint8_t, uint8_t, invert8(v, &np), np)
                    PX(invert16, uint16_t, uint16_t, invert16(v, &np), np)
                    PX(gray16, RV_Pixel16, RV_Pixel16, gray16(v, &np), np)
                    CP(diff, RV_Pixel, RV_Pixel, diff(v, u, &tp90), tp90)
                    CP(absdiff8, uint8_t, uint8_t, absdiff8(v, u, &np), np)
                }
            }
    printf("pix/comp: %d runs, %d failed\n", pr, pf);
    fails += pf;
    runs += pr;
    /* {W, H, box}: odd boxes, boxes narrower than 4, rows of 1, 2, 3, 4, 5
     * and 13+ windows (RV_PROC_BOXN: fewer windows than RV_BOXN, exactly
     * RV_BOXN, a last group moved left) */
    const int bsz[][4] = {{9, 7, 3, 2}, {20, 15, 5, 4}, {33, 21, 7, 9}, {12, 12, 12, 12}, {40, 30, 1, 1},
                          {13, 6, 11, 3}, {10, 5, 7, 5}, {8, 4, 5, 2}, {23, 9, 2, 3}, {31, 8, 3, 7}};
    for (auto &b : bsz)
        for (int s = 1; s <= (RV_EMU_BOX_ONLY >= 2 ? 0 : 3); s++)
            for (int red = 0; red <= 3; red++)
                if (mine())
                for (int sm = 0; sm <= 2; sm++) /* 2: shared template, rows off the 16-byte grid */
                    for (unsigned gx : {1u, 3u, 16u, 1000u}) {
                        emu_tpl_odd = sm == 2;
                        bf += check_box<int32_t, RV_Pixel, RV_Pixel>("sad", rvk_sad, sad_def, b[0], b[1], b[2], b[3], s, red, sm, gx, true); br++;
                        bf += check_box<int32_t, RV_Pixel, RV_Pixel>("sad1", rvk_sad1, sad_def, b[0], b[1], b[2], b[3], s, red, sm, gx, true); br++;
                        bf += check_box<int32_t, RV_Pixel, RV_Pixel>("sad_g2", rvk_sad_g2, sad_def, b[0], b[1], b[2], b[3], s, red, sm, gx, true); br++;
                        bf += check_box<int32_t, RV_Pixel, RV_Pixel>("sad_r2", rvk_sad_r2, sad_def, b[0], b[1], b[2], b[3], s, red, sm, gx, true); br++;
                        bf += check_box<int32_t, RV_Pixel, RV_Pixel>("sad_g4", rvk_sad_g4, sad_def, b[0], b[1], b[2], b[3], s, red, sm, gx, true); br++;
                        /* blocks of several threads: the template copy, */
                        /* and the warp and block reductions by shuffles */
                        /* between the emulated threads */
                        /* (the backend's reduction blocks are whole warps) */
                        if (gx <= 16)
                            for (unsigned bt : red == RV_REDUCE_NONE ? std::vector<unsigned>{64u, 37u, 5u} : std::vector<unsigned>{32u, 64u}) {
                                bf += check_box<int32_t, RV_Pixel, RV_Pixel>("sad", rvk_sad, sad_def, b[0], b[1], b[2], b[3], s, red, sm, gx, true, bt); br++;
                                bf += check_box<int32_t, uint8_t, uint8_t>("ssd8", rvk_ssd8, [&](rv_win w) { return ssd8(w, &np); }, b[0], b[1], b[2], b[3], s, red, sm, gx, true, bt); br++;
                                if (red != RV_REDUCE_NONE) {
                                    bf += check_box<int32_t, RV_Pixel, RV_Pixel>("sad1", rvk_sad1, sad_def, b[0], b[1], b[2], b[3], s, red, sm, gx, true, bt); br++;
                                    bf += check_box<float, float, uint8_t>("meanf", rvk_meanf, [&](rv_win w) { return meanf(w, &np); }, b[0], b[1], b[2], b[3], s, red, sm, gx, false, bt); br++;
                                }
                            }
                        bf += check_box<int32_t, uint8_t, uint8_t>("ssd8", rvk_ssd8, [&](rv_win w) { return ssd8(w, &np); }, b[0], b[1], b[2], b[3], s, red, sm, gx, true); br++;
                        bf += check_box<float, float, uint8_t>("meanf", rvk_meanf, [&](rv_win w) { return meanf(w, &np); }, b[0], b[1], b[2], b[3], s, red, sm, gx, false); br++;
                    }
    /* RV_PROC_BOXR (row-additive scores, template rows in bands of warps
     * whose partial sums are added through shared memory): every reduction
     * with blocks of 8, 64 and 256 threads (1, 2 and up to 8 bands), templates on and off
     * the 16-byte grid, so both the 16-byte path of rv_win_sad_rows_rgba
     * (groups starting on the 16-byte grid) and the row path run */
    const int rsz[][4] = {{9, 7, 3, 2}, {20, 15, 5, 4}, {33, 21, 7, 9}, {12, 12, 12, 12}, {40, 30, 1, 1},
                          {13, 6, 11, 3}, {23, 9, 2, 3}, {31, 8, 3, 7}, {48, 24, 17, 11}, {30, 19, 8, 17}};
    int rf = 0, rr = 0;
    for (auto &b : rsz)
        for (int s = 1; s <= 2; s++)
            for (int red = 0; red <= 3; red++)
                if (mine())
                /* 0: template read from global memory; 1: copied to shared */
                /* memory; 2: 1 with the source template off the grid; 3: */
                /* 0 off the grid; 4: 1 with the image rows off the grid */
                for (int sm = 0; sm <= 4; sm++)
                    for (unsigned gx : {1u, 3u, 16u})
                        for (unsigned bt : {8u, 64u, 256u}) {
                            if (bt == 256u && (sm != 1 || gx != 3u))
                                continue; /* (emulating 256 threads is slow) */
                            emu_tpl_odd = sm == 2 || sm == 3;
                            emu_img_odd = sm == 4;
                            const bool smem = sm == 1 || sm == 2 || sm == 4;
#define BR(NAME) rf += check_box<int32_t, RV_Pixel, RV_Pixel>(#NAME, rvk_##NAME, sad_def, b[0], b[1], b[2], b[3], s, red, smem, gx, true, bt); rr++;
                            BR(sad_rs4) BR(sad_rs1) BR(sad_rs2) BR(sad_rs8) BR(sad_g2rs4) BR(sad_g2rs2) BR(sad_rs4v1)
                        }
    emu_tpl_odd = emu_img_odd = 0;
    printf("boxr: %d runs, %d failed\n", rr, rf);
    bf += rf;
    br += rr;
    printf("box: %d runs, %d failed\n", br, bf);
    fails += bf;
    }
    printf("%d passed, %d failed\n", runs + br - fails, fails);
    return fails != 0;
}
