//===- Manifest.cpp - manifest.json of a step bundle ----------------------===//

#include "tools/gptc/Manifest.h"

#include "frontend/Parameters.h"
#include "runtime/Manifest.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FileSystem.h"
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

/// {offset, bytes} of the temporaries' region of the arena
/// (gptc-plan-buffers), {0, 0} when there is none.
llvm::json::Object workspaceOf(ModuleOp module) {
  int64_t offset = 0, bytes = 0;
  if (auto ws = module->getAttrOfType<DictionaryAttr>("gptc.workspace")) {
    offset = cast<IntegerAttr>(ws.get("offset")).getInt();
    bytes = cast<IntegerAttr>(ws.get("bytes")).getInt();
  }
  return llvm::json::Object{{"offset", offset}, {"bytes", bytes}};
}

} // namespace

bool writeManifest(ModuleOp module, const ModelSpec &spec,
                   const std::string &path, std::string &error) {
  auto slots = module->getAttrOfType<ArrayAttr>("gptc.arena");
  auto bytes = module->getAttrOfType<IntegerAttr>("gptc.arena_bytes");
  if (!slots || !bytes) {
    error = "the module has no arena layout (gptc-build-step did not run)";
    return false;
  }
  llvm::json::Array slotArray;
  bool windowed = false;
  for (Attribute a : slots) {
    auto d = cast<DictionaryAttr>(a);
    auto type = cast<RankedTensorType>(
        cast<TypeAttr>(d.get("type")).getValue());
    std::string name = cast<StringAttr>(d.get("name")).str();
    windowed |= name == "window";
    slotArray.push_back(llvm::json::Object{
        {"name", name},
        {"offset", cast<IntegerAttr>(d.get("offset")).getInt()},
        {"dtype", dtypeName(type.getElementType())},
        {"shape", shapeOf(type.getShape())}});
  }

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
      {"target", "cpu"},
      {"dtype", toString(t.dtype)},
      {"arena_bytes", bytes.getInt()},
      {"workspace", workspaceOf(module)},
      {"device_batch", t.deviceBatch},
      {"seq_len", t.seqLen},
      {"grad_accum", t.gradAccum()},
      {"ranks", t.ranks},
      {"vocab_size", spec.model.vocabSize},
      {"padded_vocab", spec.model.paddedVocab()},
      {"bos_token", spec.model.attention.bosToken},
      {"windowed", windowed},
      {"divergence_factor", t.divergenceFactor},
      {"slots", std::move(slotArray)},
      {"params", std::move(paramArray)}};

  std::string tmp = path + ".tmp";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(tmp, ec);
    if (ec) {
      error = "cannot write " + tmp + ": " + ec.message();
      return false;
    }
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest)))
       << "\n";
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmp, path)) {
    error = "cannot write " + path + ": " + ec.message();
    return false;
  }
  return true;
}

} // namespace gptc
