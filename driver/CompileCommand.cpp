//===- CompileCommand.cpp - gptc check and gptc compile -------------------===//
//
//   gptc check SPEC [--set key=value]... [--dtype DTYPE]
//   gptc compile SPEC --emit=STAGE [-o FILE] [--set key=value]...
//   gptc compile SPEC --stats [--target=cpu|cuda] [-o FILE]
//
// `check` validates a spec and prints a summary of the model it describes;
// `compile` runs the pipeline up to STAGE and prints (or writes) the IR, or
// with --stats prints the step's kernels and GEMMs (driver/report/Stats.h).
// Their options are llvm::cl options, so --help shows them (and a few MLIR
// debugging ones).
//
//===----------------------------------------------------------------------===//

#include "driver/CompileCommand.h"

#include "dialects/GPT/GPTDialect.h"
#include "driver/Compile.h"
#include "driver/MemoryEstimate.h"
#include "driver/ObjectCode.h"
#include "driver/OptionErrors.h"
#include "driver/PhaseTimes.h"
#include "driver/Summary.h"
#include "driver/report/Stats.h"
#include "frontend/MLIRGen.h"
#include "frontend/Parameters.h"
#include "frontend/SpecParser.h"
#include "generated/GPTCVersion.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

cl::OptionCategory gptcCategory("gptc options");
/// The MLIR options worth showing in --help (the other LLVM and MLIR
/// options stay usable, unlisted).
cl::OptionCategory mlirCategory("MLIR options (debugging)");
constexpr const char *kVisibleMLIROptions[] = {
    "mlir-print-debuginfo",
    "mlir-print-ir-after-all",
    "mlir-print-ir-before-all",
    "mlir-print-ir-after-failure",
    "mlir-print-ir-before",
    "mlir-print-ir-after",
    "mlir-timing",
    "mlir-pass-statistics",
    "mlir-disable-threading",
};

cl::opt<std::string> specPath(cl::Positional, cl::desc("<spec.yaml>"),
                              cl::cat(gptcCategory));
cl::list<std::string>
    overrides("set",
              cl::desc("Override a spec key, e.g. --set training.seq_len=16384 "
                       "(validated like the file)"),
              cl::value_desc("key=value"), cl::cat(gptcCategory));
cl::opt<std::string>
    dtype("dtype",
          cl::desc("Training dtype (f64, f32 or bf16): the same as --set "
                   "training.dtype=DTYPE"),
          cl::value_desc("dtype"), cl::cat(gptcCategory));
/// --stats. LLVM has a hidden -stats of its own (pass statistics, only with
/// assertions) that it registers on first use of the option registry;
/// main() removes it before this one is made.
cl::opt<bool> &statsOption() {
  static cl::opt<bool> stats(
      "stats",
      cl::desc("Print the kernels of the step (launch shapes; with "
               "--target=cuda and ptxas, registers and spills for sm_80 and "
               "sm_90) and its GEMM calls, with totals; with --target=cuda, "
               "an H100 estimate of each and of a training step, its first "
               "five lines the answer (step, parts, worst kernels, whole run, "
               "memory; with --profile, priced by a measured step; "
               "docs/design/cuda.md) (compile)"),
      cl::cat(gptcCategory));
  return stats;
}
cl::opt<std::string> profilePath(
    "profile",
    cl::desc("With --stats --target=cuda: price each kernel by what the "
             "emulated device measured of it in a step of the same spec at a "
             "scaled-down shape (GPTC_EMU_STATS_JSON with SASS counts; "
             "scripts/measure-step.sh makes it) (compile)"),
    cl::value_desc("profile.json"), cl::cat(gptcCategory));
using gptc::Stage;
cl::opt<Stage> emitStage("emit",
                         cl::desc("Print the IR after this stage (compile)"),
                         gptc::StageValues{}, cl::cat(gptcCategory));
cl::opt<bool> noFuse(
    "no-fuse",
    cl::desc("Keep attention, RMSNorm, rotary, the cross-entropy and "
             "Newton-Schulz as primitive ops all the way down (no gptc-fuse-* "
             "pass); "
             "compile and train"),
    cl::cat(gptcCategory));
cl::opt<std::string> fromIR(
    "from",
    cl::desc("Continue from this IR: a gptc compile --emit=STAGE dump of the "
             "same spec, edited or not (its first line names the stage); "
             "writes the bundle (-o DIR) or a later --emit stage"),
    cl::value_desc("file.mlir"), cl::cat(gptcCategory));
cl::opt<bool> kernelMarks(
    "kernel-marks",
    cl::desc("Bracket every kernel nest with gptc_kernel_mark(ID, 0|1) "
             "calls (the emulator's per-kernel check, gptc-emu-check)"),
    cl::Hidden, cl::cat(gptcCategory));
cl::opt<gptc::Target> target("target", cl::desc("Code generation target"),
                             cl::init(gptc::Target::CPU), gptc::TargetValues{},
                             cl::cat(gptcCategory));
cl::opt<bool> timePhases(
    "time",
    cl::desc("Print each compile phase (spec, MLIR pipeline, translation, "
             "optimisation and code generation, link) with its wall time and "
             "peak memory, to stderr (compile)"),
    cl::cat(gptcCategory));
cl::opt<unsigned>
    jobs("jobs",
         cl::desc("Threads that optimise and compile step.so (default: one "
                  "per core)"),
         cl::value_desc("N"), cl::init(0), cl::cat(gptcCategory));
cl::opt<std::string>
    cpu("cpu",
        cl::desc("CPU that step.so is compiled for: native (the default: "
                 "this machine's CPU and all its features) or an LLVM CPU "
                 "name such as x86-64-v3 (AVX2 + FMA), for a bundle that "
                 "runs on any such machine with the same bits (compile)"),
        cl::value_desc("name"), cl::init("native"), cl::cat(gptcCategory));
cl::opt<std::string> outputPath("o",
                                cl::desc("With --emit or --stats: output file "
                                         "(default stdout); --emit=ptx: a "
                                         "directory; otherwise: the bundle "
                                         "directory to write"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(gptcCategory));

/// Prints diagnostics as "file:line:col: error: message" (one line each).
void printDiagnostic(mlir::Diagnostic &diag) {
  mlir::Location loc = diag.getLocation();
  if (auto name = dyn_cast<mlir::NameLoc>(loc))
    loc = name.getChildLoc();
  std::string where;
  if (auto file = dyn_cast<mlir::FileLineColLoc>(loc))
    where = (file.getFilename().str() + ":" + Twine(file.getLine()) + ":" +
             Twine(file.getColumn()) + ": ")
                .str();
  errs() << where << "error: " << diag.str() << "\n";
}

/// The --set overrides with --dtype among them, in command-line order (a
/// later one wins).
std::vector<std::string> specOverrides() {
  std::vector<std::pair<unsigned, std::string>> ordered;
  for (unsigned i = 0; i < overrides.size(); ++i)
    ordered.push_back({overrides.getPosition(i), overrides[i]});
  if (dtype.getNumOccurrences())
    ordered.push_back({dtype.getPosition(), "training.dtype=" + dtype});
  llvm::stable_sort(ordered, llvm::less_first());
  std::vector<std::string> result;
  for (auto &item : ordered)
    result.push_back(item.second);
  return result;
}

/// `gptc compile DUMP.mlir`: the spec an --emit dump carries (its "//| "
/// lines, gptc::kEmbeddedSpecPrefix) into `spec`, and the dump as --from.
int loadEmbeddedSpec(gptc::ModelSpec &spec) {
  if (!specOverrides().empty() || fromIR.getNumOccurrences()) {
    errs() << "gptc: error: " << specPath
           << " is an --emit dump, which carries its spec: no --set, --dtype "
              "or --from with it\n";
    return 1;
  }
  auto buffer = llvm::MemoryBuffer::getFile(specPath);
  if (!buffer) {
    errs() << "gptc: error: " << specPath
           << ": cannot read: " << buffer.getError().message() << "\n";
    return 1;
  }
  std::string text;
  llvm::SmallVector<llvm::StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (llvm::StringRef line : lines)
    if (line.consume_front(gptc::kEmbeddedSpecPrefix))
      text += line.str() + "\n";
  if (text.empty()) {
    errs() << "gptc: error: " << specPath
           << ": no embedded spec (not a gptc compile --emit dump, or one "
              "from an older gptc); give the spec: gptc compile SPEC --from "
           << specPath << "\n";
    return 1;
  }
  gptc::SpecError error;
  if (!gptc::parseSpecString(text, specPath + " (embedded spec)", {}, spec,
                             error)) {
    errs() << error.str() << "\n";
    return 1;
  }
  fromIR = specPath;
  return 0;
}

int loadSpec(gptc::ModelSpec &spec) {
  if (specPath.empty()) {
    errs() << "gptc: error: no spec given (see gptc --help)\n";
    return 1;
  }
  if (llvm::StringRef(specPath).ends_with(".mlir"))
    return loadEmbeddedSpec(spec);
  gptc::SpecError error;
  if (!gptc::parseSpecFile(specPath, specOverrides(), spec, error)) {
    errs() << error.str() << "\n";
    return 1;
  }
  return 0;
}

/// An MLIR context with gptc's dialects whose diagnostics print as one
/// located line each (printDiagnostic).
struct CompilerContext {
  mlir::MLIRContext ctx;
  mlir::ScopedDiagnosticHandler handler{&ctx, [](mlir::Diagnostic &diag) {
                                          printDiagnostic(diag);
                                          return mlir::success();
                                        }};
  CompilerContext() {
    gptc::prepareContext(ctx);
    ctx.printOpOnDiagnostic(false);
  }
};

int runCheck() {
  gptc::ModelSpec spec;
  if (int rc = loadSpec(spec))
    return rc;
  gptc::printSummary(spec, outs());
  // The training memory per rank, from the arena the pipeline plans.
  CompilerContext compiler;
  mlir::MLIRContext &ctx = compiler.ctx;
  return gptc::printMemoryEstimate(ctx, spec, target, !noFuse, outs()) ? 0 : 1;
}

/// --emit=ptx: every kernel's PTX, to stdout or as DIR/KERNEL.CHIP.ptx.
int writePTX(mlir::ModuleOp module) {
  std::vector<gptc::PTXKernel> kernels;
  if (!gptc::collectPTX(module, kernels))
    return 1;
  if (outputPath == "-") {
    for (const gptc::PTXKernel &k : kernels)
      outs() << "// ----- kernel " << k.name << " (" << k.chip << ")\n"
             << k.ptx << "\n";
    return 0;
  }
  if (std::error_code ec = sys::fs::create_directories(outputPath)) {
    errs() << "gptc: error: cannot create " << outputPath << ": "
           << ec.message() << "\n";
    return 1;
  }
  for (const gptc::PTXKernel &k : kernels) {
    std::string path = outputPath + "/" + k.name + "." + k.chip + ".ptx";
    std::error_code ec;
    raw_fd_ostream os(path, ec);
    if (ec) {
      errs() << "gptc: error: cannot write " << path << ": " << ec.message()
             << "\n";
      return 1;
    }
    os << k.ptx;
  }
  outs() << "wrote " << kernels.size() << " PTX files to " << outputPath
         << "\n";
  return 0;
}

/// --stats: the kernel and GEMM table, to stdout or -o FILE.
int runStats(mlir::MLIRContext &ctx, const gptc::ModelSpec &spec) {
  std::string errorMessage;
  auto out = mlir::openOutputFile(outputPath, &errorMessage);
  if (!out) {
    errs() << "gptc: error: " << errorMessage << "\n";
    return 1;
  }
  if (!profilePath.empty() && target != gptc::Target::CUDA) {
    errs() << "gptc: error: --profile prices CUDA kernels; add --target=cuda\n";
    return 1;
  }
  bool ok = gptc::printStepStats(ctx, spec, target, !noFuse, profilePath,
                                 out->os(), errorMessage);
  if (ok || !errorMessage.empty())
    out->keep(); // a table, possibly with ptxas failures in it
  if (!errorMessage.empty())
    errs() << "gptc: error: " << errorMessage << "\n";
  return ok ? 0 : 1;
}

int runCompile() {
  // Every compile times its phases: --time prints the table at the end,
  // otherwise a compile past 2 s says each phase as it ends.
  std::optional<gptc::PhaseTimes> times;
  times.emplace();
  if (!timePhases)
    times->sayAsItGoes(errs(), "gptc compile: ", 2.0);
  // A bundle's destination is checked before anything is compiled (a
  // spec's checks compile parts of it: seconds for a record-sized one).
  if (!statsOption() && emitStage.getNumOccurrences() == 0 &&
      outputPath != "-") {
    std::string error;
    if (!gptc::checkBundleDestination(outputPath, error)) {
      errs() << "gptc: error: " << error << "\n";
      return 1;
    }
  }
  gptc::ModelSpec spec;
  if (int rc = loadSpec(spec))
    return rc;
  if (times)
    times->end("parse and check the spec");
  bool emit = emitStage.getNumOccurrences() > 0;
  bool stats = statsOption();
  if (stats && emit) {
    errs() << "gptc: error: --stats prints kernels and GEMMs, not IR; drop "
              "--emit\n";
    return 1;
  }
  if (!profilePath.empty() && !stats) {
    errs() << "gptc: error: --profile prices the kernels of --stats; add "
              "--stats --target=cuda\n";
    return 1;
  }
  if (!stats && !emit && outputPath == "-") {
    errs() << "gptc: error: give --emit=STAGE to print IR or -o DIR to write "
              "a bundle (see gptc --help)\n";
    return 1;
  }
  if (!gptc::isKnownCPU(cpu)) {
    errs() << "gptc: error: --cpu: '" << cpu
           << "' is not a CPU LLVM knows for this machine's target; give "
              "native or a CPU name such as x86-64-v3\n";
    return 1;
  }
  CompilerContext compiler;
  mlir::MLIRContext &ctx = compiler.ctx;
  if (stats)
    return runStats(ctx, spec);
  bool ptx = emit && emitStage.getValue() == Stage::PTX;
  if (ptx && !gptc::targetInfo(target).buildBinaries) {
    errs() << "gptc: error: --emit=ptx needs --target=cuda\n";
    return 1;
  }
  Stage stage = emit ? emitStage.getValue() : Stage::LLVM;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      fromIR.empty()
          ? gptc::compileToStage(ctx, spec, stage, target, !noFuse, kernelMarks,
                                 gptc::pipelineStageTimes(&*times))
          : gptc::continueFromIR(ctx, spec, fromIR, stage, target, !noFuse);
  if (!module)
    return 1;
  if (!fromIR.empty())
    times->end("MLIR pipeline");
  if (emit && timePhases)
    times->print(errs());
  if (ptx)
    return writePTX(*module);
  if (!emit) {
    std::string error;
    gptc::BundleOptions options;
    options.jobs = jobs;
    options.cpu = cpu;
    options.times = times ? &*times : nullptr;
    if (!gptc::writeBundle(*module, spec, target, outputPath, error, options)) {
      errs() << "gptc: error: " << error << "\n";
      return 1;
    }
    outs() << "wrote " << outputPath << "/{manifest.json,step.so,spec.yaml}\n";
    if (times) {
      times->end("manifest, spec.yaml, commit");
      outs().flush();
      if (timePhases)
        times->print(errs());
    }
    return 0;
  }
  std::string errorMessage;
  auto out = mlir::openOutputFile(outputPath, &errorMessage);
  if (!out) {
    errs() << "gptc: error: " << errorMessage << "\n";
    return 1;
  }
  out->os() << gptc::emitHeader(spec, stage, target, !noFuse) << "\n";
  module->print(out->os(), mlir::OpPrintingFlags());
  gptc::printEmbeddedSpec(spec, out->os());
  out->keep();
  return 0;
}

/// The values `--NAME=VALUE` / `--NAME VALUE` (or one dash) take in `args`.
std::vector<llvm::StringRef> optionValues(const std::vector<const char *> &args,
                                          llvm::StringRef name) {
  std::vector<llvm::StringRef> values;
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef arg = args[i];
    if (!arg.consume_front("--") && !arg.consume_front("-"))
      continue;
    if (arg == name && i + 1 < args.size())
      values.push_back(args[i + 1]);
    else if (arg.consume_front(name) && arg.consume_front("="))
      values.push_back(arg);
  }
  return values;
}

/// --emit must name a stage and --target a target: llvm::cl would only say
/// "Cannot find option named" (on its own stream, in its own words).
bool checkEnumValues(const std::vector<const char *> &args) {
  for (llvm::StringRef value : optionValues(args, "emit"))
    if (!gptc::parseStage(value.str())) {
      errs() << "gptc: error: --emit: unknown stage '" << value
             << "' (stages, in pipeline order: " << gptc::stageNameList()
             << ")\n";
      return false;
    }
  for (llvm::StringRef value : optionValues(args, "target")) {
    std::string names;
    bool known = false;
    for (const gptc::TargetInfo &info : gptc::targetTable()) {
      known = known || value == info.name;
      names += std::string(names.empty() ? "" : ", ") + info.name;
    }
    if (!known) {
      errs() << "gptc: error: --target: unknown target '" << value
             << "' (targets: " << names << ")\n";
      return false;
    }
  }
  return true;
}

/// A single-valued option given twice is an error, not "the last wins".
bool checkSingleOccurrences() {
  struct Named {
    const char *name;
    cl::Option *option;
  } options[] = {{"--emit", &emitStage},  {"-o", &outputPath},
                 {"--target", &target},   {"--dtype", &dtype},
                 {"--no-fuse", &noFuse},  {"--stats", &statsOption()},
                 {"--time", &timePhases}, {"--jobs", &jobs},
                 {"--cpu", &cpu},         {"--profile", &profilePath}};
  for (const Named &o : options)
    if (o.option->getNumOccurrences() > 1) {
      errs() << "gptc: error: " << o.name << " is given more than once\n";
      return false;
    }
  return true;
}

/// Parses a check / compile command line (ARGV0 "gptc check", ...): an
/// error is one line.
bool parseCommandLine(const std::string &argv0,
                      const std::vector<std::string> &args,
                      const std::string &overview) {
  std::vector<const char *> argv = {argv0.c_str()};
  for (const std::string &arg : args)
    argv.push_back(arg.c_str());
  if (!checkEnumValues(argv))
    return false;
  std::string llvmText;
  llvm::raw_string_ostream llvmErrors(llvmText);
  if (!cl::ParseCommandLineOptions(static_cast<int>(argv.size()), argv.data(),
                                   overview, &llvmErrors)) {
    errs() << argv0
           << ": error: " << gptc::oneLineOptionError(argv0, llvmText, args)
           << "\n";
    return false;
  }
  return checkSingleOccurrences();
}

} // namespace

namespace gptc {

void registerCompileOptions() {
  // gptc --version: gptc's version and commit, then the LLVM it uses.
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "gptc " GPTC_VERSION " (commit " GPTC_COMMIT ")\n"
       << "  LLVM and MLIR " LLVM_VERSION_STRING "\n";
  });
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerAllPasses();
  registerGPTCPasses();
  // After the passes: --mlir-print-ir-before/after=PASS look their names
  // up in the pass registry when the options are made.
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  // --help lists gptc's options and a few MLIR debugging ones, not every
  // option of the LLVM and MLIR libraries.
  auto &registered = cl::getRegisteredOptions();
  for (const char *name : kVisibleMLIROptions)
    if (auto it = registered.find(name); it != registered.end())
      it->second->addCategory(mlirCategory);
  if (auto it = registered.find("stats"); it != registered.end())
    it->second->removeArgument();
  statsOption();
  cl::HideUnrelatedOptions({&gptcCategory, &mlirCategory});
}

std::string compileOptionsHelp() {
  std::string text = R"(Spec overrides (check, compile, train):
  --set KEY=VALUE                set any spec key, validated like the file
                                 (--set KEY VALUE works too)
  --dtype f64|f32|bf16           the training dtype: --set training.dtype=...

Stages (--emit), in pipeline order:
)";
  for (const StageInfo &info : stageTable()) {
    // The description wrapped at 78 columns, under a 11-column name.
    std::string line = "  " + std::string(info.name);
    line.resize(11, ' ');
    size_t width = line.size();
    for (StringRef rest = info.description; !rest.empty();) {
      auto [word, tail] = rest.split(' ');
      if (width + word.size() + 1 > 78 && width > 11) {
        text += line + "\n";
        line = std::string(11, ' ');
        width = 11;
      } else if (width > 11) {
        line += ' ';
        ++width;
      }
      line += word.str();
      width += word.size();
      rest = tail;
    }
    text += line + "\n";
  }
  return text;
}

int runCheckCommand(const std::vector<std::string> &args,
                    const std::string &overview) {
  if (!parseCommandLine("gptc check", args, overview))
    return 1;
  return runCheck();
}

int runCompileCommand(const std::vector<std::string> &args,
                      const std::string &overview) {
  if (!parseCommandLine("gptc compile", args, overview))
    return 1;
  return runCompile();
}

int printGeneralHelp(int argc, char **argv, const std::string &overview) {
  cl::ParseCommandLineOptions(argc, argv, overview);
  errs() << "gptc: error: no command given (see gptc --help)\n";
  return 1;
}

const char kCheckHelp[] =
    R"(  gptc check SPEC                validate SPEC and print a summary of its model
)";

const char kCompileHelp[] =
    R"(  gptc compile SPEC --emit=STAGE print the IR after STAGE (see --emit below)
  gptc compile SPEC -o DIR       write the step bundle: manifest.json, step.so
  gptc compile SPEC --stats [--target=cuda]
                                 print the step's kernels with their launch
                                 shapes (CUDA: grid, block and, with ptxas,
                                 registers and spills for sm_80 and sm_90)
                                 and its GEMM calls, with totals; CUDA: an
                                 H100 cost estimate (occupancy, FLOPs,
                                 bytes, roofline time, MFU of the step)
)";

} // namespace gptc
