//===- MemoryEstimate.cpp - Training memory of one rank -------------------===//

#include "driver/MemoryEstimate.h"

#include "dialects/GPT/GPTDialect.h"
#include "driver/Compile.h"
#include "frontend/CompileCost.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"

#include <string>

namespace gptc {

namespace {

/// The compile memory (CompileCost.h) up to which check plans the arena.
constexpr int64_t kMaxPlanMiB = 512;

std::string gib(int64_t bytes) { return runtime::memoryText(bytes); }

} // namespace

std::string h100Fit(int64_t bytes) {
  return runtime::memoryText(bytes) + " of an H100's " +
         runtime::memoryText(kH100MemoryBytes) + " (nvidia-smi, SXM5 80 GB): " +
         (bytes <= kH100MemoryBytes
              ? "fits, " + runtime::memoryText(kH100MemoryBytes - bytes) +
                    " to spare"
              : std::string("does not fit: fewer tokens per rank "
                            "(training.device_batch or training.seq_len) or "
                            "more ranks"));
}

bool printMemoryEstimate(mlir::MLIRContext &ctx, const ModelSpec &spec,
                         Target target, bool fuse, llvm::raw_ostream &os) {
  // Planning the arena compiles the spec to its buffers: seconds for the
  // record-sized specs, minutes for a model of a thousand layers, which
  // check leaves to gptc compile.
  if (int64_t mib = expectedCompileMemoryMiB(spec); mib > kMaxPlanMiB) {
    os << "  memory:    not estimated: planning the arena compiles the spec "
          "(about "
       << mib << " MiB, over the " << kMaxPlanMiB
       << " MiB check spends); gptc compile -o DIR writes it as the "
          "manifest's arena_bytes\n";
    return true;
  }
  mlir::OwningOpRef<mlir::ModuleOp> module =
      compileToStage(ctx, spec, Stage::Buffers, target, fuse);
  if (!module)
    return false;
  auto arena = (*module)->getAttrOfType<mlir::gpt::ArenaLayoutAttr>(
      mlir::gpt::ArenaLayoutAttr::kAttrName);
  if (!arena)
    return false;
  int64_t params = 0, grads = 0, state = 0, other = 0;
  for (mlir::gpt::ArenaSlotAttr slot : arena.getSlots()) {
    auto type = slot.getType();
    int64_t bytes = type.getNumElements() *
                    int64_t((type.getElementTypeBitWidth() + 7) / 8);
    llvm::StringRef name = slot.getName();
    (name.starts_with("param.")   ? params
     : name.starts_with("grad.")  ? grads
     : name.starts_with("state.") ? state
                                  : other) += bytes;
  }
  const int64_t total = arena.getBytes();
  const int64_t workspace = arena.getWorkspaceBytes();
  const int64_t need =
      target == Target::CPU ? total + kRuntimeOverheadBytes : total;
  os << "  memory:    " << gib(need) << " per rank"
     << (target == Target::CUDA ? " of device memory" : "") << ": parameters "
     << gib(params) << ", gradients " << gib(grads) << ", optimizer state "
     << gib(state) << ", batch and scalars " << gib(other)
     << ", activations and temporaries " << gib(workspace)
     << " (the arena, as planned)";
  if (target == Target::CPU)
    os << " + about " << gib(kRuntimeOverheadBytes) << " of runtime";
  os << "\n";
  if (target == Target::CUDA)
    os << "             " << h100Fit(need) << "\n";
  if (runtime::AvailableMemory memory = runtime::availableMemory();
      memory.bytes >= 0 && target == Target::CPU) {
    os << "             " << memory.described;
    if (need > memory.bytes)
      os << ": the run does not fit (fewer tokens per rank: "
            "training.device_batch or training.seq_len; or more ranks)";
    os << "\n";
  }
  return true;
}

} // namespace gptc
