// The DSP extension's int8 GEMM in 4 × 2 tiles with both operands widened once (int8_dsp.h):
//   SXTB16(w)       = (int16 w.byte0, int16 w.byte2)
//   SXTB16(w ror 8) = (int16 w.byte1, int16 w.byte3)
// so four k values q..q+3 make the two "slots" (q, q+2) and (q+1, q+3). A's four rows and B's two
// columns are widened into such slots (A per row block, B per column block, k zero-padded to a
// multiple of 8), and one slot of the tile is three LDRDs and eight SMLADs:
//   c[r][j] += SMLAD(A_r(slot), B_j(slot))    r < 4, j < 2
// 11 instructions for 16 multiply-accumulates, where the 2 × 2 tile that widens A in the loop
// (int8_dsp.cc) takes 16. The sums are exact integers, requantized a row at a time by RequantRow:
// the bytes are ref::GemmS8's.
#include "kernels/cortex_m/int8_dsp_util.h"

#if defined(EDGEFOLD_HAVE_INT8_DSP)
#include <algorithm>

namespace edgefold::kernels::cortex_m_dsp {
namespace {

// Accumulator rows of a tile: row r of the 4 × cols sums starts r·kTileRowBytes bytes in.
constexpr size_t kTileCols = 64;
constexpr size_t kTileRowBytes = kTileCols * sizeof(int32_t);  // 256: LDRD's offsets reach 3·256
#define EDGEFOLD_DSP_T4_ROW1 "256"
#define EDGEFOLD_DSP_T4_ROW2 "512"
#define EDGEFOLD_DSP_T4_ROW3 "768"

struct Tile4Args {
  const uint32_t* a_end;  // the packed A block's end
  uint32_t pairs;         // column pairs in the panel, ≥ 1
  const int32_t*
      bias8;  // the four rows' starting sums, each twice, or nullptr: continue from `rows`
};

// One slot: B's two columns (r2, r3), A's rows 0–1 then 2–3 (r12, lr), sums in r4–r11.
#define EDGEFOLD_DSP_T4_SLOT     \
  "ldrd   r2, r3, [r1], #8\n\t"  \
  "ldrd   r12, lr, [r0], #8\n\t" \
  "smlad  r4, r12, r2, r4\n\t"   \
  "smlad  r5, r12, r3, r5\n\t"   \
  "smlad  r6, lr, r2, r6\n\t"    \
  "smlad  r7, lr, r3, r7\n\t"    \
  "ldrd   r12, lr, [r0], #8\n\t" \
  "smlad  r8, r12, r2, r8\n\t"   \
  "smlad  r9, r12, r3, r9\n\t"   \
  "smlad  r10, lr, r2, r10\n\t"  \
  "smlad  r11, lr, r3, r11\n\t"

// rows[r][2q + j] = s_r + Σ_slots A_r(slot)·B_{pair q, j}(slot) for every column pair q of the
// panel, s_r = args.bias8[2r], or rows[r][2q + j] itself where bias8 is null
// (consecutive, slots × 2 words each), A the packed block a[slot][4 rows] up to args.a_end, a
// multiple of 4 slots. Written whole in asm: the 4 × 2 tile takes 8 sums, 2 + 2 operands and two
// pointers, all 14 registers; the loop's other state (A's start and end, the rows pointer, bias8,
// the pairs left) lives on the stack, read once per 8 slots or once per pair. The loop runs 8
// slots a pass; an odd number of 4-slot groups enters the first pass halfway.
[[gnu::naked, gnu::noinline]] void Tile4x2Pairs(const uint32_t* /*a*/, const uint32_t* /*panel*/,
                                                int32_t* /*rows*/, const Tile4Args* /*args*/) {
  __asm__ volatile(
      "push   {r4-r11, lr}\n\t"
      "ldr    r12, [r3, #4]\n\t"
      "ldr    lr, [r3]\n\t"
      "ldr    r3, [r3, #8]\n\t"
      "sub    r4, lr, r0\n\t"
      "and    r4, r4, #64\n\t"                // an odd number of 4-slot groups (64 bytes of A each)
      "push   {r0, r2, r3, r4, r12, lr}\n\t"  // sp: a, rows, bias8, odd, pairs, a_end
      "1:\n\t"
      "ldr    r12, [sp, #8]\n\t"
      "cmp    r12, #0\n\t"
      "beq    3f\n\t"
      "ldm    r12, {r4-r11}\n\t"
      "4:\n\t"
      "ldr    r0, [sp]\n\t"
      "ldr    r2, [sp, #12]\n\t"
      "cmp    r2, #0\n\t"
      "bne    5f\n\t"  // odd: the first pass runs the second half only
      "2:\n\t" EDGEFOLD_DSP_T4_SLOT EDGEFOLD_DSP_T4_SLOT EDGEFOLD_DSP_T4_SLOT EDGEFOLD_DSP_T4_SLOT
      "5:\n\t" EDGEFOLD_DSP_T4_SLOT EDGEFOLD_DSP_T4_SLOT EDGEFOLD_DSP_T4_SLOT EDGEFOLD_DSP_T4_SLOT
      "ldr    r2, [sp, #20]\n\t"
      "cmp    r0, r2\n\t"
      "bne    2b\n\t"
      "ldr    r12, [sp, #4]\n\t"
      "strd   r6, r7, [r12, #" EDGEFOLD_DSP_T4_ROW1
      "]\n\t"
      "strd   r8, r9, [r12, #" EDGEFOLD_DSP_T4_ROW2
      "]\n\t"
      "strd   r10, r11, [r12, #" EDGEFOLD_DSP_T4_ROW3
      "]\n\t"
      "strd   r4, r5, [r12], #8\n\t"
      "str    r12, [sp, #4]\n\t"
      "ldr    r2, [sp, #16]\n\t"
      "subs   r2, r2, #1\n\t"
      "str    r2, [sp, #16]\n\t"
      "bne    1b\n\t"
      "add    sp, sp, #24\n\t"
      "pop    {r4-r11, pc}\n\t"
      "3:\n\t"  // no bias: continue from rows
      "ldr    r12, [sp, #4]\n\t"
      "ldrd   r4, r5, [r12]\n\t"
      "ldrd   r6, r7, [r12, #" EDGEFOLD_DSP_T4_ROW1
      "]\n\t"
      "ldrd   r8, r9, [r12, #" EDGEFOLD_DSP_T4_ROW2
      "]\n\t"
      "ldrd   r10, r11, [r12, #" EDGEFOLD_DSP_T4_ROW3
      "]\n\t"
      "b      4b\n\t");
}

// SXTB16 of w rotated by 8: GCC does not fold the rotation of __sxtb16's operand.
EDGEFOLD_DSP_INLINE uint32_t OddHalves(uint32_t w) {
  uint32_t r;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(w));
  return r;
}
EDGEFOLD_DSP_INLINE uint32_t EvenHalves(uint32_t w) { return static_cast<uint32_t>(Even(w)); }

// k values of A's rows r0..r0+3 (the last real row repeated past m) into a[slot][4]: per four k
// of the four rows, four words and their eight SXTB16 halves; k up to kp reads as zero.
void PackRows4(const GemmS8Params& p, const int8_t* a, size_t r0, size_t k, size_t kp,
               uint32_t* out) {
  const int8_t* ar[4];
  for (size_t r = 0; r < 4; ++r) ar[r] = a + std::min(r0 + r, p.m - 1) * p.lda;
  const int8_t *a0 = ar[0], *a1 = ar[1], *a2 = ar[2], *a3 = ar[3];
  const size_t groups = k / 4, rest = k % 4;
  if (groups != 0) {  // 19 instructions for 16 values (GCC's loop reloaded the row pointers)
    uint32_t w0, w1, w2, w3, e0, e1;
    size_t n = groups;
    __asm__ volatile(
        "1:\n\t"
        "ldr    %[w0], [%[a0]], #4\n\t"
        "ldr    %[w1], [%[a1]], #4\n\t"
        "ldr    %[w2], [%[a2]], #4\n\t"
        "ldr    %[w3], [%[a3]], #4\n\t"
        "sxtb16 %[e0], %[w0]\n\t"
        "sxtb16 %[e1], %[w1]\n\t"
        "strd   %[e0], %[e1], [%[o]]\n\t"
        "sxtb16 %[e0], %[w2]\n\t"
        "sxtb16 %[e1], %[w3]\n\t"
        "strd   %[e0], %[e1], [%[o], #8]\n\t"
        "sxtb16 %[w0], %[w0], ror #8\n\t"
        "sxtb16 %[w1], %[w1], ror #8\n\t"
        "strd   %[w0], %[w1], [%[o], #16]\n\t"
        "sxtb16 %[w2], %[w2], ror #8\n\t"
        "sxtb16 %[w3], %[w3], ror #8\n\t"
        "strd   %[w2], %[w3], [%[o], #24]\n\t"
        "add    %[o], %[o], #32\n\t"
        "subs   %[n], %[n], #1\n\t"
        "bne    1b\n\t"
        : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [o] "+r"(out), [n] "+r"(n),
          [w0] "=&r"(w0), [w1] "=&r"(w1), [w2] "=&r"(w2), [w3] "=&r"(w3), [e0] "=&r"(e0),
          [e1] "=&r"(e1)
        :
        : "cc", "memory");
  }
  size_t g = groups;
  if (rest != 0) {
    for (size_t r = 0; r < 4; ++r) {
      const uint32_t w = LoadTail(ar[r] + 4 * g, rest);
      out[r] = EvenHalves(w), out[4 + r] = OddHalves(w);
    }
    out += 8, ++g;
  }
  for (; g < kp / 4; ++g, out += 8)
    for (size_t d = 0; d < 8; ++d) out[d] = 0;
}

// The rows after B's whole groups of four: k % 4 rows (the rest zero) into one slot of four words,
// then zero slots up to kp (out: the pair's first word after its whole groups).
void PackPairTail(const GemmS8Params& p, const int8_t* b, size_t c0, size_t c1, size_t k, size_t kp,
                  uint32_t* out) {
  const size_t ldb = p.ldb;
  size_t g = k / 4;
  if (k % 4 != 0) {
    int32_t v0[4], v1[4];
    for (size_t d = 0; d < 4; ++d) {
      const bool in = 4 * g + d < k;
      v0[d] = in ? b[(4 * g + d) * ldb + c0] : 0;
      v1[d] = in ? b[(4 * g + d) * ldb + c1] : 0;
    }
    out[0] = static_cast<uint16_t>(v0[0]) | static_cast<uint32_t>(v0[2]) << 16;
    out[1] = static_cast<uint16_t>(v1[0]) | static_cast<uint32_t>(v1[2]) << 16;
    out[2] = static_cast<uint16_t>(v0[1]) | static_cast<uint32_t>(v0[3]) << 16;
    out[3] = static_cast<uint16_t>(v1[1]) | static_cast<uint32_t>(v1[3]) << 16;
    out += 4, ++g;
  }
  for (; g < kp / 4; ++g, out += 4) out[0] = out[1] = out[2] = out[3] = 0;
}

// k rows of B's columns c0 and c1 (c1 = c0 + 1, or c0 again for an odd last column) into slots of two
// words (column c0, column c1): per four k, rows q and q + 2 give the halfword pair
// (c0, c1) of each, one word [b_q,c0 b_q,c1 b_q+2,c0 b_q+2,c1] whose SXTB16 halves are
// column c0's and column c1's slot (q, q + 2); rows q + 1 and q + 3 give slot (q + 1, q + 3).
void PackColumnPairSlots(const GemmS8Params& p, const int8_t* b, size_t c0, size_t c1, size_t k,
                         size_t kp, uint32_t* out) {
  const size_t ldb = p.ldb, groups = k / 4;
  const int8_t* bq = b + c0;
  if (c1 == c0 + 1) {
    if (groups != 0) {  // 16 instructions for 8 values
      uint32_t x, z, t, u;
      size_t n = groups;
      __asm__ volatile(
          "1:\n\t"
          "ldrh   %[x], [%[b]]\n\t"
          "ldrh   %[z], [%[b], %[ldb]]\n\t"
          "add    %[b], %[b], %[ldb], lsl #1\n\t"
          "ldrh   %[t], [%[b]]\n\t"
          "ldrh   %[u], [%[b], %[ldb]]\n\t"
          "add    %[b], %[b], %[ldb], lsl #1\n\t"
          "orr    %[x], %[x], %[t], lsl #16\n\t"
          "orr    %[z], %[z], %[u], lsl #16\n\t"
          "sxtb16 %[t], %[x]\n\t"
          "sxtb16 %[u], %[x], ror #8\n\t"
          "strd   %[t], %[u], [%[o]], #8\n\t"
          "sxtb16 %[t], %[z]\n\t"
          "sxtb16 %[u], %[z], ror #8\n\t"
          "strd   %[t], %[u], [%[o]], #8\n\t"
          "subs   %[n], %[n], #1\n\t"
          "bne    1b\n\t"
          : [b] "+r"(bq), [o] "+r"(out), [n] "+r"(n), [x] "=&r"(x), [z] "=&r"(z), [t] "=&r"(t),
            [u] "=&r"(u)
          : [ldb] "r"(ldb)
          : "cc", "memory");
    }
  } else {
    for (size_t g = 0; g < groups; ++g, bq += 4 * ldb, out += 4) {
      const uint32_t w = static_cast<uint8_t>(bq[0]) | static_cast<uint8_t>(bq[ldb]) << 8 |
                         static_cast<uint32_t>(static_cast<uint8_t>(bq[2 * ldb])) << 16 |
                         static_cast<uint32_t>(static_cast<uint8_t>(bq[3 * ldb])) << 24;
      out[0] = out[1] = EvenHalves(w);
      out[2] = out[3] = OddHalves(w);
    }
  }
  if (k != kp) PackPairTail(p, b, c0, c1, k, kp, out);
}

// Two column pairs c0, c0 + 1 and c0 + 2, c0 + 3 (all < n) at once, into out0 and out1 as
// PackColumnPairSlots: per four k, a word of the four columns from each row, the pairs' halfwords
// taken apart by PKHBT/PKHTB (24 instructions for 16 values, where two single pairs take 32).
void PackTwoColumnPairs(const GemmS8Params& p, const int8_t* b, size_t c0, size_t k, size_t kp,
                        uint32_t* out0, uint32_t* out1) {
  const size_t ldb = p.ldb, groups = k / 4;
  if (groups != 0) {
    const int8_t* bq = b + c0;
    uint32_t w0, w1, w2, w3, x;
    size_t n = groups;
    __asm__ volatile(
        "1:\n\t"
        "ldr    %[w0], [%[b]]\n\t"
        "ldr    %[w1], [%[b], %[ldb]]\n\t"
        "add    %[b], %[b], %[ldb], lsl #1\n\t"
        "ldr    %[w2], [%[b]]\n\t"
        "ldr    %[w3], [%[b], %[ldb]]\n\t"
        "add    %[b], %[b], %[ldb], lsl #1\n\t"
        "pkhbt  %[x], %[w0], %[w2], lsl #16\n\t"   // rows q, q + 2 of c0, c1
        "pkhtb  %[w0], %[w2], %[w0], asr #16\n\t"  // of c2, c3
        "pkhbt  %[w2], %[w1], %[w3], lsl #16\n\t"  // rows q + 1, q + 3 of c0, c1
        "pkhtb  %[w1], %[w3], %[w1], asr #16\n\t"  // of c2, c3
        "sxtb16 %[w3], %[x]\n\t"
        "sxtb16 %[x], %[x], ror #8\n\t"
        "strd   %[w3], %[x], [%[o0]], #8\n\t"
        "sxtb16 %[w3], %[w2]\n\t"
        "sxtb16 %[w2], %[w2], ror #8\n\t"
        "strd   %[w3], %[w2], [%[o0]], #8\n\t"
        "sxtb16 %[w3], %[w0]\n\t"
        "sxtb16 %[w0], %[w0], ror #8\n\t"
        "strd   %[w3], %[w0], [%[o1]], #8\n\t"
        "sxtb16 %[w3], %[w1]\n\t"
        "sxtb16 %[w1], %[w1], ror #8\n\t"
        "strd   %[w3], %[w1], [%[o1]], #8\n\t"
        "subs   %[n], %[n], #1\n\t"
        "bne    1b\n\t"
        : [b] "+r"(bq), [o0] "+r"(out0), [o1] "+r"(out1), [n] "+r"(n), [w0] "=&r"(w0),
          [w1] "=&r"(w1), [w2] "=&r"(w2), [w3] "=&r"(w3), [x] "=&r"(x)
        : [ldb] "r"(ldb)
        : "cc", "memory");
  }
  if (k != kp) {  // k not a multiple of 8: a partial group or zero slots
    PackPairTail(p, b, c0, c0 + 1, k, kp, out0);
    PackPairTail(p, b, c0 + 2, c0 + 3, k, kp, out1);
  }
}

// Pack B's column pairs [j0, j0 + 2·pairs) (the last one of an odd n is its column twice), k rows
// from row k0, each pair kp words: two pairs at a time while four columns are left.
void PackPanel(const GemmS8Params& p, const int8_t* b, size_t j0, size_t pairs, size_t k0, size_t k,
               size_t kp, uint32_t* panel) {
  size_t q = 0;
  for (; q + 2 <= pairs && j0 + 2 * q + 3 < p.n; q += 2)
    PackTwoColumnPairs(p, b + k0 * p.ldb, j0 + 2 * q, k, kp, panel + q * kp, panel + (q + 1) * kp);
  for (; q < pairs; ++q) {
    const size_t c0 = j0 + 2 * q;
    PackColumnPairSlots(p, b + k0 * p.ldb, c0, std::min(c0 + 1, p.n - 1), k, kp, panel + q * kp);
  }
}

}  // namespace

// k in blocks of at most kGemmS8Tile4MaxK (as even as multiples of 8 allow), columns in blocks of
// as many pairs as the panel holds for one k block (up to kTileCols columns): the panel takes
// what the A block leaves of kGemmS8Tile4PackedWords, so a small k block packs more pairs per
// A block (A is packed again for every column block). One k block: each
// column block's panel is packed once and every row block of four rows (the last real row
// repeated) is packed and run over all its pairs by Tile4x2Pairs. More k blocks: per column block
// and row block, the sums stay in `rows` while each k block packs its panel and A block. The sums
// start at the bias and are requantized a row at a time.
void GemmS8(const GemmS8Params& p, const int8_t* a, const int8_t* b, int8_t* y) {
  // The widened A block (4 rows × kp/2 slots: 2·kcp words), then the panel in the rest.
  uint32_t packed[kGemmS8Tile4PackedWords];
  int32_t rows[4][kTileCols];
  static_assert(sizeof(rows[0]) == kTileRowBytes);
  const ActRequant act = MakeActRequant(p.y_zero_point, p.act_min, p.act_max);
  const size_t k_blocks = std::max<size_t>(1, (p.k + kGemmS8Tile4MaxK - 1) / kGemmS8Tile4MaxK);
  const size_t kc = (p.k + k_blocks - 1) / k_blocks,
               kcp = std::max<size_t>(8, (kc + 7) & ~size_t{7});
  uint32_t *const ablock = packed, *const panel = packed + 2 * kcp;
  const size_t block_cols = std::min(kTileCols, 2 * ((kGemmS8Tile4PackedWords - 2 * kcp) / kcp));
  Tile4Args args{ablock + 2 * kcp, 0, nullptr};
  for (size_t j0 = 0; j0 < p.n; j0 += block_cols) {
    const size_t cols = std::min(block_cols, p.n - j0), pairs = (cols + 1) / 2;
    args.pairs = static_cast<uint32_t>(pairs);
    if (k_blocks == 1) PackPanel(p, b, j0, pairs, 0, p.k, kcp, panel);
    for (size_t i0 = 0; i0 < p.m; i0 += 4) {
      int32_t bias8[8];
      for (size_t r = 0; r < 4; ++r)
        bias8[2 * r] = bias8[2 * r + 1] = p.bias != nullptr ? p.bias[std::min(i0 + r, p.m - 1)] : 0;
      args.bias8 = bias8;
      if (p.k == 0)
        for (size_t r = 0; r < 4; ++r)
          for (size_t j = 0; j < 2 * pairs; ++j) rows[r][j] = bias8[2 * r];
      for (size_t k0 = 0; k0 < p.k; k0 += kc) {
        const size_t k = std::min(kc, p.k - k0);
        if (k_blocks != 1) PackPanel(p, b, j0, pairs, k0, k, kcp, panel);
        PackRows4(p, a + k0, i0, k, kcp, ablock);
        Tile4x2Pairs(ablock, panel, rows[0], &args);
        args.bias8 = nullptr;
      }
      for (size_t r = 0; r < 4 && i0 + r < p.m; ++r) {
        const size_t i = i0 + r;
        RequantRow(rows[r], cols, MakeRowRequant(p.multiplier[i], p.shift[i], act), act,
                   y + i * p.ldy + j0);
      }
    }
  }
}

}  // namespace edgefold::kernels::cortex_m_dsp
#endif
