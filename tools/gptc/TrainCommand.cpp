//===- TrainCommand.cpp - `gptc train` ------------------------------------===//

#include "runtime/TrainCommand.h"

#include "runtime/data/OptionValue.h"

#include "frontend/SpecParser.h"
#include "runtime/Manifest.h"
#include "runtime/StepLibrary.h"
#include "runtime/Trainer.h"
#include "runtime/cpu/GemmAMX.h"
#include "runtime/cpu/GemmAVX512.h"

#include <cblas.h>
#include <omp.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace gptc {
namespace runtime {

const char *trainCommandUsage() {
  return "usage: gptc train BUNDLE_DIR|SPEC.yaml [options]\n"
         "\n"
         "Trains a compiled bundle (the directory `gptc compile SPEC -o DIR`\n"
         "writes: manifest.json, step.so, spec.yaml). Given a spec, compiles\n"
         "it first into SPEC-BASENAME.gptc/ in the working directory (or\n"
         "under $TMPDIR when that is not writable). Prints one line per\n"
         "step, the validation loss every --val-every steps and a summary.\n"
         "\n"
         "options:\n"
         "  --data GLOB        training shards (default: the spec's "
         "data.train)\n"
         "  --val GLOB         validation shards (default: data.val)\n"
         "  --steps N          optimizer steps (default: training.steps; the\n"
         "                     compiled lr/window schedules keep spanning\n"
         "                     training.steps)\n"
         "  --seed S           parameter init seed (default: "
         "training.seed)\n"
         "  --val-every N      validate every N steps, 0 = only at the end\n"
         "                     (default: validation.every)\n"
         "  --val-tokens N     validation tokens, 0 = no validation\n"
         "                     (default: validation.tokens)\n"
         "  --save-params FILE after the last step, write the parameters to\n"
         "                     FILE (float32; format in runtime/ParamFile.h)\n"
         "  --set key=value    override a spec key (specs only; repeatable)\n"
         "  --dtype D          the same as --set training.dtype=D (specs only)\n"
         "  --no-fuse          compile without attention/RMSNorm fusion (specs\n"
         "                     only)\n"
         "  -h, --help         show this help\n";
}

namespace {

const char *kMe = "gptc train: ";

/// A non-negative integer; accepts scientific notation such as 1e6.
bool parseCount(const std::string &s, int64_t &v) {
  if (s.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  long long i = std::strtoll(s.c_str(), &end, 10);
  if (errno == 0 && *end == '\0' && i >= 0) {
    v = i;
    return true;
  }
  errno = 0;
  double d = std::strtod(s.c_str(), &end);
  if (errno != 0 || *end != '\0' || !(d >= 0) || d > 9e15 ||
      d != double(int64_t(d)))
    return false;
  v = int64_t(d);
  return true;
}

bool isDirectory(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool isFile(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Where a spec compiles to: SPEC-BASENAME.gptc in the working directory,
/// or under $TMPDIR (/tmp) when the working directory is not writable.
std::string bundleDirFor(const std::string &specPath) {
  std::string base = specPath.substr(specPath.find_last_of('/') + 1);
  size_t dot = base.find_last_of('.');
  if (dot != std::string::npos && dot > 0)
    base = base.substr(0, dot);
  base += ".gptc";
  if (access(".", W_OK) == 0)
    return base;
  const char *tmp = std::getenv("TMPDIR");
  return std::string(tmp && *tmp ? tmp : "/tmp") + "/" + base;
}

/// The manifest must describe the bundle's spec.yaml and a run this runtime
/// can do (one CPU rank).
bool checkBundle(const Manifest &m, const ModelSpec &spec,
                 const std::string &specPath, std::string &error) {
  if (m.target != "cpu") {
    error = m.path + ": target: '" + m.target +
            "' is not supported by this runtime (cpu only)";
    return false;
  }
  if (m.ranks != 1) {
    error = m.path + ": ranks: " + std::to_string(m.ranks) +
            " ranks; this runtime runs one (compile with training.ranks=1)";
    return false;
  }
  struct Pair {
    const char *field, *key;
    int64_t manifest, spec;
  } pairs[] = {
      {"device_batch", "training.device_batch", m.deviceBatch,
       spec.training.deviceBatch},
      {"seq_len", "training.seq_len", m.seqLen, spec.training.seqLen},
      {"grad_accum", "training.batch / (device_batch * ranks)", m.gradAccum,
       spec.training.gradAccum()},
      {"vocab_size", "model.vocab_size", m.vocabSize, spec.model.vocabSize},
      {"windowed", "model.attention.window_unit != none", m.windowed,
       spec.model.attention.windowUnit != WindowUnit::None},
  };
  for (const Pair &p : pairs)
    if (p.manifest != p.spec) {
      error = m.path + ": " + p.field + ": " + std::to_string(p.manifest) +
              " disagrees with " + specPath + " " + p.key + " = " +
              std::to_string(p.spec) + " (a stale or mixed bundle?)";
      return false;
    }
  return true;
}

int64_t countParameters(const Manifest &m) {
  int64_t n = 0;
  for (const ParamEntry &p : m.params) {
    int64_t e = 1;
    for (int64_t d : p.shape)
      e *= d;
    n += e;
  }
  return n;
}

} // namespace

int runTrainCommand(const std::vector<std::string> &args, std::ostream &out,
                    std::ostream &err, const CompileHook &compile) {
  std::vector<std::string> inputs, overrides;
  std::string dataGlob, valGlob, saveParamsPath;
  int64_t steps = -1, seed = -1, valEvery = -1, valTokens = -1;

  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg.empty() || arg[0] != '-') {
      inputs.push_back(arg);
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      out << trainCommandUsage();
      return 0;
    }
    // Options with a value: "--opt VALUE" or "--opt=VALUE".
    std::string value;
    if (!data::takeOptionValue(args, i,
                               {"--data", "--val", "--steps", "--seed",
                                "--val-every", "--val-tokens", "--set",
                                "--save-params"},
                               kMe, "train", err, arg, value))
      return 2;
    if (arg == "--data") {
      dataGlob = value;
    } else if (arg == "--val") {
      valGlob = value;
    } else if (arg == "--set") {
      overrides.push_back(value);
    } else if (arg == "--save-params") {
      saveParamsPath = value;
    } else {
      int64_t *target = arg == "--steps"       ? &steps
                        : arg == "--seed"      ? &seed
                        : arg == "--val-every" ? &valEvery
                                               : &valTokens;
      if (!parseCount(value, *target)) {
        err << kMe << "error: " << arg << " '" << value
            << "' is not a non-negative integer\n";
        return 2;
      }
    }
  }
  if (inputs.size() != 1) {
    err << kMe << "error: "
        << (inputs.empty() ? "no bundle directory or spec"
                           : "more than one bundle or spec")
        << " (see gptc train --help)\n";
    return 2;
  }

  // A spec compiles into a bundle first.
  std::string bundle = inputs[0];
  std::string error;
  bool isSpec =
      endsWith(bundle, ".yaml") || endsWith(bundle, ".yml") || isFile(bundle);
  if (isSpec) {
    if (!isFile(bundle)) {
      err << kMe << "error: " << bundle << ": no such spec file\n";
      return 1;
    }
    if (!compile) {
      err << kMe << "error: " << bundle
          << ": this program cannot compile specs; pass a bundle directory\n";
      return 1;
    }
    std::string outDir = bundleDirFor(bundle);
    out << kMe << "compiling " << bundle << " -> " << outDir << "\n";
    out.flush();
    if (!compile(bundle, overrides, outDir, error)) {
      err << kMe << "error: " << error << "\n";
      return 1;
    }
    bundle = outDir;
  } else if (!overrides.empty()) {
    err << kMe << "error: --set needs a spec; " << bundle
        << " is compiled (recompile it with --set)\n";
    return 2;
  }
  if (!isDirectory(bundle)) {
    err << kMe << "error: " << bundle << ": no such bundle directory\n";
    return 1;
  }

  Manifest manifest;
  if (!readManifest(bundle + "/manifest.json", manifest, error)) {
    err << kMe << "error: " << error << "\n";
    return 1;
  }
  ModelSpec spec;
  SpecError specError;
  std::string specPath = bundle + "/spec.yaml";
  if (!isFile(specPath)) {
    err << kMe << "error: " << specPath << ": missing\n";
    return 1;
  }
  if (!parseSpecFile(specPath, {}, spec, specError)) {
    err << kMe << "error: " << specError.str() << "\n";
    return 1;
  }
  if (!checkBundle(manifest, spec, specPath, error)) {
    err << kMe << "error: " << error << "\n";
    return 1;
  }
  StepLibrary step;
  if (!step.load(bundle + "/step.so", error)) {
    err << kMe << "error: " << error << "\n";
    return 1;
  }

  TrainConfig config;
  config.steps = steps >= 0 ? steps : spec.training.steps;
  config.seed = uint64_t(seed >= 0 ? seed : spec.training.seed);
  config.trainPattern = dataGlob.empty() ? spec.data.train : dataGlob;
  config.valPattern = valGlob.empty() ? spec.data.val : valGlob;
  config.valEvery = valEvery >= 0 ? valEvery : spec.validation.every;
  config.valTokens = valTokens >= 0 ? valTokens : spec.validation.tokens;
  config.timingSkipSteps = spec.training.timingSkipSteps;
  config.saveParamsPath = saveParamsPath;

  const int64_t tokensPerStep =
      manifest.microBatchTokens() * manifest.gradAccum;
  out << kMe << (manifest.specName.empty() ? spec.name : manifest.specName)
      << " | " << withThousands(countParameters(manifest)) << " params | B "
      << manifest.deviceBatch << " x T " << manifest.seqLen << " x accum "
      << manifest.gradAccum << " = " << withThousands(tokensPerStep)
      << " tok/step | " << config.steps << " steps | seed " << config.seed
      << "\n";
  out << kMe << "data " << config.trainPattern << " | val "
      << (config.valTokens > 0 ? config.valPattern : std::string("off"))
      << "\n";
  // What the GEMMs run on: gptc's own kernels where the CPU has the
  // instructions (f32 on AVX-512; bf16 on AMX or AVX512_BF16, else widened
  // to the f32 path), the rest on OpenBLAS's kernels (its choice for this
  // CPU, or OPENBLAS_CORETYPE's); and the OpenMP threads of kernels and
  // GEMMs.
  const char *blasCore = openblas_get_corename();
  out << kMe << "cpu: GEMMs "
      << (avx512SgemmAvailable() ? "f32 gptc AVX-512, " : "")
      << (amxBf16Available()      ? "bf16 gptc AMX, "
          : avx512Bf16Available() ? "bf16 gptc AVX512_BF16, "
                                  : "")
      << (avx512SgemmAvailable() ? "f64 " : "") << "OpenBLAS "
      << (blasCore ? blasCore : "?") << " kernels | " << omp_get_max_threads()
      << " threads\n";
  if (config.steps != spec.training.steps)
    out << "note: running " << config.steps << " steps; the compiled lr "
        << "and window schedules span training.steps = " << spec.training.steps
        << "\n";
  out.flush();

  TrainResult result;
  if (!train(manifest, spec, step, config, out, result, error)) {
    err << kMe << "error: " << error << "\n";
    return 1;
  }
  return 0;
}

} // namespace runtime
} // namespace gptc
