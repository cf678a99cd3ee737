//===- RankShares.cpp - Each rank's share of Newton-Schulz ----------------===//
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

#include "tools/gptc/RankShares.h"

#include "tools/gptc/Compile.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/GPT/GPTDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <set>
#include <vector>

using namespace mlir;

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

} // namespace gptc
