//===- ManifestWriter.cpp - manifest.json of a step bundle ----------------===//

#include "driver/ManifestWriter.h"

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

/// The runtime's slot type of an arena slot's element type.
std::optional<runtime::SlotType> slotType(Type t) {
  if (t.isF32())
    return runtime::SlotType::F32;
  if (t.isF64())
    return runtime::SlotType::F64;
  if (t.isBF16())
    return runtime::SlotType::BF16;
  if (t.isInteger(32))
    return runtime::SlotType::I32;
  if (t.isInteger(64))
    return runtime::SlotType::I64;
  return std::nullopt;
}

runtime::ParamInit paramInit(InitRule rule) {
  switch (rule) {
  case InitRule::Normal:
    return runtime::ParamInit::Normal;
  case InitRule::Zero:
    return runtime::ParamInit::Zeros;
  case InitRule::Ones:
    return runtime::ParamInit::Ones;
  case InitRule::Constant:
  case InitRule::Values:
    return runtime::ParamInit::Values;
  }
  return runtime::ParamInit::Normal;
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
runtime::RunDefaults runDefaults(const ModelSpec &spec) {
  runtime::RunDefaults run;
  run.steps = spec.training.steps;
  run.seed = spec.training.seed;
  run.train = spec.data.train;
  run.val = spec.data.val;
  run.valEvery = spec.validation.every;
  run.valTokens = spec.validation.tokens;
  run.timingSkipSteps = spec.training.timingSkipSteps;
  return run;
}

} // namespace

bool readExportedLayout(ModuleOp module, ExportedLayout &exported,
                        std::string &error) {
  exported.arena = module->getAttrOfType<gpt::ArenaLayoutAttr>(
      gpt::ArenaLayoutAttr::kAttrName);
  exported.hash = exportedString(module, gptc::layout::kLayoutHashSymbol);
  if (auto flops = module->getAttrOfType<IntegerAttr>("gptc.step_flops"))
    exported.stepFlops = flops.getInt();
  if (!exported.arena || exported.hash.empty()) {
    error = "the module has no exported arena layout (gptc-build-step and "
            "gptc-export-layout did not run)";
    return false;
  }
  return true;
}

bool buildManifest(const ExportedLayout &exported, const ModelSpec &spec,
                   Target target, const CPUDescription &hostCpu,
                   runtime::Manifest &m, std::string &error) {
  auto layout = cast<gpt::ArenaLayoutAttr>(exported.arena);
  m = runtime::Manifest();
  for (gpt::ArenaSlotAttr slot : layout.getSlots()) {
    std::optional<runtime::SlotType> dtype =
        slotType(slot.getType().getElementType());
    if (!dtype) {
      error = "arena slot " + slot.getName().str() +
              ": an element type the runtime cannot hold";
      return false;
    }
    m.slots.push_back({slot.getName().str(), slot.getOffset(), *dtype,
                       slot.getType().getShape().vec()});
  }

  std::vector<ParameterInfo> params = enumerateParameters(spec);
  error = assignGroups(spec, params);
  if (!error.empty())
    return false;
  for (const ParameterInfo &p : params) {
    runtime::ParamEntry entry;
    entry.name = p.name;
    entry.shape = p.shape;
    entry.init = paramInit(p.init);
    if (p.init == InitRule::Normal)
      entry.stddev = p.initValue;
    if (p.init == InitRule::Values)
      entry.values = p.initValues;
    else if (p.init == InitRule::Constant) {
      int64_t n = 1;
      for (int64_t d : p.shape)
        n *= d;
      entry.values.assign(n, p.initValue);
    }
    const OptimizerGroup &g = spec.groups[p.group];
    entry.group = g.name;
    entry.optimizer = toString(g.kind);
    m.params.push_back(std::move(entry));
  }

  for (const OptimizerGroup &g : spec.groups)
    m.groupRates.push_back({g.name, g.lr});
  const TrainingSpec &t = spec.training;
  m.format = runtime::kManifestFormat;
  m.compiler = "gptc 0.1.0";
  m.specName = spec.name;
  m.target = TargetDescription(target).name();
  m.dtype = toString(t.dtype);
  m.arenaBytes = layout.getBytes();
  m.workspaceOffset = layout.getWorkspaceOffset();
  m.workspaceBytes = layout.getWorkspaceBytes();
  m.layoutSha256 = exported.hash;
  m.hostCpuName = hostCpu.name;
  m.hostCpuFeatures = hostCpu.features;
  m.deviceBatch = t.deviceBatch;
  m.seqLen = t.seqLen;
  m.gradAccum = t.gradAccum();
  m.ranks = t.ranks;
  m.vocabSize = spec.model.vocabSize;
  m.paddedVocab = spec.model.paddedVocab();
  m.bosToken = spec.model.attention.bosToken;
  m.documentMask = spec.model.attention.documentMask;
  m.run = runDefaults(spec);
  m.divergenceFactor = t.divergenceFactor;
  m.stepFlops = exported.stepFlops;
  return true;
}

bool writeManifest(const runtime::Manifest &m, const std::string &path,
                   std::string &error) {
  std::string text = runtime::renderManifest(m);
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
