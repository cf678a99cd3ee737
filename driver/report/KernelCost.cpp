//===- KernelCost.cpp - Static FLOPs and bytes of a GPU kernel ------------===//
//
// See KernelCost.h. The kernels are the outlined gpu.func ops of the module
// at Stage::LLVM: scf, arith, math and memref ops before NVVM lowering.
//
//===----------------------------------------------------------------------===//

#include "driver/report/KernelCost.h"

#include "driver/report/CostModel.h"

#include "frontend/Parameters.h"

#include "passes/Lowering/KernelEmitter.h"

#include "dialects/GPT/GPTDialect.h"
#include "dialects/GPTGPU/GPTGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace gptc {

namespace {

/// Elements of a scalar (1) or vector type.
double elements(Type t) {
  if (auto v = dyn_cast<VectorType>(t))
    return static_cast<double>(v.getNumElements());
  return 1.0;
}

bool isFloatLike(Type t) { return isa<FloatType>(getElementTypeOrSelf(t)); }

/// FLOPs of one execution of `op` (see KernelCost.h).
double flopsOf(Operation &op) {
  if (op.getNumResults() != 1 || !isFloatLike(op.getResult(0).getType()))
    return 0;
  Type t = op.getResult(0).getType();
  if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
          arith::RemFOp, arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
          arith::MinNumFOp>(op))
    return elements(t);
  if (isa<math::FmaOp>(op))
    return 2 * elements(t);
  if (isa<math::MathDialect>(op.getDialect()))
    return elements(t);
  return 0;
}

/// Tensor-core FLOPs of one thread's share of a warp's mma (m16n8k16).
double tensorFlopsOf(Operation &op) {
  if (!isa<NVVM::MmaOp, gptgpu::WarpMmaOp>(op))
    return 0;
  return 2.0 * 16 * 8 * 16 / 32;
}

/// Where a memref lives on the device.
enum class Space { Global, Shared, Local, None };

/// Global memory: no memory space, #gpu.address_space<global> or 0/1;
/// shared: workgroup or 3; local: private or 5, or a view of a
/// memref.alloca.
Space spaceOf(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type)
    return Space::None;
  for (Value v = memref; Operation *def = v.getDefiningOp();) {
    if (isa<memref::AllocaOp>(def))
      return Space::Local;
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    v = view.getViewSource();
  }
  if (Attribute space = type.getMemorySpace()) {
    if (auto gpuSpace = dyn_cast<gpu::AddressSpaceAttr>(space))
      switch (gpuSpace.getValue()) {
      case gpu::AddressSpace::Global:
        return Space::Global;
      case gpu::AddressSpace::Workgroup:
        return Space::Shared;
      case gpu::AddressSpace::Private:
        return Space::Local;
      }
    if (auto number = dyn_cast<IntegerAttr>(space))
      return number.getInt() == 3   ? Space::Shared
             : number.getInt() == 5 ? Space::Local
             : number.getInt() > 1  ? Space::None
                                    : Space::Global;
  }
  return Space::Global;
}

double elementBytes(Type memrefType) {
  Type e = cast<MemRefType>(memrefType).getElementType();
  if (e.isIndex())
    return 8;
  return e.isIntOrFloat() ? (e.getIntOrFloatBitWidth() + 7) / 8 : 0;
}

/// The memref `op` loads or stores, the value type it moves and how many
/// times (atomics: read and write), or a null memref.
std::tuple<Value, Type, double> accessOf(Operation &op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return {load.getMemref(), load.getType(), 1};
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return {store.getMemref(), store.getValue().getType(), 1};
  if (auto load = dyn_cast<vector::LoadOp>(op))
    return {load.getBase(), load.getType(), 1};
  if (auto store = dyn_cast<vector::StoreOp>(op))
    return {store.getBase(), store.getValueToStore().getType(), 1};
  if (auto rmw = dyn_cast<memref::AtomicRMWOp>(op))
    return {rmw.getMemref(), rmw.getType(), 2};
  // ldmatrix: each lane receives a 32-bit register per 8x8 matrix.
  if (auto ld = dyn_cast<nvgpu::LdMatrixOp>(op))
    return {ld.getSrcMemref(), ld.getRes().getType(), 1};
  if (auto rmw = dyn_cast<memref::GenericAtomicRMWOp>(op))
    return {rmw.getMemref(), rmw.getResult().getType(), 2};
  return {Value(), Type(), 0};
}

/// PTX instructions of an integer division or remainder: by a constant
/// power of two a shift or a mask; by another constant a multiply-high and
/// a shift (a remainder: and a multiply and a subtraction); by a value
/// known only at run time (a merged kernel's extent, passed as an
/// argument) NVPTX's sequence: a test whether both fit in 32 bits, a
/// branch, the 32- or 64-bit div and the conversions around it (8; a
/// remainder: and a multiply and a subtraction).
double integerDivisionInstructions(Operation &op) {
  const bool remainder = isa<arith::RemUIOp, arith::RemSIOp>(op);
  if (std::optional<int64_t> d = getConstantIntValue(op.getOperand(1))) {
    if (*d > 0 && llvm::isPowerOf2_64(static_cast<uint64_t>(*d)))
      return 1;
    return remainder ? 4 : 2;
  }
  return remainder ? 10 : 8;
}

/// PTX instructions of one execution of `op`, as NVPTX emits them at -O3
/// (the emulated device counts the real ones; cost-model-counts.test
/// compares them on tiny specs): an access is its load or store and an
/// address add (LLVM strength-reduces the index arithmetic of loops; the
/// index ops that remain count on their own); an arith or math op one per
/// element, a division, exp, log, tanh or power four (a short sequence),
/// exp2 and log2 one (libdevice's ex2.approx and lg2.approx);
/// constants, views and casts between index types fold away, and so do
/// the ops that only name registers: a scalar taken out of a vector or of
/// an mma's result struct, a vector built of scalars, a bitcast (PTX
/// holds a short vector in scalar registers: ldmatrix and mma.sync read
/// and write them directly); a loop costs its increment, compare and branch
/// per iteration and two to enter (count() adds them and the accesses'),
/// an scf.if its compare and branch.
double instructionsOf(Operation &op) {
  if (op.hasTrait<OpTrait::ConstantLike>() ||
      isa<ViewLikeOpInterface, memref::AllocaOp, arith::IndexCastOp,
          arith::IndexCastUIOp, scf::YieldOp, gpu::ReturnOp>(op))
    return 0;
  if (isa<vector::ExtractOp, vector::FromElementsOp, vector::BitCastOp,
          LLVM::ExtractValueOp, LLVM::InsertValueOp>(op))
    return 0;
  if (isa<arith::DivUIOp, arith::DivSIOp, arith::RemUIOp, arith::RemSIOp,
          arith::FloorDivSIOp, arith::CeilDivSIOp, arith::CeilDivUIOp>(op))
    return integerDivisionInstructions(op);
  if (isa<scf::IfOp>(op))
    return 2;
  if (op.getNumResults() == 1) {
    Type t = op.getResult(0).getType();
    double n = elements(t);
    if (isa<arith::DivFOp, math::ExpOp, math::LogOp, math::TanhOp, math::PowFOp,
            math::ErfOp>(op))
      return 4 * n;
    return n;
  }
  return 1;
}

/// Counts one kernel body; `arguments` as for kernelBodyCost.
struct BodyCounter {
  gpu::GPUFuncOp func;
  ArrayRef<std::optional<int64_t>> arguments;
  std::optional<int64_t> windowKeys;
  BodyCost cost;
  /// Iterations of the innermost loop being counted (1 outside loops).
  double loopTrips = 1.0;

  /// A constant, in the kernel or as a constant argument of the launch.
  std::optional<int64_t> constant(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v);
        arg && arg.getOwner() == &func.getBody().front() &&
        arg.getArgNumber() < arguments.size())
      return arguments[arg.getArgNumber()];
    return getConstantIntValue(v);
  }

  /// A constant, or the constant operand of a min, or (x / u) * u for x
  /// with such a bound (an upper bound).
  std::optional<int64_t> constantBound(Value v) {
    if (std::optional<int64_t> c = constant(v))
      return c;
    Operation *def = v.getDefiningOp();
    if (auto mul = dyn_cast_or_null<arith::MulIOp>(def)) {
      Operation *div = mul.getLhs().getDefiningOp();
      std::optional<int64_t> u = constant(mul.getRhs());
      if (div &&
          isa<arith::DivSIOp, arith::DivUIOp, arith::FloorDivSIOp>(div) && u &&
          *u > 0 && constant(div->getOperand(1)) == u)
        if (std::optional<int64_t> x = constantBound(div->getOperand(0)))
          return *x / *u * *u;
    }
    if (def && isa<arith::MinSIOp, arith::MinUIOp>(def)) {
      std::optional<int64_t> a = constantBound(def->getOperand(0)),
                             b = constantBound(def->getOperand(1));
      if (a && b)
        return std::min(*a, *b);
      return a ? a : b;
    }
    return std::nullopt;
  }

  /// The loads of the global buffer `memref` views when `op` reads it and
  /// its shape is static, else null (a store or an atomic counts every time).
  BufferReads *bufferReadsOf(Operation &op, Value memref) {
    if (!isa<memref::LoadOp, vector::LoadOp, nvgpu::LdMatrixOp>(op))
      return nullptr;
    // A view made in the kernel may move with a loop: the buffer is what
    // it views.
    while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
      memref = view.getViewSource();
    auto type = dyn_cast<MemRefType>(memref.getType());
    if (!type || !type.hasStaticShape())
      return nullptr;
    auto [it, fresh] = bufferIndex.try_emplace(memref, cost.buffers.size());
    if (fresh)
      cost.buffers.push_back(
          {0, std::max(32.0, static_cast<double>(type.getNumElements()) *
                                 elementBytes(type))});
    return &cost.buffers[it->second];
  }
  llvm::DenseMap<Value, size_t> bufferIndex;

  void count(Block &block, double times);
};

/// n when `v` is `base + n` (a constant n), else nullopt.
std::optional<int64_t> offsetFrom(BodyCounter &c, Value v, Value base) {
  auto add = v.getDefiningOp<arith::AddIOp>();
  if (!add)
    return std::nullopt;
  if (add.getLhs() == base)
    return c.constant(add.getRhs());
  if (add.getRhs() == base)
    return c.constant(add.getLhs());
  return std::nullopt;
}

/// The iterations of a loop over the tiles a mask selects at run time
/// (kMaskedSpanAttr), or nullopt (see kernelBodyCost in KernelCost.h).
std::optional<int64_t> maskedSpanIterations(BodyCounter &c, scf::ForOp loop,
                                            int64_t step) {
  auto span =
      loop->getAttrOfType<DenseI64ArrayAttr>(gptc::lowering::kMaskedSpanAttr);
  if (!span || span.size() != 3)
    return std::nullopt;
  const int64_t T = span[0], rows = span[1];
  int64_t covered = span[2] ? (T + rows) / 2 : T;
  if (c.windowKeys)
    covered = std::min(covered, *c.windowKeys + rows);
  c.cost.approximate = true;
  return (covered + step - 1) / step;
}

/// The remainder of an unrolled loop, from (x / u) * u to x, runs x mod u
/// times: with x at most a constant X, X mod u (the remainder of the
/// longest count; 0 when u divides it), else at most u - 1; nullopt for
/// another loop.
std::optional<int64_t> remainderIterations(BodyCounter &c, scf::ForOp loop) {
  auto mul = loop.getLowerBound().getDefiningOp<arith::MulIOp>();
  if (!mul)
    return std::nullopt;
  for (auto [quotient, factor] : {std::pair{mul.getLhs(), mul.getRhs()},
                                  std::pair{mul.getRhs(), mul.getLhs()}}) {
    Operation *div = quotient.getDefiningOp();
    std::optional<int64_t> u = c.constant(factor);
    if (!div ||
        !isa<arith::DivSIOp, arith::DivUIOp, arith::FloorDivSIOp>(div) || !u ||
        *u <= 0 || div->getOperand(0) != loop.getUpperBound() ||
        c.constant(div->getOperand(1)) != u)
      continue;
    std::optional<int64_t> x = c.constantBound(loop.getUpperBound());
    return x ? *x % *u : *u - 1;
  }
  return std::nullopt;
}

/// Iterations of `loop`, or nullopt (see KernelCost.h). A loop over a
/// chunk, from x to min(x + n, end), runs at most n times.
std::optional<int64_t> iterations(BodyCounter &c, scf::ForOp loop) {
  if (std::optional<int64_t> rest = remainderIterations(c, loop))
    return rest;
  std::optional<int64_t> lb = c.constant(loop.getLowerBound()),
                         ub = c.constantBound(loop.getUpperBound()),
                         step = c.constant(loop.getStep());
  if (!step || *step <= 0)
    return std::nullopt;
  Value upper = loop.getUpperBound();
  if (!lb && upper.getDefiningOp() &&
      isa<arith::MinSIOp, arith::MinUIOp>(upper.getDefiningOp()))
    for (Value operand : upper.getDefiningOp()->getOperands())
      if (std::optional<int64_t> n =
              offsetFrom(c, operand, loop.getLowerBound()))
        return *n <= 0 ? 0 : (*n + *step - 1) / *step;
  if (!ub)
    return maskedSpanIterations(c, loop, *step);
  int64_t from = lb.value_or(0);
  return *ub <= from ? 0 : (*ub - from + *step - 1) / *step;
}

/// The mean iterations of a loop over a segment of sorted positions
/// (kSegmentsAttr): positions / segments, exactly, over the work items.
std::optional<double> meanSegmentIterations(scf::ForOp loop) {
  auto segments =
      loop->getAttrOfType<DenseI64ArrayAttr>(gptc::lowering::kSegmentsAttr);
  if (!segments || segments.size() != 2 || segments[1] <= 0)
    return std::nullopt;
  return static_cast<double>(segments[0]) / static_cast<double>(segments[1]);
}

void BodyCounter::count(Block &block, double times) {
  for (Operation &op : block) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      std::optional<double> n = meanSegmentIterations(loop);
      if (!n)
        if (std::optional<int64_t> i = iterations(*this, loop))
          n = static_cast<double>(*i);
      if (!n)
        cost.approximate = true;
      double trips = n.value_or(1.0);
      cost.instructions += times * (2 + 3 * trips);
      double outerTrips = loopTrips;
      loopTrips = trips;
      count(*loop.getBody(), times * trips);
      loopTrips = outerTrips;
      continue;
    }
    // A tile mask evaluated on the edge tiles only: the else region runs
    // on kEdgeTilesAttr of the loop's iterations, the then region on the
    // rest.
    if (auto branch = dyn_cast<scf::IfOp>(op);
        branch && branch->hasAttr(gptc::lowering::kEdgeTilesAttr) &&
        !branch.getElseRegion().empty()) {
      auto edges =
          branch->getAttrOfType<IntegerAttr>(gptc::lowering::kEdgeTilesAttr);
      double share =
          std::min(1.0, static_cast<double>(edges.getInt()) / loopTrips);
      cost.instructions += times * instructionsOf(op);
      count(branch.getThenRegion().front(), times * (1.0 - share));
      count(branch.getElseRegion().front(), times * share);
      continue;
    }
    // One lane in 32 stores a warp's combined reduction.
    if (auto leader = dyn_cast<scf::IfOp>(op);
        leader && leader->hasAttr(gptc::lowering::kWarpLeaderAttr)) {
      cost.instructions += times * instructionsOf(op);
      count(leader.getThenRegion().front(), times / 32.0);
      continue;
    }
    if (isa<scf::WhileOp>(op))
      cost.approximate = true;
    if (auto alloca = dyn_cast<memref::AllocaOp>(op);
        alloca && alloca.getType().hasStaticShape())
      cost.privateBytes +=
          static_cast<double>(alloca.getType().getNumElements()) *
          elementBytes(alloca.getType());
    cost.flops += times * flopsOf(op);
    cost.tensorFlops += times * tensorFlopsOf(op);
    if (auto [memref, value, moves] = accessOf(op); memref) {
      // The access's bytes in its memory space; its load or store and an
      // address add (instructionsOf).
      double bytes =
          times * moves * elementBytes(memref.getType()) * elements(value);
      switch (spaceOf(memref)) {
      case Space::Global:
        if (BufferReads *reads = bufferReadsOf(op, memref))
          reads->bytes += bytes;
        else
          cost.bytes += bytes;
        break;
      case Space::Shared:
        cost.sharedBytes += bytes;
        break;
      case Space::Local:
        cost.localBytes += bytes;
        break;
      case Space::None:
        break;
      }
      cost.instructions += times * (moves + 1);
    } else {
      cost.instructions += times * instructionsOf(op);
    }
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        count(inner, times);
  }
}

/// The ids an index is computed from (with arith ops): their one
/// dimension (-1 for none or several, or another operation) and whether
/// they are thread ids only (an index within the block).
struct IdsOf {
  int dim = -1;
  bool threadOnly = true;
};

IdsOf idsOf(Value v) {
  IdsOf ids;
  llvm::SmallSet<int, 3> dims;
  SmallVector<Value> work = {v};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Value next = work.pop_back_val();
    Operation *def = next.getDefiningOp();
    // A kernel argument (a block size outlined with the launch) is the
    // same for every thread.
    if (auto arg = dyn_cast<BlockArgument>(next);
        arg && isa<gpu::GPUFuncOp>(arg.getOwner()->getParentOp()))
      continue;
    if (!def)
      return {};
    if (!seen.insert(def).second)
      continue;
    if (auto id = dyn_cast<gpu::ThreadIdOp>(def)) {
      dims.insert(static_cast<int>(id.getDimension()));
    } else if (auto id = dyn_cast<gpu::BlockIdOp>(def)) {
      dims.insert(static_cast<int>(id.getDimension()));
      ids.threadOnly = false;
    } else if (auto id = dyn_cast<gpu::GlobalIdOp>(def)) {
      dims.insert(static_cast<int>(id.getDimension()));
      ids.threadOnly = false;
    } else if (isa<gpu::BlockDimOp, gpu::GridDimOp>(def) ||
               isa<arith::ArithDialect>(def->getDialect())) {
      llvm::append_range(work, def->getOperands());
    } else {
      return {};
    }
  }
  if (dims.size() == 1)
    ids.dim = *dims.begin();
  return ids;
}

/// The caps of a guard per dimension: on the index in the grid (block and
/// thread ids), and on the index in the block (thread ids only).
struct GuardCaps {
  std::array<int64_t, 3> grid, block;
};

/// Caps `caps` with the conjuncts of `cond`; false if one has another
/// form.
bool applyGuard(Value cond,
                llvm::function_ref<std::optional<int64_t>(Value)> constant,
                GuardCaps &caps) {
  Operation *def = cond.getDefiningOp();
  if (auto conj = dyn_cast_or_null<arith::AndIOp>(def))
    return applyGuard(conj.getLhs(), constant, caps) &&
           applyGuard(conj.getRhs(), constant, caps);
  auto cmp = dyn_cast_or_null<arith::CmpIOp>(def);
  if (!cmp)
    return false;
  Value index;
  std::optional<int64_t> bound;
  switch (cmp.getPredicate()) {
  case arith::CmpIPredicate::slt:
  case arith::CmpIPredicate::ult:
    index = cmp.getLhs();
    bound = constant(cmp.getRhs());
    break;
  case arith::CmpIPredicate::sgt:
  case arith::CmpIPredicate::ugt:
    index = cmp.getRhs();
    bound = constant(cmp.getLhs());
    break;
  default:
    return false;
  }
  if (!bound)
    return false;
  IdsOf ids = idsOf(index);
  if (ids.dim < 0)
    return false;
  int64_t &cap = ids.threadOnly ? caps.block[ids.dim] : caps.grid[ids.dim];
  cap = std::min(cap, std::max<int64_t>(*bound, 0));
  return true;
}

} // namespace

double launchDramBytes(const BodyCost &body, double items) {
  double launch = body.bytes * items;
  for (const BufferReads &reads : body.buffers)
    launch += reads.bytes * items;
  double dram = body.bytes * items;
  for (const BufferReads &reads : body.buffers)
    dram += cost::dramReadBytes(reads.bytes * items, reads.footprint, launch);
  return dram;
}

BodyCost kernelBodyCost(gpu::GPUFuncOp func,
                        ArrayRef<std::optional<int64_t>> arguments,
                        std::optional<int64_t> windowKeys) {
  BodyCounter counter{func, arguments, windowKeys, {}};
  // The kernel's parameters are loaded once (ld.param), and it returns.
  counter.cost.instructions = func.getNumArguments() + 1;
  for (Block &block : func.getBody())
    counter.count(block, 1.0);
  return counter.cost;
}

std::optional<int64_t>
workItems(gpu::GPUFuncOp func, ArrayRef<std::optional<int64_t>> arguments,
          const std::array<std::optional<int64_t>, 3> &grid,
          const std::array<std::optional<int64_t>, 3> &block,
          bool &guardUnknown) {
  guardUnknown = false;
  // A bound outlined as an argument (a merged kernel's) has the launch's
  // constant.
  BodyCounter counter{func, arguments, std::nullopt, {}};
  auto constant = [&](Value v) { return counter.constant(v); };
  GuardCaps caps;
  for (int d = 0; d < 3; ++d) {
    if (!grid[d] || !block[d])
      return std::nullopt;
    caps.grid[d] = *grid[d] * *block[d];
    caps.block[d] = *block[d];
  }
  // gptc-thread-blocks' guard (kWorkItemGuardAttr) has its bound in an
  // argument when outlining passed the constant; another guard's bound is
  // a constant of the kernel (an argument may vary per thread's role).
  auto onlyConstant = [](Value v) { return getConstantIntValue(v); };
  if (!func.getBody().empty())
    for (Operation &op : func.getBody().front())
      if (auto guard = dyn_cast<scf::IfOp>(op);
          guard && guard.getElseRegion().empty() &&
          !guard->hasAttr(gptc::lowering::kWarpLeaderAttr) &&
          !applyGuard(
              guard.getCondition(),
              guard->hasAttr(gptc::lowering::kWorkItemGuardAttr)
                  ? llvm::function_ref<std::optional<int64_t>(Value)>(constant)
                  : onlyConstant,
              caps))
        guardUnknown = true;
  int64_t items = 1;
  for (int d = 0; d < 3; ++d)
    items *= std::min(caps.grid[d], *grid[d] * caps.block[d]);
  return items;
}

/// The keys a query sees under the spec's sliding window, or nullopt
/// without one: the mean over training's steps and layers of the window
/// schedule (windowTokens, frontend/Parameters.h: the one C++ spelling of
/// it; a time per step is a mean over training), rounded up, plus a mask
/// block when the window counts blocks; under record_blocks the mean over
/// a block's 128 query offsets o of what the block list leaves,
/// min(W, o + 1 + 128 (ceil(W / 128) - 1)).
std::optional<int64_t> windowKeys(const ModelSpec &spec) {
  const WindowUnit unit = spec.model.attention.windowUnit;
  if (unit == WindowUnit::None)
    return std::nullopt;
  constexpr int64_t kBlock = 128;
  const int64_t steps = std::max<int64_t>(spec.training.steps, 1);
  const int64_t layers = std::max<int64_t>(spec.model.nLayer, 1);
  int64_t sum = 0, count = 0;
  for (int64_t step = 0; step < steps; ++step)
    for (int64_t layer = 0; layer < layers; ++layer) {
      const int64_t w = windowTokens(spec, step, layer);
      if (unit != WindowUnit::RecordBlocks) {
        sum += w, ++count;
        continue;
      }
      const int64_t listed = kBlock * ((w + kBlock - 1) / kBlock - 1);
      for (int64_t o = 0; o < kBlock; ++o)
        sum += std::min(w, o + 1 + listed);
      count += kBlock;
    }
  int64_t window = (sum + count - 1) / count;
  if (unit == WindowUnit::Blocks)
    window += kBlock;
  return window;
}

} // namespace gptc
