// Data cache sizes of the core the runtime runs on, and the GEMM blocking derived from them.
//
// Hosted builds read them once (kernel selection asks at Create, so nothing is read during a
// run): sysconf where libc knows them (glibc on x86 reads CPUID), else Linux's
// /sys/devices/system/cpu/cpu0/cache, else the defaults below; EDGEFOLD_L1D_KB / EDGEFOLD_L2_KB
// override them (A/B runs, tests). Bare-metal builds use the defaults: their scalar GEMM does not
// block for a cache.
#pragma once
#include <cstddef>

namespace edgefold::kernels {

struct CacheSizes {
  size_t l1d_bytes = 32 * 1024;  // per core
  size_t l2_bytes = 512 * 1024;  // per core (a cluster's shared L2 counts whole)
};

// Found on the first call, the same value after; no heap (POSIX open/read).
const CacheSizes& HostCaches();

// GEMM blocking (simd/gemm_simd.h). The GEMM packs one B panel (kc rows × one register tile's
// columns) contiguously and runs every row tile of an mc-row block of A over it:
// - kc: the panel fills at most L1d: the block's row tiles read it in order, from L1 or as one
//   prefetched stream from L2, and the strided rows of B are walked once per panel, not once
//   per row tile (with B's rows ≥ 4 KiB apart each row is a page: a TLB miss per k);
// - mc: the block of A (mc × kc) takes at most half of L2, so it stays there across the
//   column panels.
// The sums run over k in order whatever the blocks (each k block continues from C's partial
// sum), so a different core's blocking gives the same bits.
struct GemmBlocking {
  size_t kc = 256;
  size_t mc = 256;
};
constexpr size_t kGemmMaxKc = 256;  // bounds the per-block row table and the panel on the stack

// `panel_floats`: the widest register tile's columns (NV·W); `mr`: its rows.
GemmBlocking GemmBlockingFor(const CacheSizes& caches, size_t mr, size_t panel_floats);

// The float GEMM's widest register tile for vectors of `lanes` floats: 8 rows × 3 registers
// where there are 32 vector registers (AVX-512, AArch64); 6 × 2 on x86's 16 (SSE, AVX2: 12
// accumulators, 2 B registers and the broadcast; 4 × 2's 8 chains barely cover two FMA pipes'
// 4-cycle latency and pay the tile's loads and stores over fewer FMAs: short-k GEMMs 5–8 %
// faster on Zen 3, large ones even, bench/README.md); 4 × 2 on ARMv7 NEON (6 × 2 not measured).
constexpr size_t GemmTileRows(bool many_registers) {
#if defined(__arm__)
  return many_registers ? 8 : 4;
#else
  return many_registers ? 8 : 6;
#endif
}
constexpr size_t GemmPanelFloats(size_t lanes, bool many_registers) {
  return (many_registers ? 3 : 2) * lanes;
}

}  // namespace edgefold::kernels
