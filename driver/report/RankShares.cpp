//===- RankShares.cpp - What --stats says of data-parallel ranks ----------===//
//
// In the update step at Stage::Step, every distributed group is
//   %mine = comm.shard %stack world_size = N     ([K'/N, R, C] per rank)
//   ...
//   %all = comm.all_gather %u world_size = N
//   gpt.slice %all[p, 0, 0]  for the positions p that hold a real matrix
// (the rest of the K' positions are padding). Rank r's share of the group
// is the real positions in [r K'/N, (r + 1) K'/N).
//
//===----------------------------------------------------------------------===//

#include "driver/report/RankShares.h"

#include "driver/Compile.h"
#include "driver/report/ReportTable.h"
#include "driver/report/StepStats.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/GPT/GPTDialect.h"
#include "frontend/Parameters.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <set>
#include <vector>

using namespace mlir;
using gptc::report::human;
using gptc::report::millis;

namespace gptc {

bool printNewtonSchulzShares(MLIRContext &ctx, const ModelSpec &spec,
                             Target target, bool fuse, llvm::raw_ostream &os) {
  const int64_t ranks = spec.training.ranks;
  if (ranks <= 1)
    return true;
  OwningOpRef<ModuleOp> module =
      compileToStage(ctx, spec, Stage::Step, target, fuse);
  if (!module)
    return false;
  std::vector<int64_t> matrices(size_t(ranks), 0), elements(size_t(ranks), 0);
  int64_t padding = 0;
  module->walk([&](comm::AllGatherOp gather) {
    auto type = cast<RankedTensorType>(gather.getInput().getType());
    int64_t per = type.getDimSize(0);
    int64_t size = type.getNumElements() / per;
    std::set<int64_t> real;
    for (Operation *user : gather.getResult().getUsers())
      if (auto slice = dyn_cast<gpt::SliceOp>(user))
        real.insert(slice.getOffsets()[0]);
    padding += per * ranks - int64_t(real.size());
    for (int64_t p : real) {
      matrices[size_t(p / per)] += 1;
      elements[size_t(p / per)] += size;
    }
  });
  os << "Newton-Schulz over " << ranks << " ranks (round-robin in each "
     << "same-shape group):";
  for (int64_t r = 0; r < ranks; ++r)
    os << (r ? "," : "") << " rank " << r << " " << matrices[size_t(r)]
       << " matrices (" << elements[size_t(r)] << " elements)";
  os << "; " << padding << " padding matri" << (padding == 1 ? "x" : "ces")
     << "\n";
  return true;
}

/// The communication of a data-parallel step on N H100s, 8 a node (an
/// HGX H100 board, the record's machine): the gradients' all-reduce (time =
/// bytes x 2 (N-1)/N / bus bandwidth, nccl-tests' definition) and the
/// all-gather of the Muon updates ((N-1)/N of them). Inside one node over
/// NVLink 4: all-reduce at the ~480 GB/s bus bandwidth NCCL reaches on 8
/// H100s with NVLink SHARP, all-gather at the 370 GB/s it reaches without.
/// Across nodes a ring crosses the network once a node through each GPU's
/// own NIC: the bus bandwidth is the node's NICs', 8 x NDR 400 Gb/s at the
/// 47 GB/s NCCL reaches on one, 376 GB/s (docs/design/cuda.md, "The cost
/// model of --stats", for the sources).
double printDataParallelCost(const ModelSpec &spec, llvm::raw_ostream &os,
                             const report::EntryStats *grad) {
  constexpr double kAllReduceBusBytesPerSecond = 480e9;
  constexpr double kAllGatherBusBytesPerSecond = 370e9;
  constexpr int64_t kGpusPerNode = 8;
  constexpr double kNodeNetworkBusBytesPerSecond = kGpusPerNode * 47e9;
  const int64_t rankCount = spec.training.ranks > 1 ? spec.training.ranks : 8;
  const int64_t nodes = (rankCount + kGpusPerNode - 1) / kGpusPerNode;
  const double ranks = static_cast<double>(rankCount);
  double gradBytes = 0, hiddenBytes = 0;
  std::vector<ParameterInfo> params = enumerateParameters(spec);
  // A spec that compiled has its groups assigned; should one not, its
  // gradients count as f32.
  bool grouped = assignGroups(spec, params).empty();
  for (const ParameterInfo &p : params) {
    double n = 1;
    for (int64_t d : p.shape)
      n *= double(d);
    // f32 gradients, or bf16 on the wire (grad_reduce: bf16); f32 updates.
    bool bf16 = grouped && spec.groups[p.group].gradReduce == GradReduce::BF16;
    gradBytes += n * (bf16 ? 2 : 4);
    if (p.shape.size() >= 2 && StringRef(p.name).starts_with("blocks."))
      hiddenBytes += n * 4;
  }
  double reduceBus = kAllReduceBusBytesPerSecond;
  double gatherBus = kAllGatherBusBytesPerSecond;
  if (nodes > 1) {
    reduceBus = std::min(reduceBus, kNodeNetworkBusBytesPerSecond);
    gatherBus = std::min(gatherBus, kNodeNetworkBusBytesPerSecond);
  }
  auto reduceSeconds = [&](double bytes) {
    return 2 * (ranks - 1) / ranks * bytes / reduceBus;
  };
  double reduce = reduceSeconds(gradBytes);
  double gather = (ranks - 1) / ranks * hiddenBytes / gatherBus;
  // The runtime's buckets (--bucket-mb's default, runtime/comm) on the
  // communication stream beside the rest of the backward.
  constexpr double kBucketBytes = 25 << 20;
  bool overlapped =
      spec.training.ranks > 1 && grad && !grad->allReduceSites.empty();
  double exposed =
      overlapped ? cost::exposedReduceSeconds(grad->reduceStarts(),
                                              grad->calibratedKernelSeconds +
                                                  grad->calibratedGemmSeconds,
                                              kBucketBytes, reduceSeconds)
                 : reduce;
  os << "  on " << rankCount << " ranks ";
  if (nodes > 1)
    os << "on " << nodes << " nodes of " << kGpusPerNode
       << " (NVLink 4 inside, 8 x NDR 400 Gb/s InfiniBand between; NCCL bus "
          "bandwidth: all-reduce ";
  else
    os << "over NVLink 4 (NCCL bus bandwidth: all-reduce ";
  os << llvm::format("%.0f", reduceBus / 1e9) << " GB/s, all-gather "
     << llvm::format("%.0f", gatherBus / 1e9) << " GB/s): all-reduce of "
     << human(static_cast<int64_t>(gradBytes)) << "B of gradients "
     << millis(reduce) << " ms, all-gather of "
     << human(static_cast<int64_t>(hiddenBytes)) << "B of Muon updates "
     << millis(gather) << " ms per step ("
     << (spec.training.ranks <= 1 ? "if the spec ran on 8 ranks"
         : overlapped
             ? llvm::formatv("the all-reduce in {0} MiB buckets on a "
                             "communication stream beside the backward: {1} "
                             "ms of it after the backward's end, in the "
                             "estimate with the all-gather",
                             int64_t(kBucketBytes) >> 20, millis(exposed))
                   .str()
             : std::string("added whole to the estimate"))
     << ")\n";
  return spec.training.ranks > 1 ? exposed + gather : 0.0;
}

} // namespace gptc
