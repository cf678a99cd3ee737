//===- Stats.cpp - `gptc compile --stats`: kernels and GEMMs of a step ----===//
//
// CPU: the module at Stage::Loops; every outermost scf.parallel is a kernel
// (OpenMP parallel region), shaped by its loop bounds. CUDA: the module at
// Stage::LLVM with its gpu.launch ops outlined exactly as the NVVM pipeline
// of emitPTX outlines them, so kernel names match the PTX (and the files of
// --emit=ptx -o DIR); ptxas -v on each kernel's PTX gives registers and
// spill bytes. GEMMs are the gptc_gemm_* calls gptc-gemm-to-blas made, with
// their constant m, n, k, batch and transposes. Kernels and GEMMs inside
// host loops (scf.for) count once per iteration. CUDA's cost report counts
// each outlined kernel body (KernelCost.h) and prices kernels and GEMMs on
// an H100 (CostModel.h).
//
//===----------------------------------------------------------------------===//

#include "driver/report/Stats.h"

#include "driver/Compile.h"
#include "driver/Ptxas.h"
#include "driver/report/CostModel.h"
#include "driver/report/KernelCost.h"
#include "driver/report/RankShares.h"
#include "driver/report/ReportTable.h"

#include "frontend/Parameters.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ThreadPool.h"

#include <array>
#include <map>
#include <optional>

using namespace mlir;
using namespace gptc::report;

namespace gptc {

namespace {

/// The chips of the PTX stage, in its order.
constexpr size_t kNumChips = kPTXChips.size();

/// A count that may be unknown (a dynamic loop bound).
using Count = std::optional<int64_t>;

Count multiply(Count a, Count b) {
  if (!a || !b)
    return std::nullopt;
  return *a * *b;
}

std::string str(Count c) { return c ? std::to_string(*c) : "?"; }

std::string dims(ArrayRef<Count> counts) {
  std::string s;
  for (Count c : counts)
    s += (s.empty() ? "" : "x") + str(c);
  return s;
}

Count product(ArrayRef<Count> counts) {
  Count n = 1;
  for (Count c : counts)
    n = multiply(n, c);
  return n;
}

/// ceil((ub - lb) / step), or unknown.
Count tripCount(Value lb, Value ub, Value step) {
  std::optional<int64_t> l = getConstantIntValue(lb),
                         u = getConstantIntValue(ub),
                         s = getConstantIntValue(step);
  if (!l || !u || !s || *s <= 0)
    return std::nullopt;
  return *u <= *l ? 0 : (*u - *l + *s - 1) / *s;
}

/// How often `op` runs per call of its function: the product of the trip
/// counts of the scf.for loops around it.
Count timesPerCall(Operation *op) {
  Count n = 1;
  for (Operation *p = op->getParentOp(); p && !isa<func::FuncOp>(p);
       p = p->getParentOp())
    if (auto loop = dyn_cast<scf::ForOp>(p))
      n = multiply(n, tripCount(loop.getLowerBound(), loop.getUpperBound(),
                                loop.getStep()));
    else if (isa<scf::WhileOp>(p))
      n = std::nullopt;
  return n;
}

/// The spec key an op was built from: the first name in its location
/// (MLIRGen names ops after the YAML key, e.g. "blocks.0.attn.sdpa").
std::string originOf(Location loc) {
  std::string origin = "-";
  loc->walk([&](Location l) {
    if (auto name = dyn_cast<NameLoc>(l)) {
      origin = name.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return origin;
}

struct Kernel {
  std::string name, origin;
  std::vector<Count> loops;         ///< CPU: trip count of each dimension
  std::array<Count, 3> grid, block; ///< CUDA
  Count launches = 1;               ///< per call of the entry point
  std::array<PTXASInfo, kNumChips> ptxas;
  // CUDA cost.
  int64_t dynamicShared = 0, workgroupShared = 0; ///< bytes per block
  BodyCost body;                                  ///< per work item
  Count workItems;                          ///< threads that pass the guard
  bool guardUnknown = false;                ///< a guard we could not bound
  std::optional<cost::Occupancy> occupancy; ///< sm_90, with ptxas
  double flops = 0, bytes = 0;              ///< per launch
  double seconds = 0, idealSeconds = 0;     ///< all launches of one call
  bool approximate() const { return body.approximate || guardUnknown; }
};

/// One GEMM shape: C[b] = op(A[b]) op(B[b]) (+ C[b]), op(A) m x k.
struct GemmShape {
  std::string dtype; ///< f32, f64, bf16 (the callee gptc_gemm_DTYPE)
  bool transA = false, transB = false;
  Count m, n, k, batch;
  bool readsC = true; ///< beta is not a constant 0

  auto tie() const {
    return std::tie(dtype, transA, transB, m, n, k, batch, readsC);
  }
  bool operator<(const GemmShape &o) const { return tie() < o.tie(); }
  Count flops() const {
    return multiply(multiply(multiply(multiply(2, m), n), k), batch);
  }
};

struct GemmGroup {
  GemmShape shape;
  Count calls = 0; ///< per call of the entry point
  Count flops() const { return multiply(calls, shape.flops()); }
  int64_t elementBytes() const {
    return shape.dtype == "bf16" ? 2 : shape.dtype == "f64" ? 8 : 4;
  }
  /// Bytes and roofline seconds of all calls; 0 when a size is unknown.
  double bytes() const {
    if (!calls || !shape.m || !shape.n || !shape.k || !shape.batch)
      return 0;
    return *calls * cost::gemmBytes(*shape.m, *shape.n, *shape.k, *shape.batch,
                                    elementBytes(), shape.readsC);
  }
  double seconds() const {
    if (!calls || !shape.m || !shape.n || !shape.k || !shape.batch)
      return 0;
    return *calls * cost::gemmSeconds(*shape.m, *shape.n, *shape.k,
                                      *shape.batch, elementBytes(),
                                      shape.readsC);
  }
};

/// Sums counts; unknown terms make the sum a lower bound (printed "N+").
struct Total {
  int64_t known = 0;
  bool partial = false;
  void add(Count c) {
    if (c)
      known += *c;
    else
      partial = true;
  }
  void add(const Total &t, int64_t times) {
    known += t.known * times;
    partial |= t.partial;
  }
  std::string str() const {
    return std::to_string(known) + (partial ? "+" : "");
  }
};

struct EntryStats {
  std::string name;
  std::vector<Kernel> kernels;
  std::vector<GemmGroup> gemms;
  int64_t hostLoops = 0; ///< serial loop nests outside any kernel
  Total launches, gemmCalls, gemmFlops;
  /// The cost of one call (CUDA): FLOPs, bytes and seconds of its kernels
  /// and GEMMs; `ideal` as if every kernel ran at efficiency 1.
  double kernelFlops = 0, kernelBytes = 0, kernelSeconds = 0, idealSeconds = 0;
  double gemmBytes = 0, gemmSeconds = 0;
  bool approximate = false;
};

/// The public, defined functions of the step (its entry points), in order.
SmallVector<func::FuncOp> entryPoints(ModuleOp module) {
  SmallVector<func::FuncOp> entries;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isDeclaration())
      entries.push_back(func);
  return entries;
}

void collectGemms(func::FuncOp func, EntryStats &entry) {
  std::map<GemmShape, size_t> index;
  func.walk([&](func::CallOp call) {
    StringRef callee = call.getCallee();
    // GPTC_GEMM_ARGS (runtime/gptrt.h): trans_a, trans_b, m, n, k, a (4),
    // b (4), alpha, beta, c (4), d (4), batch.
    if (!callee.consume_front("gptc_gemm_") || call.getNumOperands() != 24)
      return;
    auto arg = [&](unsigned i) {
      return getConstantIntValue(call.getOperand(i));
    };
    GemmShape shape;
    shape.dtype = callee.str();
    shape.transA = arg(0).value_or(0) != 0;
    shape.transB = arg(1).value_or(0) != 0;
    shape.m = arg(2);
    shape.n = arg(3);
    shape.k = arg(4);
    shape.batch = arg(23);
    shape.readsC = !matchPattern(call.getOperand(14), m_AnyZeroFloat());
    auto [it, inserted] = index.try_emplace(shape, entry.gemms.size());
    if (inserted)
      entry.gemms.push_back({shape, 0});
    GemmGroup &group = entry.gemms[it->second];
    Count times = timesPerCall(call);
    group.calls =
        group.calls && times ? Count(*group.calls + *times) : std::nullopt;
  });
  // Most FLOPs first; first appearance breaks ties (stable sort).
  std::stable_sort(entry.gemms.begin(), entry.gemms.end(),
                   [](const GemmGroup &a, const GemmGroup &b) {
                     return a.flops().value_or(-1) > b.flops().value_or(-1);
                   });
  for (const GemmGroup &g : entry.gemms) {
    entry.gemmCalls.add(g.calls);
    entry.gemmFlops.add(g.flops());
    entry.gemmBytes += g.bytes();
    entry.gemmSeconds += g.seconds();
    entry.approximate |= !g.flops();
  }
}

/// Serial scf.for nests that contain no kernel: they run on the host.
int64_t countHostLoops(func::FuncOp func) {
  int64_t n = 0;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<scf::ParallelOp, gpu::LaunchFuncOp, gpu::LaunchOp>(op))
      return WalkResult::skip();
    if (!isa<scf::ForOp, scf::WhileOp>(op))
      return WalkResult::advance();
    bool hasKernel =
        op->walk([](Operation *inner) {
            return isa<scf::ParallelOp, gpu::LaunchFuncOp, gpu::LaunchOp>(inner)
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          }).wasInterrupted();
    if (hasKernel)
      return WalkResult::advance(); // a loop of launches
    ++n;
    return WalkResult::skip();
  });
  return n;
}

/// CPU: the outermost scf.parallel nests, k0, k1, ... per entry point.
void collectLoopKernels(func::FuncOp func, EntryStats &entry) {
  func.walk<WalkOrder::PreOrder>([&](scf::ParallelOp loop) {
    Kernel k;
    k.name = "k" + std::to_string(entry.kernels.size());
    k.origin = originOf(loop.getLoc());
    for (auto [lb, ub, step] :
         llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep()))
      k.loops.push_back(tripCount(lb, ub, step));
    k.launches = timesPerCall(loop);
    entry.kernels.push_back(std::move(k));
    return WalkResult::skip();
  });
}

/// CUDA: the outlined gpu.launch_func ops.
void collectLaunchKernels(func::FuncOp func, std::optional<int64_t> windowKeys,
                          EntryStats &entry) {
  func.walk([&](gpu::LaunchFuncOp launch) {
    Kernel k;
    k.name = launch.getKernelModuleName().str();
    k.origin = originOf(launch.getLoc());
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues(),
                    block = launch.getBlockSizeOperandValues();
    k.grid = {getConstantIntValue(grid.x), getConstantIntValue(grid.y),
              getConstantIntValue(grid.z)};
    k.block = {getConstantIntValue(block.x), getConstantIntValue(block.y),
               getConstantIntValue(block.z)};
    k.launches = timesPerCall(launch);
    if (Value dynamic = launch.getDynamicSharedMemorySize())
      k.dynamicShared = getConstantIntValue(dynamic).value_or(0);
    if (auto func = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
            launch, launch.getKernel())) {
      for (BlockArgument shared : func.getWorkgroupAttributions())
        if (auto type = dyn_cast<MemRefType>(shared.getType());
            type && type.hasStaticShape() &&
            type.getElementType().isIntOrFloat())
          k.workgroupShared +=
              type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
      SmallVector<std::optional<int64_t>> arguments;
      for (Value operand : launch.getKernelOperands())
        arguments.push_back(getConstantIntValue(operand));
      k.body = kernelBodyCost(func, arguments, windowKeys);
      k.workItems = workItems(func, k.grid, k.block, k.guardUnknown);
    }
    entry.kernels.push_back(std::move(k));
  });
}

/// The cost columns of `k` and its part of `entry`'s cost (CostModel.h):
/// occupancy on sm_90 with ptxas's registers and shared memory, FLOPs and
/// bytes of a launch (per work item times work items), roofline seconds.
void costKernel(Kernel &k, EntryStats &entry, bool withPTXAS) {
  constexpr size_t sm90 = 1;
  static_assert(kPTXChips.size() > sm90, "sm_90 is the second chip");
  Count threadsPerBlock = product(k.block);
  Count threads = multiply(product(k.grid), threadsPerBlock);
  const PTXASInfo &p = k.ptxas[sm90];
  if (withPTXAS && p.error.empty() && threadsPerBlock)
    k.occupancy = cost::occupancyH100(*threadsPerBlock, p.registers,
                                      p.sharedBytes + k.dynamicShared);
  double items = static_cast<double>(k.workItems.value_or(1));
  k.flops = k.body.flops * items;
  k.bytes = k.body.bytes * items;
  double efficiency =
      cost::launchEfficiency(threadsPerBlock.value_or(1), threads.value_or(1));
  double launches = static_cast<double>(k.launches.value_or(1));
  k.seconds = launches * cost::kernelSeconds(k.flops, k.bytes, efficiency);
  k.idealSeconds = launches * cost::kernelSeconds(k.flops, k.bytes, 1.0);
  entry.kernelFlops += launches * k.flops;
  entry.kernelBytes += launches * k.bytes;
  entry.kernelSeconds += k.seconds;
  entry.idealSeconds += k.idealSeconds;
  entry.approximate |= k.approximate() || !k.workItems || !k.launches;
}

/// ptxas columns of every kernel. PTX that is byte-identical (the same nest
/// in every layer) is assembled once. False after an error outside ptxas;
/// kernels ptxas fails on are reported in `failures` (empty if none).
bool assembleKernels(ModuleOp module, std::vector<EntryStats> &entries,
                     StringRef ptxas, std::string &failures,
                     std::string &error) {
  std::vector<PTXKernel> ptx;
  if (!emitPTX(module, ptx))
    return false;
  SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("gptc-stats", dir)) {
    error = "cannot create a temporary directory: " + ec.message();
    return false;
  }
  // (chip, PTX text) -> result slot; kernel name -> slot per chip.
  std::map<std::pair<std::string, StringRef>, size_t> unique;
  std::vector<std::pair<const PTXKernel *, PTXASInfo>> results;
  llvm::StringMap<std::array<size_t, kNumChips>> slotOf;
  for (const PTXKernel &k : ptx) {
    auto chip = llvm::find(kPTXChips, k.chip);
    if (chip == kPTXChips.end())
      continue;
    auto [it, inserted] =
        unique.try_emplace({k.chip, StringRef(k.ptx)}, results.size());
    if (inserted)
      results.push_back({&k, {}});
    slotOf[k.name][chip - kPTXChips.begin()] = it->second + 1;
  }
  {
    llvm::DefaultThreadPool pool(llvm::heavyweight_hardware_concurrency());
    for (size_t i = 0; i < results.size(); ++i)
      pool.async([&, i] {
        results[i].second =
            runPTXAS(ptxas, results[i].first->chip, results[i].first->ptx, dir,
                     "k" + std::to_string(i));
      });
    pool.wait();
  }
  llvm::sys::fs::remove_directories(dir);

  std::string first;
  size_t failed = 0;
  for (EntryStats &entry : entries)
    for (Kernel &k : entry.kernels) {
      auto it = slotOf.find(k.name);
      for (size_t c = 0; c < kNumChips; ++c) {
        size_t slot = it == slotOf.end() ? 0 : it->second[c];
        if (slot == 0)
          k.ptxas[c].error = "no PTX for this kernel";
        else
          k.ptxas[c] = results[slot - 1].second;
        if (!k.ptxas[c].error.empty() && failed++ == 0)
          first = k.name + " (" + kPTXChips[c] + "): " + k.ptxas[c].error;
      }
    }
  if (failed)
    failures = "ptxas failed on " + std::to_string(failed) +
               " kernel(s); first: " + first;
  return true;
}

/// Kernels of distinct names (one per PTX entry point) over `entries`.
size_t distinctKernels(llvm::ArrayRef<const EntryStats *> entries) {
  llvm::StringSet<> names;
  for (const EntryStats *e : entries)
    for (const Kernel &k : e->kernels)
      names.insert(k.name);
  return names.size();
}

void printEntry(const EntryStats &entry, Target target, bool withPTXAS,
                llvm::raw_ostream &os) {
  os << "\n" << entry.name << ": ";
  if (target == Target::CUDA)
    os << entry.kernels.size() << " launch sites, " << entry.launches.str()
       << " launches of " << distinctKernels({&entry}) << " distinct kernels, ";
  else
    os << entry.kernels.size() << " kernels, " << entry.launches.str()
       << " launches, ";
  os << entry.gemmCalls.str() << " GEMM calls, " << entry.gemmFlops.str()
     << " GEMM FLOPs";
  if (entry.hostLoops)
    os << ", " << entry.hostLoops << " serial loop nest"
       << (entry.hostLoops == 1 ? "" : "s") << " outside kernels";
  os << "\n";
  if (target == Target::CUDA)
    os << "  H100 estimate: kernels " << amount(entry.kernelFlops) << " FLOPs "
       << amount(entry.kernelBytes) << " bytes " << millis(entry.kernelSeconds)
       << " ms, GEMMs " << entry.gemmFlops.str() << " FLOPs "
       << amount(entry.gemmBytes) << " bytes " << millis(entry.gemmSeconds)
       << " ms, total " << (entry.approximate ? "~" : "")
       << millis(entry.kernelSeconds + entry.gemmSeconds) << " ms\n";
  if (!entry.kernels.empty()) {
    if (target == Target::CPU) {
      Table t({{"kernel", false},
               {"origin", false},
               {"loops", false},
               {"iterations", true},
               {"launches", true}});
      for (const Kernel &k : entry.kernels)
        t.addRow({k.name, k.origin, dims(k.loops), str(product(k.loops)),
                  str(k.launches)});
      t.print(os, "  ");
    } else {
      std::vector<std::pair<std::string, bool>> header = {
          {"kernel", false}, {"origin", false}, {"grid", false},
          {"block", false},  {"threads", true}, {"launches", true}};
      if (withPTXAS)
        for (const char *chip : kPTXChips) {
          header.push_back({std::string(chip) + " regs", true});
          header.push_back({"spill", true});
        }
      for (const char *title : {"smem", "occ", "FLOPs", "bytes", "est us"})
        header.push_back({title, true});
      Table t(header);
      for (const Kernel &k : entry.kernels) {
        std::vector<std::string> row = {
            k.name,
            k.origin,
            dims(k.grid),
            dims(k.block),
            str(multiply(product(k.grid), product(k.block))),
            str(k.launches)};
        if (withPTXAS)
          for (const PTXASInfo &p : k.ptxas) {
            bool ok = p.error.empty();
            row.push_back(ok ? std::to_string(p.registers) : "fail");
            row.push_back(ok ? std::to_string(p.spillBytes) : "-");
          }
        // Static shared memory from ptxas (sm_90) or the workgroup
        // attributions, plus the launch's dynamic shared memory.
        int64_t shared =
            k.dynamicShared + (withPTXAS && k.ptxas[1].error.empty()
                                   ? k.ptxas[1].sharedBytes
                                   : k.workgroupShared);
        row.push_back(std::to_string(shared));
        row.push_back(
            k.occupancy
                ? llvm::formatv("{0:f0}%", k.occupancy->fraction * 100).str()
                : "-");
        row.push_back(amount(k.flops, k.approximate()));
        row.push_back(amount(k.bytes, k.approximate()));
        row.push_back(micros(k.seconds));
        t.addRow(std::move(row));
      }
      t.print(os, "  ");
    }
  }
  if (!entry.gemms.empty()) {
    std::vector<std::pair<std::string, bool>> header = {
        {"GEMM", false}, {"dtype", false}, {"trans", false},
        {"m", true},     {"n", true},      {"k", true},
        {"batch", true}, {"calls", true},  {"FLOPs", true}};
    if (target == Target::CUDA) {
      header.push_back({"bytes", true});
      header.push_back({"est us", true});
    }
    Table t(header);
    size_t i = 0;
    for (const GemmGroup &g : entry.gemms) {
      const GemmShape &s = g.shape;
      std::string trans =
          std::string(s.transA ? "T" : "N") + (s.transB ? "T" : "N");
      std::vector<std::string> row = {"g" + std::to_string(i++),
                                      s.dtype,
                                      trans,
                                      str(s.m),
                                      str(s.n),
                                      str(s.k),
                                      str(s.batch),
                                      str(g.calls),
                                      str(g.flops())};
      if (target == Target::CUDA) {
        row.push_back(amount(g.bytes()));
        row.push_back(micros(g.seconds()));
      }
      t.addRow(std::move(row));
    }
    t.print(os, "  ");
  }
}

} // namespace

/// GEMM calls of the update step per optimizer group, in group order: the
/// group of the parameter its location names ("update.PARAM"; a batched
/// Newton-Schulz call is named after its first parameter).
static std::vector<std::pair<std::string, int64_t>>
gemmCallsPerGroup(ModuleOp module, const ModelSpec &spec) {
  std::map<std::string, std::string> groupOf;
  std::vector<ParameterInfo> params = enumerateParameters(spec);
  if (assignGroups(spec, params).empty())
    for (const ParameterInfo &p : params)
      if (p.group >= 0)
        groupOf[p.name] = spec.groups[size_t(p.group)].name;
  std::map<std::string, int64_t> calls;
  for (func::FuncOp func : entryPoints(module)) {
    if (func.getSymName() != "gptc_update_step")
      continue;
    func.walk([&](func::CallOp call) {
      if (!call.getCallee().starts_with("gptc_gemm_"))
        return;
      std::string origin = originOf(call.getLoc());
      StringRef param(origin);
      auto it = param.consume_front("update.") ? groupOf.find(param.str())
                                               : groupOf.end();
      ++calls[it == groupOf.end() ? "(other)" : it->second];
    });
  }
  std::vector<std::pair<std::string, int64_t>> result;
  for (const OptimizerGroup &g : spec.groups)
    result.push_back({g.name, calls[g.name]});
  if (calls.count("(other)"))
    result.push_back({"(other)", calls["(other)"]});
  return result;
}

/// Model FLOPs of one training step of one rank: 6 N T, N the parameters
/// but the embedding tables (wte, value_embeds.*; the head counts), T the
/// tokens of the step on one rank (seq_len x device_batch x grad_accum).
/// Attention's own FLOPs are not counted.
static void modelFlops(const ModelSpec &spec, int64_t &params,
                       int64_t &tokens) {
  params = 0;
  for (const ParameterInfo &p : enumerateParameters(spec)) {
    if (p.name == "wte" || StringRef(p.name).starts_with("value_embeds."))
      continue;
    int64_t n = 1;
    for (int64_t d : p.shape)
      n *= d;
    params += n;
  }
  tokens = spec.training.seqLen * spec.training.deviceBatch *
           spec.training.gradAccum();
}

/// The cost summary of one training step (gptc_grad_step x grad_accum +
/// gptc_update_step) on one H100 and the kernels that take most of it.
static void printStepCost(const ModelSpec &spec,
                          const std::vector<EntryStats> &entries,
                          llvm::raw_ostream &os) {
  double kernelSeconds = 0, gemmSeconds = 0, idealSeconds = 0, flops = 0,
         bytes = 0;
  Total launches, calls;
  bool approximate = false;
  // (seconds per step, kernel, origin)
  std::vector<std::tuple<double, std::string, std::string>> top;
  for (const EntryStats &e : entries) {
    int64_t times = e.name == "gptc_grad_step"     ? spec.training.gradAccum()
                    : e.name == "gptc_update_step" ? 1
                                                   : 0;
    if (!times)
      continue;
    kernelSeconds += times * e.kernelSeconds;
    gemmSeconds += times * e.gemmSeconds;
    idealSeconds += times * (e.idealSeconds + e.gemmSeconds);
    flops += times * (e.kernelFlops + static_cast<double>(e.gemmFlops.known));
    bytes += times * (e.kernelBytes + e.gemmBytes);
    launches.add(e.launches, times);
    calls.add(e.gemmCalls, times);
    approximate |= e.approximate;
    for (const Kernel &k : e.kernels)
      top.push_back({times * k.seconds, k.name, k.origin});
  }
  double seconds = kernelSeconds + gemmSeconds;
  int64_t params = 0, tokens = 0;
  modelFlops(spec, params, tokens);
  double model =
      6.0 * static_cast<double>(params) * static_cast<double>(tokens);
  os << "estimated H100 step: " << (approximate ? "~" : "") << millis(seconds)
     << " ms (kernels " << millis(kernelSeconds) << " ms in " << launches.str()
     << " launches, GEMMs " << millis(gemmSeconds) << " ms in " << calls.str()
     << " calls), " << human(static_cast<int64_t>(flops)) << "FLOP, "
     << human(static_cast<int64_t>(bytes)) << "B, "
     << llvm::formatv("{0:f2}", 100 * cost::mfu(model, seconds)) << "% MFU\n";
  os << "  model FLOPs 6 N T = 6 x " << params
     << " (parameters but wte and value_embeds) x " << tokens
     << " tokens = " << human(static_cast<int64_t>(model))
     << "FLOP; with every kernel at full lanes and fill "
     << millis(idealSeconds) << " ms, "
     << llvm::formatv("{0:f2}", 100 * cost::mfu(model, idealSeconds))
     << "% MFU\n";
  printDataParallelCost(spec, os);
  std::stable_sort(top.begin(), top.end(), [](const auto &a, const auto &b) {
    return std::get<0>(a) > std::get<0>(b);
  });
  // By origin, the layer index dropped (blocks.3.mlp -> blocks.*.mlp).
  std::map<std::string, double> byOrigin;
  double serial = 0;
  int64_t serialKernels = 0;
  for (const EntryStats &e : entries) {
    int64_t times = e.name == "gptc_grad_step"     ? spec.training.gradAccum()
                    : e.name == "gptc_update_step" ? 1
                                                   : 0;
    for (const Kernel &k : e.kernels) {
      if (!times)
        continue;
      SmallVector<StringRef> parts;
      StringRef(k.origin).split(parts, '.');
      if (parts.size() > 1 && parts[0] == "blocks")
        parts[1] = "*";
      byOrigin[llvm::join(parts, ".")] += times * k.seconds;
      if (multiply(product(k.grid), product(k.block)) == Count(1)) {
        serial += times * k.seconds;
        ++serialKernels;
      }
    }
  }
  std::vector<std::pair<double, std::string>> origins;
  for (auto &[origin, secs] : byOrigin)
    origins.push_back({secs, origin});
  std::stable_sort(
      origins.begin(), origins.end(),
      [](const auto &a, const auto &b) { return a.first > b.first; });
  os << "  kernel time by origin:";
  for (size_t i = 0; i < std::min<size_t>(6, origins.size()); ++i)
    os << (i ? ", " : " ") << origins[i].second << " "
       << millis(origins[i].first) << " ms";
  os << "; single-thread kernels " << serialKernels << ", " << millis(serial)
     << " ms\n";
  os << "  top kernels by estimated time per step:\n";
  for (size_t i = 0; i < std::min<size_t>(5, top.size()); ++i)
    os << "    " << millis(std::get<0>(top[i])) << " ms  "
       << std::get<1>(top[i]) << " (" << std::get<2>(top[i]) << ")\n";
}

/// Kernels (outermost loop nests) of every entry point at the CPU Loops
/// stage; -1 when compilation fails.
static int64_t countCPUKernels(MLIRContext &ctx, const ModelSpec &spec,
                               bool fuse) {
  OwningOpRef<ModuleOp> module =
      compileToStage(ctx, spec, Stage::Loops, Target::CPU, fuse);
  if (!module)
    return -1;
  int64_t count = 0;
  for (func::FuncOp func : entryPoints(*module)) {
    EntryStats entry;
    collectLoopKernels(func, entry);
    count += static_cast<int64_t>(entry.kernels.size());
  }
  return count;
}

bool printStepStats(MLIRContext &ctx, const ModelSpec &spec, Target target,
                    bool fuse, llvm::raw_ostream &os, std::string &error) {
  bool cuda = target == Target::CUDA;
  OwningOpRef<ModuleOp> module = compileToStage(
      ctx, spec, cuda ? Stage::LLVM : Stage::Loops, target, fuse);
  if (!module)
    return false;

  // CUDA: kernels as gpu.launch_func of the outlined gpu.modules, named as
  // in the PTX (addKernelOutlining is the first step of emitPTX's
  // pipeline, and deterministic).
  OwningOpRef<ModuleOp> outlined;
  if (cuda) {
    outlined = cast<ModuleOp>((*module)->clone());
    PassManager pm(&ctx);
    addKernelOutlining(pm);
    if (failed(pm.run(*outlined)))
      return false;
  }

  std::vector<EntryStats> entries;
  for (func::FuncOp func : entryPoints(cuda ? *outlined : *module)) {
    EntryStats entry;
    entry.name = func.getSymName().str();
    if (cuda)
      collectLaunchKernels(func, windowKeys(spec), entry);
    else
      collectLoopKernels(func, entry);
    for (const Kernel &k : entry.kernels)
      entry.launches.add(k.launches);
    collectGemms(func, entry);
    entry.hostLoops = countHostLoops(func);
    entries.push_back(std::move(entry));
  }

  std::string ptxas = cuda ? findPTXAS() : "", ptxasFailures;
  if (!ptxas.empty() &&
      !assembleKernels(*module, entries, ptxas, ptxasFailures, error))
    return false;
  if (cuda)
    for (EntryStats &e : entries)
      for (Kernel &k : e.kernels)
        costKernel(k, e, !ptxas.empty());

  // Totals: static kernel and GEMM call counts over every entry point, and
  // what one training step runs (grad_accum grad steps, one update).
  size_t kernels = 0;
  Total gemmCalls, stepLaunches, stepGemms, stepFlops;
  for (const EntryStats &e : entries) {
    kernels += e.kernels.size();
    gemmCalls.add(e.gemmCalls, 1);
    int64_t times = e.name == "gptc_grad_step"     ? spec.training.gradAccum()
                    : e.name == "gptc_update_step" ? 1
                                                   : 0;
    stepLaunches.add(e.launches, times);
    stepGemms.add(e.gemmCalls, times);
    stepFlops.add(e.gemmFlops, times);
  }
  os << spec.name << " --target=" << (cuda ? "cuda" : "cpu") << ": " << kernels;
  if (cuda) {
    SmallVector<const EntryStats *> all;
    for (const EntryStats &e : entries)
      all.push_back(&e);
    os << " launch sites of " << distinctKernels(all) << " distinct kernels, ";
  } else {
    os << " kernels, ";
  }
  os << gemmCalls.str() << " GEMM calls in " << entries.size()
     << " entry points; per training step (gptc_grad_step x"
     << spec.training.gradAccum()
     << " + gptc_update_step): " << stepLaunches.str() << " kernel launches";
  if (cuda) {
    // Launches over the distinct kernels they run: how often the same
    // code runs again (per layer, per parameter group).
    SmallVector<const EntryStats *> step;
    for (const EntryStats &e : entries)
      if (e.name == "gptc_grad_step" || e.name == "gptc_update_step")
        step.push_back(&e);
    size_t distinct = distinctKernels(step);
    os << " of " << distinct << " distinct kernels";
    if (!stepLaunches.partial && distinct)
      os << llvm::formatv(" ({0:F1} per kernel)",
                          double(stepLaunches.known) / double(distinct));
  }
  os << ", " << stepGemms.str() << " GEMM calls, " << stepFlops.str()
     << " GEMM FLOPs (" << human(stepFlops.known) << "FLOP)";
  if (cuda && !ptxas.empty()) {
    std::array<int64_t, kNumChips> maxRegs{};
    int64_t spills = 0, failed = 0;
    for (const EntryStats &e : entries)
      for (const Kernel &k : e.kernels)
        for (size_t c = 0; c < kNumChips; ++c) {
          const PTXASInfo &p = k.ptxas[c];
          if (!p.error.empty()) {
            ++failed;
            continue;
          }
          maxRegs[c] = std::max(maxRegs[c], p.registers);
          spills += p.spillBytes;
        }
    os << "; ptxas: max registers";
    for (size_t c = 0; c < kNumChips; ++c)
      os << " " << maxRegs[c] << " (" << kPTXChips[c] << ")";
    os << ", " << spills << " spill bytes";
    if (failed)
      os << ", failed on " << failed << " kernel(s)";
  }
  os << "\n";
  if (cuda && ptxas.empty())
    os << "ptxas not found (CUDA_ROOT, " GPTC_CUDA_TOOLKIT_DIR
          ", /usr/local/cuda, PATH): no register columns\n";
  for (const EntryStats &e : entries)
    printEntry(e, target, cuda && !ptxas.empty(), os);
  if (cuda)
    printStepCost(spec, entries, os);
  int64_t fused = countCPUKernels(ctx, spec, true);
  int64_t unfused = countCPUKernels(ctx, spec, false);
  os << "fusion (CPU kernels over all entry points): fused " << fused
     << ", --no-fuse " << unfused << (fuse ? "" : " (this table)") << "\n";
  os << "gptc_update_step GEMM calls per parameter group:";
  for (auto &[group, calls] : gemmCallsPerGroup(*module, spec))
    os << " " << group << " " << calls;
  os << (fuse ? " (same-shape Newton-Schulz batched)" : "") << "\n";
  if (!printNewtonSchulzShares(ctx, spec, target, fuse, os))
    return false;
  // The table shows which kernels failed ("fail"); then the error.
  error = ptxasFailures;
  return error.empty();
}

} // namespace gptc
