//===- Manifest.cpp - manifest.json of a step bundle ----------------------===//

#include "tools/gptc/Manifest.h"

#include "frontend/Parameters.h"
#include "runtime/Files.h"
#include "runtime/Manifest.h"
#include "runtime/StepLayout.h"

#include "dialects/GPT/GPTDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace gptc {
namespace {

std::string dtypeName(Type t) {
  if (t.isF32())
    return "f32";
  if (t.isF64())
    return "f64";
  if (t.isBF16())
    return "bf16";
  if (t.isInteger(32))
    return "i32";
  if (t.isInteger(64))
    return "i64";
  return "unknown";
}

llvm::json::Array shapeOf(ArrayRef<int64_t> shape) {
  llvm::json::Array a;
  for (int64_t d : shape)
    a.push_back(d);
  return a;
}

const char *initName(InitRule rule) {
  switch (rule) {
  case InitRule::Normal:
    return "normal";
  case InitRule::Zero:
    return "zeros";
  case InitRule::Ones:
    return "ones";
  case InitRule::Constant:
  case InitRule::Values:
    return "values";
  }
  return "normal";
}

/// The value of the string global `name` (without its NUL), or "".
std::string exportedString(ModuleOp module, StringRef name) {
  auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
  auto value = global ? dyn_cast_or_null<StringAttr>(global.getValueOrNull())
                      : StringAttr();
  return value ? value.getValue().rtrim('\0').str() : std::string();
}

/// The defaults of `gptc train` for this bundle (its command line overrides
/// them): the runtime reads no spec.
llvm::json::Object runDefaults(const ModelSpec &spec) {
  return llvm::json::Object{
      {"steps", spec.training.steps},
      {"seed", spec.training.seed},
      {"train", spec.data.train},
      {"val", spec.data.val},
      {"val_every", spec.validation.every},
      {"val_tokens", spec.validation.tokens},
      {"timing_skip_steps", spec.training.timingSkipSteps}};
}

} // namespace

bool readExportedLayout(ModuleOp module, ExportedLayout &exported,
                        std::string &error) {
  exported.arena = module->getAttrOfType<gpt::ArenaLayoutAttr>(
      gpt::ArenaLayoutAttr::kAttrName);
  exported.hash = exportedString(module, gptc::layout::kLayoutHashSymbol);
  if (!exported.arena || exported.hash.empty()) {
    error = "the module has no exported arena layout (gptc-build-step and "
            "gptc-export-layout did not run)";
    return false;
  }
  return true;
}

bool writeManifest(const ExportedLayout &exported, const ModelSpec &spec,
                   Target target, const StepLibraryFile &library,
                   const CPUDescription &hostCpu, const std::string &path,
                   std::string &error) {
  auto layout = cast<gpt::ArenaLayoutAttr>(exported.arena);
  const std::string &layoutHash = exported.hash;
  llvm::json::Array slotArray;
  for (gpt::ArenaSlotAttr slot : layout.getSlots())
    slotArray.push_back(llvm::json::Object{
        {"name", slot.getName().str()},
        {"offset", slot.getOffset()},
        {"dtype", dtypeName(slot.getType().getElementType())},
        {"shape", shapeOf(slot.getType().getShape())}});

  std::vector<ParameterInfo> params = enumerateParameters(spec);
  error = assignGroups(spec, params);
  if (!error.empty())
    return false;
  llvm::json::Array paramArray;
  for (const ParameterInfo &p : params) {
    llvm::json::Array values;
    if (p.init == InitRule::Values)
      for (double v : p.initValues)
        values.push_back(v);
    else if (p.init == InitRule::Constant) {
      int64_t n = 1;
      for (int64_t d : p.shape)
        n *= d;
      for (int64_t i = 0; i < n; ++i)
        values.push_back(p.initValue);
    }
    const OptimizerGroup &g = spec.groups[p.group];
    paramArray.push_back(llvm::json::Object{
        {"name", p.name},
        {"shape", shapeOf(p.shape)},
        {"init", initName(p.init)},
        {"std", p.init == InitRule::Normal ? p.initValue : 0.0},
        {"values", std::move(values)},
        {"group", g.name},
        {"optimizer", toString(g.kind)}});
  }

  const TrainingSpec &t = spec.training;
  llvm::json::Object manifest{
      {"format", gptc::runtime::kManifestFormat},
      {"compiler", "gptc 0.1.0"},
      {"spec_name", spec.name},
      {"target", target == Target::CUDA ? "cuda" : "cpu"},
      {"dtype", toString(t.dtype)},
      {"arena_bytes", layout.getBytes()},
      {"workspace", llvm::json::Object{{"offset", layout.getWorkspaceOffset()},
                                       {"bytes", layout.getWorkspaceBytes()}}},
      {"layout_sha256", layoutHash},
      {"step_library", llvm::json::Object{{"file", library.file},
                                          {"bytes", library.bytes},
                                          {"sha256", library.sha256}}},
      {"host_cpu",
       llvm::json::Object{{"name", hostCpu.name},
                          {"features", llvm::json::Array(hostCpu.features)}}},
      {"device_batch", t.deviceBatch},
      {"seq_len", t.seqLen},
      {"grad_accum", t.gradAccum()},
      {"ranks", t.ranks},
      {"vocab_size", spec.model.vocabSize},
      {"padded_vocab", spec.model.paddedVocab()},
      {"bos_token", spec.model.attention.bosToken},
      {"run", runDefaults(spec)},
      {"divergence_factor", t.divergenceFactor},
      {"slots", std::move(slotArray)},
      {"params", std::move(paramArray)}};

  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest))) << "\n";
  return runtime::writeFileAtomically(
      path,
      [&](std::FILE *f, std::string &err) {
        if (std::fwrite(text.data(), 1, text.size(), f) == text.size())
          return true;
        err = "cannot write " + path;
        return false;
      },
      error);
}

} // namespace gptc
