//===- Manifest.h - manifest.json of a compiled step ------------*- C++ -*-===//
//
// The plain-struct form of a bundle's manifest.json (docs/artifact.md): the
// arena size, the batch shape, every arena slot and every parameter's
// initialisation rule. readManifest() checks everything the runtime relies
// on (required fields and slots, dtypes, slots inside the arena and not
// overlapping, parameter slots matching the parameter shapes, ...) and
// reports the first problem as one line naming the file and the field.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_MANIFEST_H
#define GPTC_RUNTIME_MANIFEST_H

#include <cstdint>
#include <string>
#include <vector>

namespace gptc {
namespace runtime {

/// The element type of a slot.
enum class SlotType { I32, I64, F32, F64, BF16 };

/// "i32", "i64", "f32", "f64", "bf16".
const char *toString(SlotType t);
/// Bytes per element.
int64_t byteWidth(SlotType t);
/// "[264, 64]" (a shape in error lines).
std::string shapeText(const std::vector<int64_t> &shape);

/// A named region of the arena.
struct Slot {
  std::string name;
  int64_t offset = 0; ///< bytes from the arena base, 64-byte aligned
  SlotType dtype = SlotType::F32;
  std::vector<int64_t> shape; ///< empty for a 0-d slot
  int64_t numElements() const;
  int64_t numBytes() const { return numElements() * byteWidth(dtype); }
};

enum class ParamInit { Normal, Zeros, Ones, Values };

/// One trainable parameter; its data lives in slot "param.NAME".
struct ParamEntry {
  std::string name;
  std::vector<int64_t> shape;
  ParamInit init = ParamInit::Normal;
  double stddev = 0.0;        ///< Normal only: the "std" field
  std::vector<double> values; ///< Values only: one per element
  std::string group;          ///< the optimizer group
  std::string optimizer;      ///< "adam" or "muon"
};

/// What `gptc train` does with a bundle unless its command line says
/// otherwise (the spec's training, data and validation keys).
struct RunDefaults {
  int64_t steps = 0, seed = 0;
  std::string train, val; ///< shard globs
  int64_t valEvery = 0, valTokens = 0, timingSkipSteps = 0;
};

/// The bundle's step library: file name (in the bundle), size and SHA-256.
struct StepLibraryFile {
  std::string file;
  int64_t bytes = 0;
  std::string sha256;
};

struct Manifest {
  std::string path; ///< the file it was read from (for messages)
  std::string format, compiler, specName, target;
  std::string dtype; ///< the training dtype: "f32", "bf16" or "f64"
  int64_t arenaBytes = 0;
  /// The step's temporaries: [offset, offset + bytes), after the slots.
  int64_t workspaceOffset = 0, workspaceBytes = 0;
  /// SHA-256 of the layout descriptor (runtime/StepLayout.h).
  std::string layoutSha256;
  StepLibraryFile stepLibrary;
  /// host_cpu: the CPU step.so's code was compiled for (LLVM's name) and
  /// the instruction set features it may use (runtime/HostCpu.h); empty
  /// when the manifest does not say.
  std::string hostCpuName;
  std::vector<std::string> hostCpuFeatures;
  int64_t deviceBatch = 0, seqLen = 0, gradAccum = 1, ranks = 1;
  int64_t vocabSize = 0, paddedVocab = 0, bosToken = -1;
  /// The model FLOPs of one optimizer step on one rank: its matrix products
  /// (gptc-count-step-flops; attention at the pairs its mask allows at
  /// most). 0 when the manifest does not say. gptc train's MFU.
  int64_t stepFlops = 0;
  /// model.attention.document_mask: attention within documents, each
  /// starting with bosToken (absent in older manifests: false).
  bool documentMask = false;
  RunDefaults run;
  /// training.divergence_factor (runtime/Divergence.h); 0 = off or absent.
  double divergenceFactor = 0.0;
  std::vector<Slot> slots;
  std::vector<ParamEntry> params;
  /// The optimizer groups' base learning rates, in the spec's order (the
  /// step multiplies them by the schedule's lr_mult); empty in manifests
  /// of a gptc that did not write them.
  struct GroupRate {
    std::string name;
    double lr = 0;
  };
  std::vector<GroupRate> groupRates;

  /// The slot called `name`, or null.
  const Slot *findSlot(const std::string &name) const;
  /// Tokens of one micro-step (B*T).
  int64_t microBatchTokens() const { return deviceBatch * seqLen; }
  /// The layout descriptor text of this manifest (runtime/StepLayout.h),
  /// slots in manifest order.
  std::string layoutText() const;
};

/// The format this runtime reads.
constexpr const char *kManifestFormat = "gptc-step/3";

/// The manifest JSON of `m` (keys sorted, two-space indent, a final
/// newline): what `gptc compile` writes and parseManifest reads back; the
/// one place the file's fields are spelled for writing. `path` is not
/// written.
std::string renderManifest(const Manifest &m);

/// The SHA-256 of renderManifest(m) with m's step_library blank: what the
/// compiler embeds in step.so (layout::kManifestHashSymbol) before it knows
/// the library's own hash, and openBundle checks, so that an edit of any
/// field of manifest.json (target, ranks, parameters and their inits, run
/// defaults) is refused.
std::string manifestBodySha256(const Manifest &m);

/// "normal", "zeros", "ones", "values".
const char *toString(ParamInit init);

/// Parses and checks manifest JSON text; `fileName` prefixes messages.
/// Returns false and sets `error` ("FILE: FIELD: problem").
bool parseManifest(const std::string &text, const std::string &fileName,
                   Manifest &out, std::string &error);

/// Reads and checks the manifest at `path`.
bool readManifest(const std::string &path, Manifest &out, std::string &error);

} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_MANIFEST_H
