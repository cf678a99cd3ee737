//===- Compile.cpp - Spec -> IR stages and the step bundle ----------------===//

#include "driver/Compile.h"

#include "dialects/InitAllDialects.h"
#include "driver/DumpSpec.h"
#include "driver/KernelImages.h"
#include "driver/ManifestWriter.h"
#include "driver/ObjectCode.h"
#include "driver/PhaseTimes.h"
#include "frontend/MLIRGen.h"
#include "frontend/Parameters.h"
#include "frontend/SpecParser.h"
#include "runtime/Files.h"
#include "runtime/Manifest.h"
#include "runtime/Sha256.h"
#include "runtime/StepLayout.h"

#include <malloc.h>

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <map>

using namespace mlir;

namespace gptc {

void prepareContext(MLIRContext &ctx) {
  DialectRegistry registry;
  gptc::registerAllDialects(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  ctx.appendDialectRegistry(registry);
  ctx.loadAllAvailableDialects();
}

/// Points MLIR's NVVM target at the CUDA toolkit (for libdevice, which the
/// math functions of the kernels link against) when the environment names
/// none: CUDAToolkit_ROOT at configure time, or /usr/local/cuda.
static void locateCUDAToolkit() {
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *value = std::getenv(var); value && *value)
      return;
  ::setenv("CUDA_ROOT", GPTC_CUDA_TOOLKIT_DIR, /*overwrite=*/0);
}

/// Fails (with an error at the key) when `spec` needs something `target`
/// lacks past the gradient: the SVD backend is a LAPACK call of the CPU
/// runtime (runtime/cpu/Svd.cpp), which a device's kernels cannot make.
static LogicalResult checkTarget(MLIRContext &ctx, const ModelSpec &spec,
                                 Stage stage, Target target) {
  if (target == Target::CPU || stage <= Stage::Grad)
    return success();
  for (const OptimizerGroup &g : spec.groups) {
    if (g.kind != OptimizerKind::Muon || g.nsBackend != NSBackend::SVD)
      continue;
    std::string key = "optimizer.groups." + g.name + ".ns_backend";
    SourceLoc l = spec.locOf(key);
    return emitError(FileLineColLoc::get(&ctx, l.file, l.line, l.col))
           << key
           << ": the svd backend runs on the CPU only (LAPACK in the "
              "runtime); use newton_schulz for --target=cuda";
  }
  return success();
}

namespace {
/// Gives the heap's free pages back to the system after each module-level
/// pass. A pass's temporaries are freed in another order than they were
/// allocated, and the holes they leave would otherwise stay resident
/// under the next pass's (tiny-r08 at 64 layers to LLVM: a peak of 231
/// MiB instead of 244).
struct TrimHeapAfterPasses : PassInstrumentation {
  void runAfterPass(Pass *pass, Operation *op) override {
    if (isa<ModuleOp>(op))
      malloc_trim(0);
  }
};
} // namespace

/// Runs the pipeline of `options` (with the spec's accumulation and ranks)
/// on `module`, with gptc compile's --mlir-* flags.
static LogicalResult runPipeline(ModuleOp module, const ModelSpec &spec,
                                 PipelineOptions options,
                                 const StageDone &stageDone = {}) {
  if (options.target.isCUDA())
    locateCUDAToolkit();
  // --mlir-timing: the report is printed when `timing` goes out of scope,
  // after the pass managers'.
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope rootTiming = timing.getRootScope();
  options.gradAccum = spec.training.gradAccum();
  options.ranks = spec.training.ranks;
  auto run = [&](const PipelineOptions &part) {
    PassManager pm(module.getContext());
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    pm.enableTiming(rootTiming);
    buildGPTCPipeline(pm, part);
    pm.addInstrumentation(std::make_unique<TrimHeapAfterPasses>());
    return pm.run(module);
  };
  if (!stageDone)
    return run(options);
  // Stage by stage, as --from continues a dump: the same passes in the
  // same order.
  std::optional<Stage> from = options.startAfter;
  for (const StageInfo &info : stageTable()) {
    if ((from && info.stage <= *from) || info.stage > options.stopAfter)
      continue;
    PipelineOptions part = options;
    part.startAfter = from;
    part.stopAfter = info.stage;
    if (failed(run(part)))
      return failure();
    stageDone(info.name);
    from = info.stage;
  }
  return success();
}

StageDone pipelineStageTimes(PhaseTimes *times) {
  if (!times)
    return {};
  return [times](const char *stage) {
    times->end(std::string("MLIR pipeline: ") + stage);
  };
}

OwningOpRef<ModuleOp> compileToStage(MLIRContext &ctx, const ModelSpec &spec,
                                     Stage stage, Target target, bool fuse,
                                     bool kernelMarks,
                                     const StageDone &stageDone) {
  if (failed(checkTarget(ctx, spec, stage, target)))
    return nullptr;
  OwningOpRef<ModuleOp> module = buildForwardModule(ctx, spec);
  if (!module || failed(buildUpdateFunction(*module, spec)))
    return nullptr;
  PipelineOptions options;
  options.stopAfter = stage;
  options.target = TargetDescription(
      target, kernelMarks ? KernelForm::PairedWithCPU : KernelForm::Native);
  options.fuse = fuse;
  if (failed(runPipeline(*module, spec, options, stageDone)))
    return nullptr;
  return module;
}

void printEmbeddedSpec(const ModelSpec &spec, llvm::raw_ostream &os) {
  os << "\n// The resolved spec (gptc compile THIS_FILE -o DIR reads it):\n";
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(spec.resolvedYaml).rtrim('\n').split(lines, '\n');
  for (llvm::StringRef line : lines)
    os << kEmbeddedSpecPrefix << line << "\n";
}

std::string emitHeader(const ModelSpec &spec, Stage stage, Target target,
                       bool fuse) {
  return std::string("// gptc compile --emit=") + stageName(stage) +
         " --target=" + TargetDescription(target).name() +
         (fuse ? "" : " --no-fuse") + " of " + spec.name +
         " spec=" + specDigest(spec.resolvedYaml);
}

OwningOpRef<ModuleOp> continueFromIR(MLIRContext &ctx, const ModelSpec &spec,
                                     const std::string &path, Stage stage,
                                     Target target, bool fuse) {
  Location at = FileLineColLoc::get(&ctx, path, 1, 1);
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    emitError(at) << "cannot read: " << buffer.getError().message();
    return nullptr;
  }
  // The header: which stage, target and fusion produced this IR.
  llvm::StringRef first = (*buffer)->getBuffer().split('\n').first;
  llvm::SmallVector<llvm::StringRef> words;
  first.split(words, ' ', -1, false);
  std::optional<Stage> from;
  std::string fromTarget = "cpu", fromSpec, fromDigest;
  bool fromFuse = true;
  if (words.size() >= 6 && words[0] == "//" && words[1] == "gptc")
    for (size_t i = 2; i < words.size(); ++i) {
      llvm::StringRef w = words[i];
      if (w.consume_front("--emit="))
        from = parseStage(w.str());
      else if (w.consume_front("--target="))
        fromTarget = w.str();
      else if (w == "--no-fuse")
        fromFuse = false;
      else if (w == "of" && i + 1 < words.size())
        fromSpec = words[i + 1].str();
      else if (w.consume_front("spec="))
        fromDigest = w.str();
    }
  if (!from) {
    emitError(at) << "not a gptc compile --emit dump: its first line must "
                     "be the header gptc writes ('"
                  << emitHeader(spec, Stage::Linalg, target, fuse) << "')";
    return nullptr;
  }
  std::string wantTarget = TargetDescription(target).name();
  if (fromSpec != spec.name || fromTarget != wantTarget || fromFuse != fuse) {
    emitError(at) << "the IR is of " << fromSpec << " --target=" << fromTarget
                  << (fromFuse ? "" : " --no-fuse") << ", not of " << spec.name
                  << " --target=" << wantTarget << (fuse ? "" : " --no-fuse");
    return nullptr;
  }
  // The same spec name with other settings (--set) makes IR whose shapes
  // the bundle would not match: the resolved configurations must agree.
  std::string dumped = embeddedSpecOf((*buffer)->getBuffer());
  if ((!fromDigest.empty() && fromDigest != specDigest(spec.resolvedYaml)) ||
      (!dumped.empty() &&
       specDigest(dumped) != specDigest(spec.resolvedYaml))) {
    std::string difference =
        dumped.empty() ? "" : firstSpecDifference(dumped, spec.resolvedYaml);
    emitError(at) << "the IR is of another configuration of " << spec.name
                  << (difference.empty() ? "" : " (" + difference + ")")
                  << "; give the --set values it was dumped with, or compile "
                     "the dump alone (gptc compile "
                  << path << " -o DIR)";
    return nullptr;
  }
  if (*from > stage) {
    emitError(at) << "the IR is at stage " << stageName(*from)
                  << ", past --emit=" << stageName(stage);
    return nullptr;
  }
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &ctx);
  if (!module)
    return nullptr;
  if (*from == stage)
    return module;
  PipelineOptions options;
  options.stopAfter = stage;
  if (*from != Stage::GPT)
    options.startAfter = *from;
  options.target = TargetDescription(target);
  options.fuse = fuse;
  if (failed(runPipeline(*module, spec, options)))
    return nullptr;
  return module;
}

bool collectPTX(ModuleOp module, std::vector<PTXKernel> &kernels) {
  // The PTX of each distinct kernel (a gpu.binary named as its kernel),
  // chip by chip.
  std::map<std::pair<std::string, std::string>, std::string> ptx;
  std::vector<std::string> names;
  module.walk([&](gpu::BinaryOp binary) {
    names.push_back(binary.getSymName().str());
    for (Attribute a : binary.getObjects())
      if (auto object = dyn_cast<gpu::ObjectAttr>(a))
        if (auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget()))
          ptx[{names.back(), target.getChip().str()}] =
              object.getObject().str();
  });
  for (const char *chip : kPTXChips)
    for (const std::string &name : names) {
      auto it = ptx.find({name, chip});
      if (it == ptx.end()) {
        emitError(module.getLoc())
            << "no PTX for kernel " << name << " (" << chip << ")";
        return false;
      }
      kernels.push_back({name, chip, it->second});
    }
  return true;
}

bool emitPTX(ModuleOp module, std::vector<PTXKernel> &kernels) {
  locateCUDAToolkit();
  OwningOpRef<ModuleOp> copy = cast<ModuleOp>(module->clone());
  PassManager pm(module.getContext());
  buildPTXPipeline(pm);
  return succeeded(pm.run(*copy)) && collectPTX(*copy, kernels);
}

namespace {

/// The files of a bundle (writeBundleFiles).
constexpr const char *kBundleFiles[] = {"manifest.json", "step.so",
                                        "spec.yaml"};

/// A directory `gptc compile -o` may replace: empty, or a bundle gptc
/// wrote: its manifest.json names a gptc-step format and it holds only a
/// bundle's files, each a regular file (no symlink, no subdirectory, no
/// file of the user's). Anything else is someone's data.
bool isReplaceableBundle(const std::string &dir) {
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (!llvm::is_contained(kBundleFiles, name))
      return false;
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(it->path(), status, /*follow=*/false) ||
        status.type() != llvm::sys::fs::file_type::regular_file)
      return false;
  }
  if (ec)
    return false;
  llvm::SmallString<256> manifest(dir);
  llvm::sys::path::append(manifest, "manifest.json");
  if (!llvm::sys::fs::exists(manifest))
    return true; // empty (only a bundle's files were allowed above)
  auto buffer = llvm::MemoryBuffer::getFile(manifest, /*IsText=*/true);
  if (!buffer || (*buffer)->getBufferSize() > (64 << 20) ||
      !runtime::jsonNestingWithin((*buffer)->getBuffer().str(), 64))
    return false;
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json) {
    llvm::consumeError(json.takeError());
    return false;
  }
  const llvm::json::Object *object = json->getAsObject();
  std::optional<llvm::StringRef> format =
      object ? object->getString("format") : std::nullopt;
  return format && format->starts_with("gptc-step/");
}

/// The host side of a CUDA step: the kernels serialised as PTX for every
/// chip of kPTXChips, assembled into cubins and packed with the PTX into
/// one fatbinary per kernel (KernelImages.h), the host code lowered to
/// LLVM. Launches become MLIR's GPU
/// runtime calls (mgpu*); the runtime's own calls get the names of the
/// CUDA runtime (runtime/cuda/StepCallbacks.h): temporaries in device
/// memory, GEMMs on device pointers.
LogicalResult lowerCudaHost(ModuleOp module, const BundleOptions &options,
                            std::string &error) {
  locateCUDAToolkit();
  PassManager pm(module.getContext());
  buildPTXPipeline(pm);
  if (failed(pm.run(module))) {
    error = "lowering the CUDA host and kernels failed";
    return failure();
  }
  if (options.times)
    options.times->end("kernels to PTX");
  KernelImageCounts images;
  if (!packKernelImages(module, options.jobs, images, error))
    return failure();
  if (options.times)
    options.times->end("ptxas + fatbinary (" + std::to_string(images.kernels) +
                       " kernels)");
  SymbolTable symbols(module);
  for (auto [from, to] :
       {std::pair<const char *, const char *>{"malloc", "gptc_cuda_alloc"},
        {"free", "gptc_cuda_free"},
        {"gptc_gemm_f32", "gptc_cuda_gemm_f32"},
        {"gptc_gemm_bf16", "gptc_cuda_gemm_bf16"},
        {"gptc_gemm_bf16_f32", "gptc_cuda_gemm_bf16_f32"}})
    if (Operation *fn = symbols.lookup(from))
      if (failed(symbols.rename(fn, to))) {
        error = std::string("cannot rename ") + from;
        return failure();
      }
  if (symbols.lookup("gptc_gemm_f64")) {
    error = "f64 GEMMs are not supported on the CUDA target";
    return failure();
  }
  return success();
}

/// A NUL-terminated string global `name` of the LLVM-dialect `module`,
/// exported from step.so (as gptc-export-layout's are).
void embedString(ModuleOp module, llvm::StringRef name,
                 const std::string &value) {
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  std::string bytes = value + '\0';
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), bytes.size());
  LLVM::GlobalOp::create(b, module.getLoc(), type, /*isConstant=*/true,
                         LLVM::Linkage::External, name, b.getStringAttr(bytes));
}

/// step.so, manifest.json and spec.yaml into `dir`.
bool writeBundleFiles(ModuleOp module, const ModelSpec &spec, Target target,
                      const std::string &dir, const BundleOptions &options,
                      std::string &error) {
  auto join = [&](const char *name) {
    llvm::SmallString<256> p(dir);
    llvm::sys::path::append(p, name);
    return std::string(p);
  };
  // Read before emitObjects erases the module's body.
  ExportedLayout layout;
  if (!readExportedLayout(module, layout, error))
    return false;
  CPUDescription hostCpu;
  runtime::Manifest manifest;
  if (!describeCPU(options.cpu, hostCpu, error) ||
      !buildManifest(layout, spec, target, hostCpu, manifest, error))
    return false;
  OwningOpRef<ModuleOp> cudaHost;
  if (target == Target::CUDA) {
    cudaHost = cast<ModuleOp>(module->clone());
    if (failed(lowerCudaHost(*cudaHost, options, error)))
      return false;
  }
  // The library vouches for its manifest: every field but its own hash.
  embedString(cudaHost ? *cudaHost : module, gptc::layout::kManifestHashSymbol,
              runtime::manifestBodySha256(manifest));
  std::vector<std::string> objects;
  bool linked =
      emitObjects(cudaHost ? *cudaHost : module, join("step"), options.cpu,
                  options.jobs, objects, error, options.times,
                  /*hostOptLevel=*/cudaHost ? 0 : 3) &&
      linkSharedObject(objects, join("step.so"), error);
  for (const std::string &object : objects)
    llvm::sys::fs::remove(object);
  if (!linked)
    return false;
  if (options.times)
    options.times->end("link step.so");
  StepLibraryFile &library = manifest.stepLibrary;
  library.file = "step.so";
  if (!runtime::sha256File(join("step.so"), library.sha256, library.bytes,
                           error) ||
      !writeManifest(manifest, join("manifest.json"), error))
    return false;
  std::string header = "# " + spec.file +
                       " with extends: merged and overrides applied (gptc "
                       "compile)\n";
  return runtime::writeFileAtomically(
      join("spec.yaml"),
      [&](std::FILE *f, std::string &err) {
        if (std::fputs(header.c_str(), f) >= 0 &&
            std::fwrite(spec.resolvedYaml.data(), 1, spec.resolvedYaml.size(),
                        f) == spec.resolvedYaml.size())
          return true;
        err = "cannot write spec.yaml";
        return false;
      },
      error);
}

} // namespace

bool checkBundleDestination(const std::string &outDir, std::string &error) {
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(outDir, status, /*follow=*/false)) {
    // Nothing there: the parent must take a new directory.
    llvm::SmallString<256> probe(outDir);
    llvm::sys::path::remove_dots(probe, /*remove_dot_dot=*/true);
    std::string parent = llvm::sys::path::parent_path(probe).str();
    if (parent.empty())
      parent = ".";
    // The parent's directories, made now (writeBundle would make them
    // after the compile): a path that cannot be made fails before it.
    if (!llvm::sys::fs::exists(parent)) {
      if (std::error_code ec = llvm::sys::fs::create_directories(parent)) {
        error = "cannot create " + parent + ": " + ec.message();
        return false;
      }
      return true;
    }
    if (!llvm::sys::fs::is_directory(parent) ||
        llvm::sys::fs::access(parent, llvm::sys::fs::AccessMode::Write)) {
      error = outDir + ": cannot create the bundle: " + parent +
              " is not a writable directory";
      return false;
    }
    return true;
  }
  if (status.type() != llvm::sys::fs::file_type::directory_file ||
      !isReplaceableBundle(outDir)) {
    error = outDir + ": exists and is not " +
            (status.type() == llvm::sys::fs::file_type::directory_file
                 ? "an empty directory or a bundle gptc wrote (a "
                   "manifest.json of gptc's and nothing but step.so and "
                   "spec.yaml beside it)"
                 : "a directory") +
            "; not replacing it (remove it or choose another path)";
    return false;
  }
  return true;
}

bool writeBundle(ModuleOp module, const ModelSpec &spec, Target target,
                 const std::string &outDir, std::string &error,
                 const BundleOptions &options) {
  // Built beside OUT and swapped in with one rename: a kill at any moment
  // leaves the old bundle or the new one, never a mix of the two.
  llvm::StringRef parent = llvm::sys::path::parent_path(outDir);
  if (!parent.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(parent)) {
      error = "cannot create " + parent.str() + ": " + ec.message();
      return false;
    }
  if (!checkBundleDestination(outDir, error))
    return false;
  // What compiles to the same OUT that were killed left behind (gptc's
  // staging directories whose compile is gone; nothing else).
  runtime::removeStagingDirectories(outDir);
  std::string staging;
  if (!runtime::makeStagingDirectory(outDir, staging, error))
    return false;
  if (!writeBundleFiles(module, spec, target, staging, options, error) ||
      !runtime::commitDirectory(staging, outDir, isReplaceableBundle, error)) {
    runtime::removeTree(staging);
    return false;
  }
  return true;
}

/// The SHA-256 of this executable's file (computed once): a rebuilt gptc
/// keys its bundles apart from an older one's.
static const std::string &executableDigest() {
  static const std::string digest = [] {
    auto buffer = llvm::MemoryBuffer::getFile("/proc/self/exe",
                                              /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return std::string("unknown");
    return sha256Hex((*buffer)->getBufferStart(), (*buffer)->getBufferSize());
  }();
  return digest;
}

bool planSpecBundle(const std::string &specPath,
                    const std::vector<std::string> &overrides, bool fuse,
                    Target target, std::string &key, int64_t &ranks,
                    int64_t &batch, int64_t &deviceBatch,
                    runtime::ErrorLine &error) {
  ModelSpec spec;
  SpecError specError;
  if (!parseSpecFile(specPath, overrides, spec, specError)) {
    error = runtime::ErrorLine::located(specError.str());
    return false;
  }
  std::string text = spec.resolvedYaml + "\n# fuse " + (fuse ? "1" : "0") +
                     " target " + targetInfo(target).name + " gptc " +
                     executableDigest() + "\n";
  key = sha256Hex(text.data(), text.size());
  ranks = spec.training.ranks;
  batch = spec.training.batch;
  deviceBatch = spec.training.deviceBatch;
  return true;
}

bool compileSpecToBundle(const std::string &specPath,
                         const std::vector<std::string> &overrides,
                         const std::string &outDir, runtime::ErrorLine &error,
                         bool fuse, Target target,
                         const BundleOptions &options) {
  ModelSpec spec;
  SpecError specError;
  if (!parseSpecFile(specPath, overrides, spec, specError)) {
    error = runtime::ErrorLine::located(specError.str());
    return false;
  }
  error.kind = runtime::ErrorKind::Message;
  if (!checkBundleDestination(outDir, error.text))
    return false;
  MLIRContext ctx;
  prepareContext(ctx);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    if (diagnostics.empty())
      diagnostics = diag.str();
    return success();
  });
  OwningOpRef<ModuleOp> module =
      compileToStage(ctx, spec, Stage::LLVM, target, fuse,
                     /*kernelMarks=*/false, pipelineStageTimes(options.times));
  if (!module) {
    error.text = "compiling " + specPath + " failed: " + diagnostics;
    return false;
  }
  return writeBundle(*module, spec, target, outDir, error.text, options);
}

bool parseTargetName(const std::string &name, Target &target,
                     runtime::ErrorLine &error) {
  std::string names;
  for (const TargetInfo &info : targetTable()) {
    if (name == info.name) {
      target = info.target;
      return true;
    }
    names += std::string(names.empty() ? "" : ", ") + info.name;
  }
  error = runtime::ErrorLine::message("--target " + name + ": not a target (" +
                                      names + ")");
  return false;
}

} // namespace gptc
