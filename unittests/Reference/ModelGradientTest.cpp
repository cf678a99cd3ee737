//===- ModelGradientTest.cpp - Whole-model gradient checks in f64 ---------===//
//
// For every models/tiny-*.yaml: the spec shrunk to a few thousand
// parameters (d_model 16, 2 heads of 8, batch 1, seq_len 16, or 128 for
// block windows) in f64, its @forward from the frontend, @forward_grad from
// gptc-autodiff, both run by the reference interpreter. The autodiff
// gradient is compared with finite differences on ~30 sampled entries of
// every parameter tensor (two thirds among the entries with a nonzero
// gradient, so that unused embedding rows do not make the check vacuous)
// and on every entry of the small (<= 16 element) scalar parameters.
//
// Initialisation: every parameter is random (the spec's zero/ones inits
// would make some gradients trivially 0 or hide terms): matrices
// N(0, 1/sqrt(fan_in)), embeddings N(0, 1), the mixing scalars (lambdas,
// value_lambdas, skip_weights) U(0.5, 1.5). This scale keeps the
// nonlinearities (gelu, relu^2, softmax, softcap) out of their linear
// regime and the gradients well above the finite-difference noise.
// Tokens contain BOS (256) at positions 0 and 9 (T = 16) or 0, 40 and 90
// (T = 128), so the document mask matters. The window schedule is made
// constant: 5 tokens for token windows (it masks within documents), one
// 128-token block for block windows (with T = 128 there is one block, so
// the block window masks nothing: the gradient paths are the same, and the
// block-window semantics are checked in InterpreterTest).
//
// Finite differences: central, (L(x + h) - L(x - h)) / 2h with h = 3e-5
// (a best compromise, measured over h in [3e-6, 1e-4] and a fourth-order
// stencil): truncation ~h^2 |L'''| / 6 and round-off ~eps |L| / h are both
// ~1e-10, and a relu^2 kink crossed within +-h costs ~h |du/dx|^2 |dL/dy|,
// also tiny. Only the ops downstream of the perturbed parameter are re-run
// (CachedEvaluation).
// Tolerance per entry:
//   |g_ad - g_fd| <= 1e-5 * max(|g_ad|, |g_fd|) + 1e-9,
// the absolute term covering the finite-difference noise of entries with a
// tiny gradient. The worst entry of each spec uses < 10% of its allowance;
// a wrong VJP is off by O(1) relatively.
//
//===----------------------------------------------------------------------===//

#include "RefTestUtil.h"

#include "frontend/MLIRGen.h"
#include "frontend/SpecParser.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>

using namespace mlir;
using namespace gptc::ref;
using namespace gptc::ref::test;

namespace {

constexpr double kStep = 3e-5;
constexpr double kRelTolerance = 1e-5;
constexpr double kAbsTolerance = 1e-9;
constexpr int64_t kSamplesPerTensor = 30;
constexpr int64_t kSmallTensor = 16; ///< checked entirely
constexpr int64_t kBos = 256;

std::vector<std::string> tinySpecs() {
  std::vector<std::string> files;
  std::filesystem::path dir = std::filesystem::path(GPTC_SOURCE_DIR) / "models";
  for (const auto &entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("tiny-", 0) == 0 && entry.path().extension() == ".yaml")
      files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class ModelGradientTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelGradientTest, AutodiffMatchesFiniteDifferences) {
  auto start = std::chrono::steady_clock::now();
  const std::string &path = GetParam();

  // Read the spec once to pick the sequence length.
  gptc::ModelSpec spec;
  gptc::SpecError error;
  ASSERT_TRUE(gptc::parseSpecFile(path, {}, spec, error)) << error.str();
  bool blocks = spec.model.attention.windowUnit == gptc::WindowUnit::Blocks;
  int64_t T = blocks ? 128 : 16;
  std::vector<std::string> overrides = {
      "training.dtype=f64",      "training.seq_len=" + std::to_string(T),
      "training.device_batch=1", "training.batch=1",
      "training.ranks=1",        "model.d_model=16",
      "model.n_head=2",          "model.head_dim=8",
      "model.vocab_size=257",    "model.attention.bos_token=256"};
  if (spec.model.attention.windowUnit != gptc::WindowUnit::None) {
    // A constant window schedule: 5 tokens, or one 128-token block.
    std::string w = blocks ? "128" : "5";
    overrides.push_back("model.attention.window_start=" + w);
    overrides.push_back("model.attention.window_end=" + w);
    overrides.push_back(std::string("model.attention.window_granularity=") +
                        (blocks ? "128" : "1"));
  }
  ASSERT_TRUE(gptc::parseSpecFile(path, overrides, spec, error)) << error.str();

  TestContext tc;
  OwningOpRef<ModuleOp> module = gptc::buildForwardModule(tc.get(), spec);
  ASSERT_TRUE(module) << tc.diagnostics;
  ASSERT_TRUE(succeeded(tc.autodiff(*module))) << tc.diagnostics;
  auto forward = module->lookupSymbol<func::FuncOp>("forward");
  auto grad = module->lookupSymbol<func::FuncOp>("forward_grad");
  ASSERT_TRUE(forward && grad);

  // Arguments: tokens, targets, [step], parameters.
  Generator gen(12345);
  SmallVector<HostTensor> args;
  SmallVector<unsigned> params;
  SmallVector<std::string> names;
  int64_t vocab = spec.model.vocabSize;
  for (BlockArgument arg : forward.getArguments()) {
    unsigned i = arg.getArgNumber();
    auto type = cast<RankedTensorType>(arg.getType());
    auto nameAttr = forward.getArgAttrOfType<StringAttr>(i, "gpt.name");
    std::string name = nameAttr ? nameAttr.str() : "arg" + std::to_string(i);
    names.push_back(name);
    HostTensor t(type.getShape());
    if (name == "tokens") {
      for (double &v : t.data)
        v = static_cast<double>(gen.below(kBos));
      for (int64_t p : T == 16 ? std::vector<int64_t>{0, 9}
                               : std::vector<int64_t>{0, 40, 90})
        t[p] = kBos;
    } else if (name == "targets") {
      for (double &v : t.data)
        v = static_cast<double>(gen.below(vocab));
    } else if (name == "step") {
      t[0] = 0; // the window schedule above is constant
    } else if (name == "total_steps") {
      t[0] = 100;
    } else if (forward.getArgAttr(i, "gpt.param")) {
      params.push_back(i);
      if (type.getRank() == 1) {
        for (double &v : t.data)
          v = gen.uniform(0.5, 1.5);
      } else {
        bool embedding = name == "wte" || name.rfind("value_embeds", 0) == 0;
        double stddev =
            embedding ? 1.0 : 1.0 / std::sqrt(double(type.getShape().back()));
        for (double &v : t.data)
          v = stddev * gen.normal();
      }
    } else {
      FAIL() << "unexpected argument " << name;
    }
    args.push_back(std::move(t));
  }

  FailureOr<SmallVector<HostTensor>> out = evaluate(grad, args);
  ASSERT_TRUE(succeeded(out)) << tc.diagnostics;
  ASSERT_EQ(out->size(), params.size() + 1);
  double loss = (*out)[0][0];
  ASSERT_TRUE(std::isfinite(loss)) << "loss " << loss;
  FailureOr<SmallVector<HostTensor>> fwd = evaluate(forward, args);
  ASSERT_TRUE(succeeded(fwd)) << tc.diagnostics;
  EXPECT_EQ((*fwd)[0][0], loss) << "forward_grad's loss differs from forward's";

  // Finite differences re-run only the ops downstream of the parameter.
  FailureOr<CachedEvaluation> cache = CachedEvaluation::create(forward, args);
  ASSERT_TRUE(succeeded(cache)) << tc.diagnostics;
  EXPECT_EQ(cache->results()[0][0], loss);
  auto lossWith = [&](unsigned p, const HostTensor &value) {
    FailureOr<SmallVector<HostTensor>> l = cache->evaluateWith(p, value);
    return succeeded(l) ? (*l)[0][0] : std::nan("");
  };
  int64_t checked = 0, failures = 0;
  double worstRatio = 0; // |g - fd| / allowed error, maximum over entries
  std::string worstEntry;
  for (auto [k, p] : llvm::enumerate(params)) {
    const HostTensor &g = (*out)[k + 1];
    ASSERT_EQ(g.shape, args[p].shape) << names[p];
    // The entries to check.
    std::vector<int64_t> entries;
    if (g.size() <= kSmallTensor) {
      for (int64_t i = 0; i < g.size(); ++i)
        entries.push_back(i);
    } else {
      std::vector<int64_t> nonzero;
      for (int64_t i = 0; i < g.size(); ++i)
        if (g[i] != 0.0)
          nonzero.push_back(i);
      std::set<int64_t> chosen;
      int64_t fromNonzero = std::min<int64_t>(
          kSamplesPerTensor * 2 / 3, static_cast<int64_t>(nonzero.size()));
      while (static_cast<int64_t>(chosen.size()) < fromNonzero)
        chosen.insert(nonzero[gen.below(nonzero.size())]);
      while (static_cast<int64_t>(chosen.size()) < kSamplesPerTensor)
        chosen.insert(static_cast<int64_t>(gen.below(g.size())));
      entries.assign(chosen.begin(), chosen.end());
    }
    for (int64_t i : entries) {
      HostTensor perturbed = args[p];
      perturbed[i] = args[p][i] + kStep;
      double lp = lossWith(p, perturbed);
      perturbed[i] = args[p][i] - kStep;
      double lm = lossWith(p, perturbed);
      double fd = (lp - lm) / (2 * kStep);
      double allowed =
          kRelTolerance * std::max(std::fabs(g[i]), std::fabs(fd)) +
          kAbsTolerance;
      double err = std::fabs(g[i] - fd);
      if (err / allowed > worstRatio) {
        worstRatio = err / allowed;
        worstEntry = names[p] + "[" + std::to_string(i) + "]: autodiff " +
                     std::to_string(g[i]) + ", fd " + std::to_string(fd);
        char buf[128];
        snprintf(buf, sizeof buf, " (|g| %.3g, error %.3g)", std::fabs(g[i]),
                 err);
        worstEntry += buf;
      }
      ++checked;
      if (err > allowed && ++failures <= 20)
        ADD_FAILURE() << spec.name << ": d loss / d " << names[p] << "[" << i
                      << "]: autodiff " << g[i] << ", finite difference " << fd
                      << " (error " << err << ", allowed " << allowed << ")";
    }
  }
  EXPECT_EQ(failures, 0);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::cout << "[ model    ] " << spec.name << ": T=" << T << ", "
            << params.size() << " parameter tensors, " << checked
            << " entries checked, loss " << loss
            << ", worst |error| / allowed = " << worstRatio << " at "
            << worstEntry << ", " << seconds << " s\n";
}

INSTANTIATE_TEST_SUITE_P(
    TinySpecs, ModelGradientTest, ::testing::ValuesIn(tinySpecs()),
    [](const ::testing::TestParamInfo<std::string> &info) {
      std::string name = std::filesystem::path(info.param).stem().string();
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

} // namespace
