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
#include "driver/report/StepStats.h"
#include "passes/SpecKey.h"

#include "dialects/GPT/GPTDialect.h"
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
  StringRef key = specKeyOf(loc);
  return key.empty() ? "-" : key.str();
}

/// The public, defined functions of the step (its entry points), in order.
SmallVector<func::FuncOp> entryPoints(ModuleOp module) {
  SmallVector<func::FuncOp> entries;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isDeclaration())
      entries.push_back(func);
  return entries;
}

/// The shape of a gptc_gemm_* call, or nothing for another call.
std::optional<GemmShape> gemmShapeOf(func::CallOp call) {
  StringRef callee = call.getCallee();
  // GPTC_GEMM_ARGS (runtime/gptrt.h): trans_a, trans_b, m, n, k, a (4),
  // b (4), alpha, beta, c (4), d (4), batch.
  if (!callee.consume_front("gptc_gemm_") || call.getNumOperands() != 24)
    return std::nullopt;
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
  return shape;
}

/// The entry's gradient all-reduce starts in program order, each with the
/// kernel launch sites and GEMM calls before it (the walk is
/// collectLaunchKernels', so the sites are a prefix of entry.kernels).
void collectAllReduceSites(func::FuncOp func, EntryStats &entry) {
  // GPTC_DTYPE_* (runtime/gptrt.h): f32, bf16, f64, i32, i64.
  constexpr std::array<int64_t, 5> kDtypeBytes = {4, 2, 8, 4, 8};
  size_t sites = 0;
  func.walk([&](Operation *op) {
    if (isa<gpu::LaunchFuncOp>(op)) {
      ++sites;
      return;
    }
    auto call = dyn_cast<func::CallOp>(op);
    if (!call)
      return;
    if (std::optional<GemmShape> shape = gemmShapeOf(call)) {
      entry.gemmOrder.push_back(*shape);
      return;
    }
    // gptc_comm_all_reduce_start(kind, dtype, in, out, count).
    if (call.getCallee() != "gptc_comm_all_reduce_start" ||
        call.getNumOperands() != 5)
      return;
    std::optional<int64_t> dtype = getConstantIntValue(call.getOperand(1));
    std::optional<int64_t> count = getConstantIntValue(call.getOperand(4));
    if (!dtype || !count || *dtype < 0 || *dtype >= int64_t(kDtypeBytes.size()))
      return;
    entry.allReduceSites.push_back(
        {double(*count * kDtypeBytes[size_t(*dtype)]), sites,
         entry.gemmOrder.size()});
  });
}

} // namespace

std::vector<cost::ReduceStart> EntryStats::reduceStarts() const {
  double total = calibratedKernelSeconds + calibratedGemmSeconds;
  std::vector<double> kernelBefore(kernels.size() + 1, 0.0);
  for (size_t i = 0; i < kernels.size(); ++i)
    kernelBefore[i + 1] = kernelBefore[i] + kernels[i].calibratedSeconds;
  std::map<GemmShape, double> perCall;
  for (const GemmGroup &g : gemms)
    if (g.calls && *g.calls > 0)
      perCall[g.shape] = g.calibratedSeconds(launchSeconds) / double(*g.calls);
  std::vector<double> gemmBefore(gemmOrder.size() + 1, 0.0);
  for (size_t i = 0; i < gemmOrder.size(); ++i) {
    auto found = perCall.find(gemmOrder[i]);
    gemmBefore[i + 1] =
        gemmBefore[i] + (found == perCall.end() ? 0.0 : found->second);
  }
  std::vector<cost::ReduceStart> starts;
  for (const AllReduceSite &s : allReduceSites)
    starts.push_back(
        {s.bytes, std::max(0.0, total - kernelBefore[s.kernelSites] -
                                    gemmBefore[s.gemmCalls])});
  return starts;
}

namespace {

void collectGemms(func::FuncOp func, double launchSeconds, EntryStats &entry) {
  std::map<GemmShape, size_t> index;
  func.walk([&](func::CallOp call) {
    std::optional<GemmShape> found = gemmShapeOf(call);
    if (!found)
      return;
    const GemmShape &shape = *found;
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
    entry.calibratedGemmSeconds += g.calibratedSeconds(launchSeconds);
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
      k.workItems = workItems(func, arguments, k.grid, k.block, k.guardUnknown);
    }
    entry.kernels.push_back(std::move(k));
  });
}

/// The cost columns of `k` and its part of `entry`'s cost (CostModel.h):
/// occupancy on sm_90 with ptxas's registers and shared memory, FLOPs and
/// bytes of a launch (per work item times work items), roofline seconds.
void costKernel(Kernel &k, EntryStats &entry, bool withPTXAS,
                double launchSeconds) {
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
  k.tensorFlops = k.body.tensorFlops * items;
  k.bytes = launchDramBytes(k.body, items);
  k.instructions = k.body.instructions * items;
  k.sharedTraffic = k.body.sharedBytes * items;
  k.localTraffic = k.body.localBytes * items;
  // Private arrays that LLVM promoted to registers never reach local
  // memory: with ptxas, only the share of them its stack frame holds does
  // (traffic taken as proportional to size).
  if (withPTXAS && p.error.empty() && k.body.privateBytes > 0)
    k.localTraffic *=
        std::min(1.0, static_cast<double>(p.stackBytes) / k.body.privateBytes);
  double efficiency =
      cost::launchEfficiency(threadsPerBlock.value_or(1), threads.value_or(1));
  double launches = static_cast<double>(k.launches.value_or(1));
  k.seconds = launches *
              cost::kernelSeconds(k.flops, k.bytes, efficiency, k.tensorFlops);
  k.idealSeconds =
      launches * cost::kernelSeconds(k.flops, k.bytes, 1.0, k.tensorFlops);
  cost::KernelWork work;
  work.launchSeconds = launchSeconds;
  work.flops = k.flops;
  work.tensorFlops = k.tensorFlops;
  work.dramBytes = k.bytes;
  work.threadInstructions = k.instructions;
  work.sharedBytes = k.sharedTraffic;
  work.localBytes = k.localTraffic;
  work.threadsPerBlock = threadsPerBlock.value_or(1);
  work.threads = threads.value_or(1);
  if (k.occupancy)
    work.blocksPerSM = k.occupancy->blocksPerSM;
  if (withPTXAS && p.error.empty()) {
    work.stackBytes = p.stackBytes;
    work.sharedPerBlock = p.sharedBytes + k.dynamicShared;
  } else {
    work.sharedPerBlock = k.workgroupShared + k.dynamicShared;
  }
  k.calibrated = cost::calibratedKernelTime(work);
  k.calibratedSeconds = launches * k.calibrated.seconds;
  k.staticCalibratedSeconds = k.calibratedSeconds;
  entry.staticKernelSeconds += k.staticCalibratedSeconds;
  if (k.measured) {
    // The measured model: the static counts of this shape through the
    // ratios the emulated device measured (MeasuredProfile.h).
    const MeasuredKernel &m = *k.measured;
    double requested = k.body.bytes;
    for (const BufferReads &b : k.body.buffers)
      requested += b.bytes;
    requested *= items;
    double blockLanes = 32 * cost::laneFraction(threadsPerBlock.value_or(1));
    work.warpInstructions =
        k.instructions / (blockLanes * m.convergence) * m.sassPerPtx;
    work.l2Bytes = requested * m.sectorBytesPerByte;
    work.dramBytes = std::max(k.bytes, work.l2Bytes / m.reuse);
    work.sharedBytes = k.sharedTraffic * m.sharedConflict;
    k.calibrated = cost::calibratedKernelTime(work);
    k.calibratedSeconds = launches * k.calibrated.seconds;
  }
  entry.calibratedKernelSeconds += k.calibratedSeconds;
  entry.secondsByBound[static_cast<size_t>(k.calibrated.bound)] +=
      k.calibratedSeconds;
  entry.kernelsByBound[static_cast<size_t>(k.calibrated.bound)] += 1;
  entry.kernelFlops += launches * (k.flops + k.tensorFlops);
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
  llvm::StringMap<Mnemonics> mnemonicsOf;
  for (const PTXKernel &k : ptx) {
    auto chip = llvm::find(kPTXChips, k.chip);
    if (chip == kPTXChips.end())
      continue;
    auto [it, inserted] =
        unique.try_emplace({k.chip, StringRef(k.ptx)}, results.size());
    if (inserted)
      results.push_back({&k, {}});
    slotOf[k.name][chip - kPTXChips.begin()] = it->second + 1;
    if (StringRef(k.chip) == "sm_90")
      mnemonicsOf[k.name] = ptxMnemonics(k.ptx);
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
      k.mnemonics = mnemonicsOf.lookup(k.name);
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
                    bool fuse, StringRef profilePath, llvm::raw_ostream &os,
                    std::string &error) {
  bool cuda = target == Target::CUDA;
  std::optional<report::MeasuredProfile> profile;
  if (!profilePath.empty()) {
    llvm::Expected<report::MeasuredProfile> loaded =
        report::loadMeasuredProfile(profilePath);
    if (!loaded) {
      error = llvm::toString(loaded.takeError());
      return false;
    }
    profile = std::move(*loaded);
  }
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

  // Every step replays CUDA graphs, its collectives captured with it
  // (runtime/OpenStepDevice.cpp's useGraphs).
  double launchSeconds = cost::H100Measured::kGraphLaunchSeconds;
  std::vector<EntryStats> entries;
  for (func::FuncOp func : entryPoints(cuda ? *outlined : *module)) {
    EntryStats entry;
    entry.name = func.getSymName().str();
    entry.launchSeconds = launchSeconds;
    if (cuda)
      collectLaunchKernels(func, windowKeys(spec), entry);
    else
      collectLoopKernels(func, entry);
    for (const Kernel &k : entry.kernels)
      entry.launches.add(k.launches);
    collectGemms(func, launchSeconds, entry);
    if (cuda)
      collectAllReduceSites(func, entry);
    entry.hostLoops = countHostLoops(func);
    entries.push_back(std::move(entry));
  }

  std::string ptxas = cuda ? findPTXAS() : "", ptxasFailures;
  if (profile && ptxas.empty()) {
    error = "--profile matches kernels by their PTX and SASS: it needs ptxas "
            "(CUDA_ROOT, /usr/local/cuda, PATH)";
    return false;
  }
  if (!ptxas.empty() &&
      !assembleKernels(*module, entries, ptxas, ptxasFailures, error))
    return false;
  if (cuda)
    for (EntryStats &e : entries)
      for (Kernel &k : e.kernels) {
        if (profile) {
          e.profiled = true;
          k.measured = profile->find(k.name, k.mnemonics, k.measuredExactly);
          e.unmeasuredKernels += !k.measured;
          e.approximatelyMeasured += k.measured && !k.measuredExactly;
        }
        costKernel(k, e, !ptxas.empty(), launchSeconds);
      }
  if (cuda) {
    int64_t arenaBytes = 0;
    if (auto arena = (*module)->getAttrOfType<gpt::ArenaLayoutAttr>(
            gpt::ArenaLayoutAttr::kAttrName))
      arenaBytes = arena.getBytes();
    printStepAnswer(spec, entries, profile ? &*profile : nullptr, arenaBytes,
                    os);
  }

  // Totals: static kernel and GEMM call counts over every entry point, and
  // what one training step runs (grad_accum grad steps, one update).
  size_t kernels = 0;
  Total gemmCalls, stepLaunches, stepGemms, stepFlops;
  for (const EntryStats &e : entries) {
    kernels += e.kernels.size();
    gemmCalls.add(e.gemmCalls, 1);
    int64_t times = timesPerStep(spec, e);
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
