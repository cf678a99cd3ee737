//===- ExecMatrix.cpp - Tensor-core and asynchronous-copy instructions ----===//
//
// mma.sync (m16n8k16, bf16 or f16 inputs, f32 accumulators), ldmatrix and
// cp.async with its commit and wait groups, with the thread-to-fragment
// maps of the PTX ISA ("Matrix Fragments for mma.m16n8k16 with floating
// point type", "Warp-level matrix load instruction: ldmatrix").
//
// `.aligned` instructions need every thread of the warp to execute the
// same instruction together: a diverged or partial warp at one is an
// error (CUDA_ERROR_ILLEGAL_INSTRUCTION), as compute-sanitizer's synccheck
// reports it. An mma's products of two 16-bit floats are exact in f32;
// the emulator adds the 16 products of a dot product and the accumulator
// exactly (in double, whose 53 bits hold every such sum of bf16 products
// whose exponents lie within 29 of each other) and rounds once to f32,
// nearest-even. A tensor core rounds (truncates) its partial sums
// differently, so kernels must not depend on the last bits.
//
// A cp.async copy completes when its thread waits for its group
// (cp.async.wait_group N: every committed group but the N most recent;
// cp.async.wait_all: every copy), at the latest when the thread exits: its
// source is read then, as late as a GPU may. With racecheck, touching the
// destination bytes of a copy that has not completed is a hazard.
//
//===----------------------------------------------------------------------===//

#include "emu/ExecOps.h"

#include <cuda.h>

#include <algorithm>
#include <cstring>

namespace gptc::emu {

namespace {

/// Faults unless every thread of the warp executes `in` (an .aligned
/// instruction) together; false after recording the fault.
bool wholeWarp(WarpState &w, const Instr &in, uint32_t mask, const char *what) {
  if (mask == ~0u)
    return true;
  uint32_t missing = ~mask;
  bool partial = w.block->nthreads - w.firstThread < 32;
  std::string lanes = partial ? "partial warp" : "diverged warp";
  w.fault(CUDA_ERROR_ILLEGAL_INSTRUCTION, in, __builtin_ctz(mask),
          std::string(what) +
              ".aligned needs every thread of the warp to execute it "
              "together (" +
              lanes + ": lane " + std::to_string(__builtin_ctz(missing)) +
              " is not here)",
          0, false);
  return false;
}

/// The value of element `i` (0 low, 1 high) of a .b32 register holding
/// two 16-bit floats.
float half(uint64_t reg, unsigned i, bool bf16) {
  uint16_t bits = (uint16_t)(reg >> (16 * i));
  return bf16 ? bf16ToFloat(bits) : halfToFloat(bits);
}

/// mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32
/// {d0..d3}, {a0..a3}, {b0,b1}, {c0..c3}; in.op: 1 for bf16.
void mmaOp(WarpState &w, const Instr &in, uint32_t mask) {
  if (!wholeWarp(w, in, mask, "mma.sync"))
    return;
  const bool bf16 = in.op;
  float a[16][16], b[16][8];
  for (unsigned lane = 0; lane < 32; ++lane) {
    unsigned group = lane >> 2, inGroup = lane & 3;
    for (unsigned i = 0; i < 8; ++i) {
      uint64_t reg = w.r(in.ops[1].vec[i / 2], lane);
      unsigned row = group + ((i & 2) ? 8 : 0);
      unsigned col = inGroup * 2 + (i & 1) + (i >= 4 ? 8 : 0);
      a[row][col] = half(reg, i & 1, bf16);
    }
    for (unsigned i = 0; i < 4; ++i) {
      uint64_t reg = w.r(in.ops[2].vec[i / 2], lane);
      unsigned row = inGroup * 2 + (i & 1) + (i >= 2 ? 8 : 0);
      b[row][group] = half(reg, i & 1, bf16);
    }
  }
  // Every lane's accumulators are read before any result is written (d
  // may name c's registers).
  float d[32][4];
  for (unsigned lane = 0; lane < 32; ++lane) {
    unsigned group = lane >> 2, inGroup = lane & 3;
    for (unsigned i = 0; i < 4; ++i) {
      unsigned row = group + (i >= 2 ? 8 : 0), col = inGroup * 2 + (i & 1);
      double sum = fromBits<float>(w.r(in.ops[3].vec[i], lane));
      for (unsigned k = 0; k < 16; ++k)
        sum += (double)a[row][k] * (double)b[k][col];
      d[lane][i] = (float)sum;
    }
  }
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned i = 0; i < 4; ++i)
      if (in.ops[0].vec[i] >= 0)
        w.r(in.ops[0].vec[i], lane) = toBits<float>(d[lane][i]);
}

/// The address operand of `in` for `lane`.
uint64_t addressOf(WarpState &w, const Operand &a, unsigned lane) {
  return (a.reg >= 0 ? w.r(a.reg, lane) : 0) + (uint64_t)a.imm;
}

/// ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16 d, [a]:
/// lanes 8m..8m+7 give the row addresses of matrix m (16 bytes each);
/// lane t receives in d_m elements (t / 4, 2 (t % 4)) and (t / 4,
/// 2 (t % 4) + 1) of matrix m, or with .trans (2 (t % 4), t / 4) and
/// (2 (t % 4) + 1, t / 4). in.mode: the matrices; in.op: 1 for .trans.
void ldmatrixOp(WarpState &w, const Instr &in, uint32_t mask) {
  if (!wholeWarp(w, in, mask, "ldmatrix.sync"))
    return;
  const unsigned matrices = in.mode;
  if (w.counters && in.space == Space::Shared) {
    // Each matrix's 8 rows of 16 bytes are one phase (a quarter-warp).
    uint64_t addr[32];
    uint32_t rowLanes = (uint32_t)((1ull << (8 * matrices)) - 1);
    FOR_LANES(rowLanes, l) addr[l] = addressOf(w, in.ops[1], l);
    countSharedRequest(w, in, rowLanes, addr, 16);
  }
  uint16_t rows[4][8][8];
  for (unsigned m = 0; m < matrices; ++m)
    for (unsigned r = 0; r < 8; ++r) {
      unsigned lane = 8 * m + r;
      const uint8_t *p =
          resolveAccess(w, in, lane, addressOf(w, in.ops[1], lane), in.space,
                        16, /*write=*/false, /*kernelParam=*/false);
      if (!p)
        return;
      std::memcpy(rows[m][r], p, 16);
    }
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned m = 0; m < matrices; ++m) {
      unsigned r = lane / 4, c = 2 * (lane % 4);
      uint16_t lo = in.op ? rows[m][c][r] : rows[m][r][c];
      uint16_t hi = in.op ? rows[m][c + 1][r] : rows[m][r][c + 1];
      if (in.ops[0].vec[m] >= 0)
        w.r(in.ops[0].vec[m], lane) = (uint64_t)lo | ((uint64_t)hi << 16);
    }
}

/// cp.async.{ca,cg}.shared.global [dst], [src], size{, src-size}: checks
/// both ranges now and queues the copy in the lane's open group.
void cpAsyncOp(WarpState &w, const Instr &in, uint32_t mask) {
  const unsigned size = (unsigned)in.ops[2].imm;
  if (w.counters && w.launch->profile) {
    uint64_t src[32] = {};
    FOR_LANES(mask, l) src[l] = addressOf(w, in.ops[1], l);
    countGlobalRequest(w, in, mask, src, size, /*write=*/false);
  }
  FOR_LANES(mask, l) {
    uint64_t dst = addressOf(w, in.ops[0], l), src = addressOf(w, in.ops[1], l);
    unsigned srcSize = size;
    if (in.nops > 3)
      srcSize = (unsigned)std::min<uint64_t>(w.get(in.ops[3], l), size);
    if (!resolveAccess(w, in, l, dst, Space::Shared, size, /*write=*/true,
                       false))
      return;
    if (srcSize && !resolveAccess(w, in, l, src, Space::Global, srcSize,
                                  /*write=*/false, false))
      return;
    AsyncCopy copy{l, w.asyncGroups[l], dst, src, size, srcSize};
    w.asyncCopies.push_back(copy);
    if (w.launch->racecheck)
      for (unsigned i = 0; i < size; ++i)
        ++w.block->asyncPending[dst + i];
  }
}

/// cp.async.commit_group: the lane's open group is committed.
void cpAsyncCommitOp(WarpState &w, const Instr &, uint32_t mask) {
  FOR_LANES(mask, l)++ w.asyncGroups[l];
}

/// cp.async.wait_group N (in.op 0) / cp.async.wait_all (in.op 1).
void cpAsyncWaitOp(WarpState &w, const Instr &in, uint32_t mask) {
  FOR_LANES(mask, l) {
    uint32_t keep = in.op ? 0 : (uint32_t)in.ops[0].imm;
    uint32_t committed = w.asyncGroups[l];
    // Groups below `done` complete; wait_all completes the open one too.
    uint64_t done = in.op              ? UINT64_MAX
                    : committed > keep ? (uint64_t)(committed - keep)
                                       : 0;
    completeAsyncCopies(w, 1u << l, done);
  }
}

} // namespace

unsigned laneAccessBytes(const Instr &in) {
  if (in.exec == cpAsyncOp)
    return (unsigned)in.ops[2].imm;
  return tySize(in.ty) * in.vec;
}

void completeAsyncCopies(WarpState &w, uint32_t lanes, uint64_t groupsBelow) {
  auto done = [&](const AsyncCopy &c) {
    return ((lanes >> c.lane) & 1) && c.group < groupsBelow;
  };
  DeviceMemory &mem = *w.launch->mem;
  for (const AsyncCopy &c : w.asyncCopies) {
    if (!done(c))
      continue;
    uint8_t *dst = w.block->shared.data() + c.dst;
    uint64_t base, bytes;
    uint8_t *host;
    if (c.srcSize && mem.lookup(c.src, base, bytes, host))
      std::memcpy(dst, host + (c.src - base), c.srcSize);
    std::memset(dst + c.srcSize, 0, c.size - c.srcSize);
    if (w.launch->racecheck)
      for (unsigned i = 0; i < c.size; ++i)
        --w.block->asyncPending[c.dst + i];
  }
  w.asyncCopies.erase(
      std::remove_if(w.asyncCopies.begin(), w.asyncCopies.end(), done),
      w.asyncCopies.end());
}

void registerMatrixOps(SelectorMap &s) {
  s["mma"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    bool shape = c.take(".m16n8k16"), row = c.take(".row"),
         col = c.take(".col");
    bool vecs = in.nops == 4 && in.ops[0].kind == Operand::Vec &&
                in.ops[0].nvec == 4 && in.ops[1].kind == Operand::Vec &&
                in.ops[1].nvec == 4 && in.ops[2].kind == Operand::Vec &&
                in.ops[2].nvec == 2 && in.ops[3].kind == Operand::Vec &&
                in.ops[3].nvec == 4;
    bool types = c.tys.size() == 4 && c.tys[0] == Ty::F32 &&
                 c.tys[3] == Ty::F32 && c.tys[1] == c.tys[2] &&
                 (c.tys[1] == Ty::BF16 || c.tys[1] == Ty::F16);
    if (!shape || !row || !col || !vecs || !types) {
      why = "expected mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}."
            "{bf16,f16}.f32 {d0..d3}, {a0..a3}, {b0,b1}, {c0..c3}";
      return false;
    }
    for (unsigned i = 1; i < 4; ++i)
      for (unsigned j = 0; j < in.ops[i].nvec; ++j)
        if (in.ops[i].vec[j] < 0) {
          why = "mma operands must be registers";
          return false;
        }
    in.op = c.tys[1] == Ty::BF16;
    in.exec = mmaOp;
    in.ctl = Ctl::WarpSync;
    return true;
  };
  s["ldmatrix"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    const char *counts[] = {".x1", ".x2", ".x4"};
    int count = c.takeOneOf(counts, 3);
    bool shape = c.take(".m8n8");
    in.op = c.take(".trans");
    unsigned n = count == 0 ? 1 : count == 1 ? 2 : 4;
    if (count < 0 || !shape || in.ty != Ty::B16 || in.nops != 2 ||
        in.ops[0].kind != Operand::Vec || in.ops[0].nvec != n ||
        in.ops[1].kind != Operand::Addr ||
        (in.space != Space::Shared && in.space != Space::Generic)) {
      why = "expected ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared."
            "b16 {d..}, [a] with as many destinations as matrices";
      return false;
    }
    in.mode = (uint8_t)n;
    in.exec = ldmatrixOp;
    in.ctl = Ctl::WarpSync;
    return true;
  };
  s["cp"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    if (!c.take(".async")) {
      why = "only cp.async is implemented by the emulator";
      return false;
    }
    if (c.take(".commit_group")) {
      in.exec = cpAsyncCommitOp;
      return in.nops == 0 || (why = "cp.async.commit_group takes no "
                                    "operand",
                              false);
    }
    bool all = c.take(".wait_all");
    if (all || c.take(".wait_group")) {
      if (all ? in.nops != 0 : in.nops != 1 || in.ops[0].kind != Operand::Imm) {
        why = "expected cp.async.wait_group N or cp.async.wait_all";
        return false;
      }
      in.op = all;
      in.exec = cpAsyncWaitOp;
      return true;
    }
    // cp.async.{ca,cg}.shared.global: the state-space words set in.space
    // in turn (.global last); the cache operators are no-op words.
    if ((in.nops != 3 && in.nops != 4) || in.ops[0].kind != Operand::Addr ||
        in.ops[1].kind != Operand::Addr || in.ops[2].kind != Operand::Imm ||
        (in.ops[2].imm != 4 && in.ops[2].imm != 8 && in.ops[2].imm != 16)) {
      why = "expected cp.async.{ca,cg}.shared.global [dst], [src], "
            "{4,8,16}{, src-size}";
      return false;
    }
    in.exec = cpAsyncOp;
    return true;
  };
}

} // namespace gptc::emu
