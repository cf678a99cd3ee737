//===- CompiledModule.cpp - Optim ops through the pipeline, JIT -----------===//

#include "unittests/Optim/CompiledModule.h"

#include "dialects/InitAllDialects.h"
#include "passes/Passes.h"
#include "passes/Pipeline.h"
#include "runtime/gptrt.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <mutex>

using namespace mlir;

namespace gptc::test {

namespace {

void registerOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerAllPasses();
    registerGPTCPasses();
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

/// The textual form of buildGPTCPipeline up to `stop`.
std::string pipelineText(MLIRContext &ctx, Stage stop) {
  PassManager pm(&ctx);
  PipelineOptions options;
  options.stopAfter = stop;
  buildGPTCPipeline(pm, options);
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  return text;
}

/// gptc-lower-optim on the module (it declares the SVD callees there), then
/// the passes buildGPTCPipeline adds after Stage::Step: the real pipeline's
/// text minus the text of its first stages, so the two cannot drift apart.
/// The step stage's other passes (gptc-build-step, inlining) need the
/// @forward / @update structure these modules do not have.
LogicalResult buildPipeline(PassManager &pm, std::string &error) {
  MLIRContext &ctx = *pm.getContext();
  std::string full = pipelineText(ctx, Stage::LLVM);
  std::string step = pipelineText(ctx, Stage::Step);
  // Both are "builtin.module(p1,p2,...)"; the second is a prefix of the
  // first up to its closing parenthesis.
  std::string stepPasses = step.substr(0, step.size() - 1);
  if (step.empty() || step.back() != ')' ||
      full.compare(0, stepPasses.size(), stepPasses) != 0 ||
      full[stepPasses.size()] != ',') {
    error = "unexpected pipeline text: " + full;
    return failure();
  }
  // The passes only (pm is the module's pass manager already).
  std::string text =
      "gptc-lower-optim,canonicalize,cse," + full.substr(stepPasses.size() + 1);
  text.pop_back();
  if (failed(parsePassPipeline(text, pm))) {
    error = "cannot parse the pipeline " + text;
    return failure();
  }
  return success();
}

/// The runtime callbacks step.so binds to its loading process.
llvm::orc::SymbolMap runtimeSymbols(llvm::orc::MangleAndInterner mangle) {
  llvm::orc::SymbolMap map;
  auto add = [&](const char *name, auto *fn) {
    map[mangle(name)] = {llvm::orc::ExecutorAddr::fromPtr(fn),
                         llvm::JITSymbolFlags::Exported};
  };
  add("gptc_gemm_f32", &gptc_gemm_f32);
  add("gptc_gemm_f64", &gptc_gemm_f64);
  add("gptc_gemm_bf16", &gptc_gemm_bf16);
  add("_mlir_ciface_gptc_svd_orthogonalize_f32",
      &_mlir_ciface_gptc_svd_orthogonalize_f32);
  add("_mlir_ciface_gptc_svd_orthogonalize_f64",
      &_mlir_ciface_gptc_svd_orthogonalize_f64);
  return map;
}

template <int R>
void callRank(void *fn, const std::vector<int64_t> &shape, void *in,
              void *out) {
  // The element type only fixes the pointers' type: the layout is the same.
  using Ref = StridedMemRefType<char, R>;
  auto ref = [&](void *data) {
    Ref r{};
    r.basePtr = r.data = static_cast<char *>(data);
    r.offset = 0;
    int64_t stride = 1;
    for (int d = R - 1; d >= 0; --d) {
      r.sizes[d] = shape[d];
      r.strides[d] = stride;
      stride *= shape[d];
    }
    return r;
  };
  Ref a = ref(in), b = ref(out);
  reinterpret_cast<void (*)(Ref *, Ref *)>(fn)(&a, &b);
}

} // namespace

std::unique_ptr<CompiledModule>
CompiledModule::compile(const std::string &source, std::string &error) {
  registerOnce();
  std::unique_ptr<CompiledModule> compiled(new CompiledModule());
  MLIRContext &ctx = compiled->context;
  DialectRegistry registry;
  gptc::registerAllDialects(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  ctx.appendDialectRegistry(registry);
  ctx.loadAllAvailableDialects();

  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    if (error.empty())
      error = diag.str();
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
  if (!module)
    return nullptr;
  PassManager pm(&ctx);
  if (failed(buildPipeline(pm, error)) || failed(pm.run(*module)))
    return nullptr;

  ExecutionEngineOptions options;
  auto optimize = makeOptimizingTransformer(3, 0, nullptr);
  options.transformer = optimize;
  options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  auto engine = ExecutionEngine::create(*module, options);
  if (!engine) {
    error = llvm::toString(engine.takeError());
    return nullptr;
  }
  compiled->engine = std::move(*engine);
  compiled->engine->registerSymbols(runtimeSymbols);
  return compiled;
}

bool CompiledModule::runPacked(const std::string &name,
                               const std::vector<int64_t> &shape, void *in,
                               void *out) const {
  auto fn = engine->lookup("_mlir_ciface_" + name);
  if (!fn) {
    llvm::consumeError(fn.takeError());
    return false;
  }
  switch (shape.size()) {
  case 2:
    callRank<2>(*fn, shape, in, out);
    return true;
  case 3:
    callRank<3>(*fn, shape, in, out);
    return true;
  case 4:
    callRank<4>(*fn, shape, in, out);
    return true;
  default:
    return false;
  }
}

std::string memrefType(const std::vector<int64_t> &shape,
                       const std::string &elt) {
  std::string t = "memref<";
  for (int64_t d : shape)
    t += std::to_string(d) + "x";
  return t + elt + ">";
}

std::string tensorType(const std::vector<int64_t> &shape,
                       const std::string &elt) {
  return "tensor" + memrefType(shape, elt).substr(std::strlen("memref"));
}

std::string wrapperName(const char *kind, size_t i) {
  return std::string(kind) + "_" + std::to_string(i);
}

std::string wrapperFunction(const std::string &name,
                            const std::vector<int64_t> &shape,
                            const std::string &elt, const std::string &body) {
  std::string m = memrefType(shape, elt), t = tensorType(shape, elt);
  std::string text = "func.func @" + name + "(%in: " + m + ", %out: " + m +
                     ") attributes {llvm.emit_c_interface} {\n";
  text += "  %g = bufferization.to_tensor %in restrict : " + m + " to " + t;
  text += "\n" + body + "\n";
  text += "  bufferization.materialize_in_destination %o in restrict "
          "writable %out";
  text += " : (" + t + ", " + m + ") -> ()\n";
  return text + "  return\n}\n";
}

} // namespace gptc::test
