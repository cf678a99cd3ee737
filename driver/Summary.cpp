//===- Summary.cpp - Human-readable summary of a spec ---------------------===//

#include "driver/Summary.h"

#include "frontend/CompileCost.h"
#include "frontend/Parameters.h"

#include "llvm/Support/Format.h"

namespace gptc {

static int64_t numel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

static std::string maskText(const AttentionSpec &a) {
  std::string s = a.causal ? "causal" : "full";
  if (a.windowUnit != WindowUnit::None)
    s += " + sliding window (" + std::string(toString(a.windowUnit)) + ", " +
         std::to_string(a.windowStart) + " -> " + std::to_string(a.windowEnd) +
         " tokens)";
  if (a.documentMask)
    s += " + document (bos " + std::to_string(a.bosToken) + ")";
  return s;
}

void printSummary(const ModelSpec &spec, llvm::raw_ostream &os) {
  const ModelShape &m = spec.model;
  const TrainingSpec &t = spec.training;
  std::vector<ParameterInfo> params = enumerateParameters(spec);
  std::string error = assignGroups(spec, params);

  os << spec.name << " (" << spec.file << ")\n";
  os << "  model:     " << m.nLayer << " layers, d=" << m.dModel << ", "
     << m.nHead << "x" << m.headDim << " heads, vocab " << m.vocabSize
     << " (padded " << m.paddedVocab() << "), " << toString(m.activation)
     << " MLP x" << m.mlpRatio << ", " << (m.tiedEmbedding ? "tied" : "untied")
     << " head\n";
  os << "  attention: " << maskText(m.attention) << ", qk-norm "
     << toString(m.attention.qkNorm) << "\n";
  os << "  features: " << (m.embedNorm ? " embed-norm" : "")
     << (m.shortcutX0 ? " x0-shortcut" : "")
     << (m.valueResidual ? " value-residual" : "")
     << (m.unetSkips ? " unet-skips" : "")
     << (m.valueEmbeddings != ValueEmbeddings::None
             ? std::string(" value-embeddings(") + toString(m.valueEmbeddings) +
                   ")"
             : std::string())
     << " softcap(" << toString(m.softcap) << ")\n";
  os << "  batch:     " << t.batch << " x " << t.seqLen << " tokens per step ("
     << t.ranks << (t.ranks == 1 ? " rank x " : " ranks x ") << t.deviceBatch
     << " sequences x " << t.gradAccum() << " micro-steps), " << t.steps
     << " steps, " << toString(t.dtype) << "\n";
  // The schedule in steps, shares of training.steps resolved.
  const ScheduleSpec &sched = spec.schedule;
  const double decay = sched.decaySteps > 0
                           ? double(sched.decaySteps)
                           : sched.decayFraction * double(t.steps);
  os << "  schedule:  lr warm-up " << sched.warmupSteps << " steps, decay "
     << llvm::format("%g", decay) << " steps to x"
     << llvm::format("%g", sched.lrFloor);
  for (const OptimizerGroup &g : spec.groups)
    if (g.momentumWarmupSteps > 0)
      os << "; " << g.name << " momentum warm-up " << g.momentumWarmupSteps
         << " steps";
  os << "\n";

  int64_t total = 0;
  std::vector<int64_t> perGroup(spec.groups.size(), 0);
  std::vector<int64_t> countPerGroup(spec.groups.size(), 0);
  for (const ParameterInfo &p : params) {
    total += numel(p.shape);
    if (p.group >= 0) {
      perGroup[p.group] += numel(p.shape);
      countPerGroup[p.group] += 1;
    }
  }
  os << "  params:    " << params.size() << " tensors, "
     << llvm::format("%.3f", total / 1e6) << "M values\n";
  for (size_t i = 0; i < spec.groups.size(); ++i) {
    const OptimizerGroup &g = spec.groups[i];
    os << "    " << g.name << ": " << toString(g.kind) << " lr " << g.lr << ", "
       << countPerGroup[i] << " tensors, "
       << llvm::format("%.3f", perGroup[i] / 1e6) << "M values";
    if (g.storage == ParamStorage::BF16)
      os << ", stored in bf16";
    if (g.gradReduce == GradReduce::BF16)
      os << ", gradients averaged over the ranks in bf16";
    os << "\n";
  }
  os << "  compile:   about " << expectedCompileMemoryMiB(spec)
     << " MiB peak memory expected for a bundle (compile.memory_limit_mb "
     << spec.compile.memoryLimitMiB << ")\n";
  if (!error.empty())
    os << "  warning: " << error << "\n";
}

} // namespace gptc
