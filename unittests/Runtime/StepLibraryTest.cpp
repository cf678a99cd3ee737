//===- StepLibraryTest.cpp - Loading step.so ------------------------------===//

#include "runtime/StepLibrary.h"

#include "RuntimeTestUtil.h"
#include "runtime/Arena.h"

#include <dlfcn.h>

using namespace gptc::runtime;
using namespace gptc::runtime::testing;

namespace {

TEST(StepLibrary, ExecutableExportsTheGemmCallbacks) {
  // What step.so binds to: linking GPTCRuntime must export these.
  for (const char *name : {"gptc_gemm_f32", "gptc_gemm_f64", "gptc_gemm_bf16"})
    EXPECT_NE(dlsym(RTLD_DEFAULT, name), nullptr) << name;
}

TEST(StepLibrary, LoadsTheFakeModuleAndRunsIt) {
  StepLibrary step;
  std::string error;
  ASSERT_TRUE(step.load(GPTC_FAKE_STEP_SO, error)) << error;
  ASSERT_TRUE(step.isLoaded());
  Manifest m;
  ASSERT_TRUE(parseManifest(toJson(fakeManifest()), "m.json", m, error));
  Arena arena;
  ASSERT_TRUE(arena.allocate(m, error)) << error;
  arena.initialize(0);
  for (int i = 0; i < FAKE_B * FAKE_T; ++i) {
    arena.i32("tokens")[i] = i % FAKE_V;
    arena.i32("targets")[i] = (i + 1) % FAKE_V;
  }
  // The module's GEMMs run through this executable's gptc_gemm_f32.
  step.gradStep(arena.ref());
  step.evalStep(arena.ref());
  float loss = *arena.f32("loss") * FAKE_ACCUM;
  EXPECT_NEAR(loss, std::log(double(FAKE_V)), 0.5);
  EXPECT_FLOAT_EQ(loss, *arena.f32("eval_loss"));
  float g = 0;
  for (int i = 0; i < FAKE_V * FAKE_V; ++i)
    g += std::fabs(arena.f32("grad.w")[i]);
  EXPECT_GT(g, 0.0f);
  // Step 0 of a run of FAKE_STEPS (the runtime writes total_steps).
  *arena.i64("total_steps") = FAKE_STEPS;
  step.updateStep(arena.ref());
  EXPECT_EQ(*arena.f32("lr_mult"), 1.0f);
}

TEST(StepLibrary, ErrorsNameTheFileAndCarryDlerror) {
  StepLibrary step;
  std::string error;
  EXPECT_FALSE(step.load("/nonexistent/step.so", error));
  EXPECT_EQ(error.rfind("cannot load /nonexistent/step.so: ", 0), 0u) << error;
  EXPECT_NE(error.find("No such file"), std::string::npos) << error;
  // A library without the entry points.
  EXPECT_FALSE(step.load("/lib/x86_64-linux-gnu/libm.so.6", error));
  EXPECT_EQ(error.rfind("/lib/x86_64-linux-gnu/libm.so.6: no entry point "
                        "_mlir_ciface_gptc_grad_step: ",
                        0),
            0u)
      << error;
  EXPECT_FALSE(step.isLoaded());
}

void noop(gptc_arena_ref *) {}

TEST(StepLibrary, InProcessEntryPoints) {
  StepLibrary step(noop, noop, noop);
  EXPECT_TRUE(step.isLoaded());
  StepLibrary empty;
  EXPECT_FALSE(empty.isLoaded());
}

} // namespace
