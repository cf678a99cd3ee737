//===- IntegerTest.cpp - Integer and bit instructions on the emulator -----===//
//
// bfe, bfi, prmt, shf, bfind, clz, brev, popc, mul.hi, mul.wide, mad.hi,
// sad, add.sat, the carry chain (add.cc/addc, sub.cc/subc, mad.lo.cc/madc)
// and shifts past the width, on random operands against the host; the
// logic of predicates (not, and, or, xor on .pred) for every input pair.
//
//===----------------------------------------------------------------------===//

#include "EmuTestUtil.h"

#include <random>

using namespace gptc::emu::test;

namespace {

const char *kBits = R"(
.visible .entry bits(.param .u64 pin, .param .u64 pout)
{
  .reg .b32 %r<40>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v2.u32 {%r2, %r3}, [%rd4];
  and.b32 %r4, %r3, 31;
  shr.u32 %r5, %r3, 8;
  and.b32 %r5, %r5, 31;
  bfe.u32 %r10, %r2, %r4, %r5;
  bfe.s32 %r11, %r2, %r4, %r5;
  bfi.b32 %r12, %r3, %r2, %r4, %r5;
  prmt.b32 %r13, %r2, %r3, %r3;
  shf.r.clamp.b32 %r14, %r2, %r3, %r5;
  shf.l.wrap.b32 %r15, %r2, %r3, %r3;
  bfind.u32 %r16, %r2;
  bfind.s32 %r17, %r2;
  bfind.shiftamt.u32 %r18, %r3;
  mul.hi.s32 %r19, %r2, %r3;
  mul.hi.u32 %r20, %r2, %r3;
  mad.hi.u32 %r21, %r2, %r3, %r2;
  sad.u32 %r22, %r2, %r3, %r4;
  add.sat.s32 %r23, %r2, %r3;
  sub.sat.s32 %r24, %r2, %r3;
  shl.b32 %r25, %r2, %r5;
  shr.s32 %r26, %r2, %r3;
  min.s32 %r27, %r2, %r3;
  max.u32 %r28, %r2, %r3;
  add.cc.u32 %r29, %r2, %r3;
  addc.cc.u32 %r30, %r3, %r2;
  addc.u32 %r31, 0, 0;
  sub.cc.u32 %r32, %r2, %r3;
  subc.u32 %r33, %r3, %r2;
  mad.lo.cc.u32 %r34, %r2, %r3, %r3;
  madc.hi.u32 %r35, %r2, %r3, 0;
  clz.b32 %r36, %r3;
  brev.b32 %r37, %r2;
  popc.b32 %r38, %r2;
  mul.wide.s32 %rd5, %r2, %r3;
  mul.wide.u32 %rd6, %r2, %r3;
  mul.wide.u32 %rd7, %r1, 256;
  add.s64 %rd8, %rd2, %rd7;
  st.global.v4.u32 [%rd8], {%r10, %r11, %r12, %r13};
  st.global.v4.u32 [%rd8+16], {%r14, %r15, %r16, %r17};
  st.global.v4.u32 [%rd8+32], {%r18, %r19, %r20, %r21};
  st.global.v4.u32 [%rd8+48], {%r22, %r23, %r24, %r25};
  st.global.v4.u32 [%rd8+64], {%r26, %r27, %r28, %r29};
  st.global.v4.u32 [%rd8+80], {%r30, %r31, %r32, %r33};
  st.global.v4.u32 [%rd8+96], {%r34, %r35, %r36, %r37};
  st.global.u32 [%rd8+112], %r38;
  st.global.v2.u64 [%rd8+128], {%rd5, %rd6};
  ret;
}
)";

uint32_t bfe(uint32_t a, unsigned pos, unsigned len, bool sgn) {
  uint32_t r = 0;
  unsigned msb = len ? std::min(pos + len - 1, 31u) : 0;
  bool sbit = sgn && len ? (a >> msb) & 1 : false;
  for (unsigned i = 0; i < 32; ++i) {
    bool bit = i < len && pos + i <= 31 ? (a >> (pos + i)) & 1 : sbit;
    r |= (uint32_t)bit << i;
  }
  return r;
}

int bfind(uint64_t v) { return v ? 63 - __builtin_clzll(v) : -1; }

TEST(EmuInteger, BitAndCarryOperations) {
  PtxModule m(ptx(kBits));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  std::mt19937 rng(77);
  std::vector<uint32_t> in(2 * 256);
  for (uint32_t &v : in)
    v = rng() >> (rng() % 32);
  in[0] = 0x7fffffff, in[1] = 1;           // add.sat overflow
  in[2] = 0x80000000u, in[3] = 0x7fffffff; // sub.sat overflow
  in[4] = 0, in[5] = 0;
  DeviceBuffer<uint32_t> din(in), dout(256 * 64);
  ASSERT_EQ(launch(m.function("bits"), 1, 256, {&din.ptr, &dout.ptr}),
            CUDA_SUCCESS);
  std::vector<uint32_t> o = dout.read();
  for (unsigned t = 0; t < 256; ++t) {
    uint32_t a = in[2 * t], b = in[2 * t + 1];
    int32_t sa = (int32_t)a, sb = (int32_t)b;
    unsigned pos = b & 31, len = (b >> 8) & 31;
    const uint32_t *r = &o[64 * t];
    uint32_t bfiWant = a;
    for (unsigned i = 0; i < len && pos + i < 32; ++i)
      bfiWant = (bfiWant & ~(1u << (pos + i))) | (((b >> i) & 1) << (pos + i));
    uint64_t ab = ((uint64_t)b << 32) | a;
    uint32_t perm = 0;
    for (int i = 0; i < 4; ++i) {
      unsigned sel = (b >> (4 * i)) & 15;
      uint32_t byte = (ab >> (8 * (sel & 7))) & 0xff;
      if (sel & 8)
        byte = byte & 0x80 ? 0xff : 0;
      perm |= byte << (8 * i);
    }
    unsigned clampN = std::min(len, 32u);
    int64_t sat = std::min<int64_t>(
        std::max<int64_t>((int64_t)sa + sb, INT32_MIN), INT32_MAX);
    int64_t ssub = std::min<int64_t>(
        std::max<int64_t>((int64_t)sa - sb, INT32_MIN), INT32_MAX);
    uint64_t sum1 = (uint64_t)a + b;
    uint64_t sum2 = (uint64_t)b + a + (sum1 >> 32);
    uint32_t borrow = a < b;
    uint64_t lo = (uint64_t)(uint32_t)(a * b) + b;
    uint32_t want[29] = {bfe(a, pos, len, false),
                         bfe(a, pos, len, true),
                         bfiWant,
                         perm,
                         (uint32_t)(ab >> clampN),
                         (uint32_t)((ab << (b & 31)) >> 32),
                         (uint32_t)bfind(a),
                         (uint32_t)bfind(sa < 0 ? (uint32_t)~a : a),
                         b ? 31u - (uint32_t)bfind(b) : 0xffffffffu,
                         (uint32_t)(((int64_t)sa * sb) >> 32),
                         (uint32_t)(((uint64_t)a * b) >> 32),
                         (uint32_t)(((uint64_t)a * b) >> 32) + a,
                         (a > b ? a - b : b - a) + pos,
                         (uint32_t)sat,
                         (uint32_t)ssub,
                         len >= 32 ? 0 : a << len,
                         (uint32_t)(sa >> std::min(b, 31u)),
                         (uint32_t)std::min(sa, sb),
                         std::max(a, b),
                         (uint32_t)sum1,
                         (uint32_t)sum2,
                         (uint32_t)(sum2 >> 32),
                         a - b,
                         b - a - borrow,
                         (uint32_t)lo,
                         (uint32_t)(((uint64_t)a * b) >> 32) +
                             (uint32_t)(lo >> 32),
                         b ? (uint32_t)__builtin_clz(b) : 32u,
                         0,
                         (uint32_t)__builtin_popcount(a)};
    uint32_t rev = 0;
    for (int i = 0; i < 32; ++i)
      rev |= ((a >> i) & 1) << (31 - i);
    want[27] = rev;
    for (int k = 0; k < 29; ++k)
      ASSERT_EQ(r[k], want[k]) << "thread " << t << " result " << k << " a=0x"
                               << std::hex << a << " b=0x" << b;
    uint64_t wide[2];
    std::memcpy(wide, &r[32], 16);
    EXPECT_EQ((int64_t)wide[0], (int64_t)sa * sb);
    EXPECT_EQ(wide[1], (uint64_t)a * b);
  }
}

/// Thread t: p = bit 0 of t, q = bit 1; each predicate result stored as
/// 0 or 1 by selp (`not.pred` of a true predicate is false: not ~1).
const char *kPredicates = R"(
.visible .entry predicates(.param .u64 pout)
{
  .reg .pred %p<8>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  and.b32 %r3, %r1, 2;
  setp.ne.u32 %p1, %r2, 0;
  setp.ne.u32 %p2, %r3, 0;
  not.pred %p3, %p1;
  and.pred %p4, %p1, %p2;
  or.pred %p5, %p1, %p2;
  xor.pred %p6, %p1, %p2;
  not.pred %p7, %p6;
  selp.u32 %r4, 1, 0, %p3;
  selp.u32 %r5, 1, 0, %p4;
  selp.u32 %r6, 1, 0, %p5;
  selp.u32 %r7, 1, 0, %p6;
  selp.u32 %r8, 1, 0, %p7;
  mov.u32 %r9, 7;
  @%p7 mov.u32 %r9, 9;
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r4, %r5, %r6, %r7};
  st.global.v2.u32 [%rd3+16], {%r8, %r9};
  ret;
}
)";

TEST(EmuInteger, PredicateLogic) {
  PtxModule m(ptx(kPredicates));
  ASSERT_EQ(m.result, CUDA_SUCCESS);
  DeviceBuffer<uint32_t> dout(4 * 8);
  ASSERT_EQ(launch(m.function("predicates"), 1, 4, {&dout.ptr}), CUDA_SUCCESS);
  std::vector<uint32_t> o = dout.read();
  for (unsigned t = 0; t < 4; ++t) {
    bool p = t & 1, q = t & 2;
    const uint32_t *r = &o[8 * t];
    EXPECT_EQ(r[0], !p) << "not.pred, thread " << t;
    EXPECT_EQ(r[1], p && q) << "and.pred, thread " << t;
    EXPECT_EQ(r[2], p || q) << "or.pred, thread " << t;
    EXPECT_EQ(r[3], p != q) << "xor.pred, thread " << t;
    EXPECT_EQ(r[4], p == q) << "not.pred of xor.pred, thread " << t;
    EXPECT_EQ(r[5], p == q ? 9u : 7u) << "guard by a negated predicate";
  }
}

} // namespace
