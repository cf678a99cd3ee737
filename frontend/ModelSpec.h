//===- ModelSpec.h - Plain structs describing a gptc spec -------*- C++ -*-===//
//
// The result of parsing and validating a YAML spec (see SpecParser.h). No
// MLIR here: MLIRGen reads these structs and builds the `gpt` forward graph.
// Every key of the YAML schema maps to exactly one field below; the schema
// table in SpecSchema.cpp is the single source of truth for names, types,
// defaults and documentation (models/README.md is generated from it).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_FRONTEND_MODELSPEC_H
#define GPTC_FRONTEND_MODELSPEC_H

#include "frontend/OptimizerKind.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gptc {

/// A position in a spec file (or in a `--set` override).
struct SourceLoc {
  std::string file;
  int line = 0; // 1-based; 0 = unknown
  int col = 0;  // 1-based
  std::string str() const {
    return file + ":" + std::to_string(line) + ":" + std::to_string(col);
  }
};

enum class DType { F32, BF16, F64 };
enum class Activation { Gelu, ReLU2 };
enum class QKVLayout { Fused, Separate };
enum class QKNorm { None, AfterRotary, BeforeRotary };
enum class Rotary { Standard, HalfTruncated };
enum class Softcap { None, Tanh, Sigmoid };
enum class WindowUnit { None, Tokens, Blocks, RecordBlocks };
enum class Rounding { Floor, Ceil };
enum class LayerWindow { Long, Short };
enum class ValueEmbeddings { None, Mirrored, Ends };
enum class MomentumForm { Sum, Lerp };
enum class NSForm { ApplyThenCombine, PolynomialThenApply };
enum class NSBackend { NewtonSchulz, SVD };
/// Where Newton-Schulz takes the Frobenius norm it divides by: of the bf16
/// cast (R5+: X = bf16(G); X /= |X| + eps) or of the f32 gradient before the
/// cast (R3-R4: X = bf16(G) / (|G| + eps)).
enum class NSNormalize { AfterCast, BeforeCast };
enum class UpdateScale { None, SqrtMaxDim, SqrtMax1Ratio };
enum class MuonDistribution { None, AllReduceFlat, AllGatherGrouped };
/// How an Adam group keeps its parameters and moments between steps: in the
/// training's compute type (f32, or f64 in an f64 bundle), or as bf16 (the
/// records' `model.bfloat16()` embeddings and scalars): read extended to the
/// compute type, updated there, rounded once when stored.
enum class ParamStorage { Compute, BF16 };
/// The type a group's gradients cross the ranks in: the compute type, or
/// bf16 (the records all-reduce their bf16 parameters' gradients in bf16):
/// each rank's gradient rounded to bf16, the mean rounded to bf16 and read
/// back extended. Half the bytes; N ranks then no longer equal one rank's
/// arithmetic. One rank exchanges nothing and rounds nothing.
enum class GradReduce { Compute, BF16 };

// Every field set by a spec key is value-initialised: its default is the
// schema's (SpecSchemaTable.cpp, `.byDefault`), applied by the parser, or
// the key is required. A ModelSpec that does not come from parseSpecFile /
// parseSpecString holds zeros there.

struct AttentionSpec {
  QKVLayout qkv{};
  QKNorm qkNorm{};
  Rotary rotary{};
  double rotaryBase{};
  double scale{}; ///< 0 means 1/sqrt(head_dim).
  bool causal{};
  bool documentMask{};
  int64_t bosToken{};
  WindowUnit windowUnit{};
  /// Window in tokens at step 0 and at the last step; equal = constant.
  int64_t windowStart{};
  int64_t windowEnd{};
  int64_t windowGranularity{}; ///< tokens; the window is rounded to this.
  Rounding windowRounding{};
  /// Per-layer long/short pattern (short = long / 2); empty = all long.
  std::vector<LayerWindow> layerWindows;
};

struct ModelShape {
  int64_t vocabSize{};
  int64_t vocabPadMultiple{}; ///< padded vocab = round up to this.
  int64_t nLayer{};
  int64_t dModel{};
  int64_t nHead{};
  int64_t headDim{};
  int64_t mlpRatio{};
  Activation activation{};
  bool tiedEmbedding{};
  bool embedNorm{};
  double normEps{};
  bool normEpsFromDtype{}; ///< eps = machine epsilon of training.dtype
  bool attnBranchScale{};  ///< R3-R4: attn branch * 1/sqrt(2 L)
  double initStd{};
  /// Std of the embedding tables' normal init; 0 = initStd.
  double embeddingInitStd{};
  bool lmHeadZeroInit{};
  bool outProjZeroInit{}; ///< attention output and MLP down proj
  bool shortcutX0{};      ///< x = l0 x + l1 x0 per block
  bool valueResidual{};   ///< layer 0's v mixed into later layers
  bool unetSkips{};
  ValueEmbeddings valueEmbeddings{};
  Softcap softcap{};
  double softcapValue{}; ///< tanh: c tanh(z/c); sigmoid: c sigmoid(z/s)
  double softcapScale{}; ///< the divisor s of the sigmoid form
  AttentionSpec attention;

  int64_t paddedVocab() const {
    return (vocabSize + vocabPadMultiple - 1) / vocabPadMultiple *
           vocabPadMultiple;
  }
  int64_t mlpHidden() const { return mlpRatio * dModel; }
};

/// One optimizer group: which parameters (glob patterns over parameter
/// names, see Parameters.h) and the optimizer's settings.
struct OptimizerGroup {
  std::string name;
  OptimizerKind kind{};
  std::vector<std::string> params;
  double lr{};
  double weightDecay{};
  // Muon.
  double momentum{};
  bool nesterov{};
  MomentumForm momentumForm{};
  int64_t momentumWarmupSteps{}; ///< 0 = constant momentum
  /// When momentumWarmupSteps is 0: it is round(this * training.steps)
  /// (SpecParser resolves it before the checks).
  double momentumWarmupFraction{};
  double momentumWarmupStart{};
  int64_t nsSteps{};
  std::vector<double> nsCoefficients{};
  double nsEps{};
  NSForm nsForm{};
  NSBackend nsBackend{};
  NSNormalize nsNormalize{};
  DType nsDtype{};
  UpdateScale updateScale{};
  bool qkvSplit{};
  MuonDistribution distribution{};
  // Adam.
  double beta1{};
  double beta2{};
  double eps{};
  bool decoupledWeightDecay{};
  bool biasCorrection{};
  ParamStorage storage{};
  GradReduce gradReduce{};
  SourceLoc loc; ///< the group's node
};

struct ScheduleSpec {
  int64_t warmupSteps{};
  /// When warmupSteps is 0: it is round(this * training.steps), at least 1
  /// (SpecParser resolves it before the checks).
  double warmupFraction{};
  /// Linear decay over the last `decaySteps` steps (or the last
  /// `decayFraction` of training when decaySteps == 0) from 1 to `lrFloor`:
  /// w = min((N - step) / D, 1); mult = w + (1 - w) * floor.
  int64_t decaySteps{};
  double decayFraction{};
  double lrFloor{};
};

struct TrainingSpec {
  int64_t seqLen{};
  int64_t deviceBatch{}; ///< sequences per micro-step per rank
  int64_t batch{};       ///< global sequences per optimizer step
  int64_t ranks{};
  int64_t steps{};
  int64_t seed{};
  DType dtype{};
  int64_t timingSkipSteps{};
  /// Stop when the loss exceeds this many times the first step's; 0 = off.
  double divergenceFactor{};
  int64_t gradAccum() const { return batch / (deviceBatch * ranks); }
};

struct ValidationSpec {
  int64_t every{}; ///< 0 = only at the end
  int64_t tokens{};
};

struct DataSpec {
  std::string train = "data/*_train_*.bin";
  std::string val = "data/*_val_*.bin";
};

/// Limits of the compiler itself (frontend/CompileCost.h).
struct CompileSpec {
  /// Refuse specs whose compile is expected to need more peak memory (MiB).
  int64_t memoryLimitMiB{};
};

struct ModelSpec {
  std::string name;
  std::string description;
  std::string file; ///< the spec's own file (after `extends` resolution)
  ModelShape model;
  std::vector<OptimizerGroup> groups;
  ScheduleSpec schedule;
  TrainingSpec training;
  ValidationSpec validation;
  DataSpec data;
  CompileSpec compile;
  /// Source location of every key that was set (dotted path, e.g.
  /// "model.attention.window_unit", "optimizer.groups.hidden.lr") and of
  /// every section ("model", "model.attention", ...). MLIRGen puts these on
  /// the ops it builds.
  std::map<std::string, SourceLoc> locs;
  /// The spec as one self-contained YAML document: `extends:` merged and
  /// `--set` overrides applied (what a bundle's spec.yaml holds).
  std::string resolvedYaml;

  /// The location of `path`, or of its nearest set ancestor, or the file.
  SourceLoc locOf(const std::string &path) const;
};

const char *toString(DType v);
const char *toString(Activation v);
const char *toString(QKNorm v);
const char *toString(WindowUnit v);
const char *toString(OptimizerKind v);
const char *toString(Softcap v);
const char *toString(ValueEmbeddings v);
const char *toString(QKVLayout v);
const char *toString(Rotary v);
const char *toString(Rounding v);
const char *toString(LayerWindow v);
const char *toString(MomentumForm v);
const char *toString(NSForm v);
const char *toString(NSBackend v);
const char *toString(NSNormalize v);
const char *toString(UpdateScale v);
const char *toString(MuonDistribution v);
const char *toString(ParamStorage v);
const char *toString(GradReduce v);

} // namespace gptc

#endif // GPTC_FRONTEND_MODELSPEC_H
