//===- TrainCommandTest.cpp - `gptc train` on a bundle with the fake step -===//

#include "runtime/TrainCommand.h"

#include "RuntimeTestUtil.h"

#include <unistd.h>

#include <sstream>

using namespace gptc::runtime;
using namespace gptc::runtime::testing;

namespace {

class TrainCommandTest : public TempDirTest {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
    makeBundle(path("fake.gptc"));
    std::filesystem::create_directories(path("data"));
    writeTokens(path("data/fake_train_000001.bin"), bigramTokens(4000, 1));
    writeTokens(path("data/fake_val_000000.bin"), bigramTokens(1000, 2));
    // The spec's data globs are relative to the working directory.
    char buf[4096];
    ASSERT_NE(getcwd(buf, sizeof(buf)), nullptr);
    oldCwd = buf;
    ASSERT_EQ(chdir(dir.c_str()), 0);
  }
  void TearDown() override {
    EXPECT_EQ(chdir(oldCwd.c_str()), 0);
    TempDirTest::TearDown();
  }

  /// A bundle: the fake manifest and spec, step.so -> the fake module.
  static void makeBundle(const std::string &bundle) {
    std::filesystem::create_directories(bundle);
    writeFile(bundle + "/manifest.json", toJson(fakeManifest()));
    writeFile(bundle + "/spec.yaml", fakeSpecYaml());
    std::filesystem::remove(bundle + "/step.so");
    std::filesystem::create_symlink(GPTC_FAKE_STEP_SO, bundle + "/step.so");
  }

  int run(std::vector<std::string> args, const CompileHook &hook = nullptr) {
    out.str("");
    err.str("");
    return runTrainCommand(args, out, err, hook);
  }

  /// The "loss X" and "val_loss X" fields of the output, in order.
  std::string losses() const {
    std::istringstream in(out.str());
    std::string line, all;
    while (std::getline(in, line)) {
      size_t at = line.find("loss ");
      if (at != std::string::npos && line.rfind("done", 0) != 0)
        all += line.substr(0, line.find(" |", at)) + "\n";
    }
    return all;
  }

  std::string oldCwd;
  std::ostringstream out, err;
};

TEST_F(TrainCommandTest, TrainsABundleWithTheSpecDefaults) {
  ASSERT_EQ(run({"fake.gptc"}), 0) << err.str();
  std::string o = out.str();
  EXPECT_NE(o.find("gptc train: fake | 256 params | B 2 x T 8 x accum 2 = "
                   "32 tok/step | 40 steps | seed 3\n"),
            std::string::npos)
      << o;
  EXPECT_NE(o.find("gptc train: data data/fake_train_*.bin | val "
                   "data/fake_val_*.bin\n"),
            std::string::npos)
      << o;
  EXPECT_NE(o.find("step 40/40 | loss "), std::string::npos) << o;
  EXPECT_NE(o.find("val step 40/40 | val_loss "), std::string::npos) << o;
  EXPECT_NE(o.find("done: 40 steps | val_loss "), std::string::npos) << o;
  EXPECT_EQ(err.str(), "");
}

TEST_F(TrainCommandTest, SameSeedSameLosses) {
  ASSERT_EQ(run({"fake.gptc", "--steps", "12", "--val-every=4"}), 0)
      << err.str();
  std::string first = losses();
  EXPECT_NE(out.str().find("note: running 12 steps; the compiled lr and "
                           "window schedules span training.steps = 40"),
            std::string::npos);
  ASSERT_EQ(run({"fake.gptc", "--steps", "12", "--val-every=4"}), 0);
  EXPECT_EQ(losses(), first);
  EXPECT_NE(first.find("val step 12/12"), std::string::npos) << first;
  ASSERT_EQ(run({"fake.gptc", "--steps", "12", "--val-every=4", "--seed", "4"}),
            0);
  EXPECT_NE(losses(), first);
}

TEST_F(TrainCommandTest, Options) {
  ASSERT_EQ(run({"fake.gptc", "--data", "data/fake_train_000001.bin", "--val",
                 "data/fake_val_*.bin", "--steps", "3", "--val-tokens", "32",
                 "--val-every", "0"}),
            0)
      << err.str();
  EXPECT_NE(out.str().find("val step 3/3"), std::string::npos);
  EXPECT_EQ(out.str().find("val step 0/3"), std::string::npos);
  ASSERT_EQ(run({"fake.gptc", "--steps=2", "--val-tokens=0"}), 0);
  EXPECT_NE(out.str().find("| val off\n"), std::string::npos) << out.str();
  EXPECT_EQ(run({"--help"}), 0);
  EXPECT_EQ(out.str().rfind("usage: gptc train", 0), 0u);
}

TEST_F(TrainCommandTest, UsageErrors) {
  EXPECT_EQ(run({}), 2);
  EXPECT_EQ(err.str(), "gptc train: error: no bundle directory or spec (see "
                       "gptc train --help)\n");
  EXPECT_EQ(run({"fake.gptc", "--bogus"}), 2);
  EXPECT_EQ(err.str(), "gptc train: error: unknown option '--bogus' (see "
                       "gptc train --help)\n");
  EXPECT_EQ(run({"fake.gptc", "--steps"}), 2);
  EXPECT_EQ(err.str(), "gptc train: error: --steps needs a value\n");
  EXPECT_EQ(run({"fake.gptc", "--steps", "-3"}), 2);
  EXPECT_EQ(run({"fake.gptc", "--seed", "x"}), 2);
  EXPECT_EQ(err.str(),
            "gptc train: error: --seed 'x' is not a non-negative integer\n");
  EXPECT_EQ(run({"fake.gptc", "--set", "training.steps=3"}), 2);
  EXPECT_EQ(err.str(), "gptc train: error: --set needs a spec; fake.gptc is "
                       "compiled (recompile it with --set)\n");
}

TEST_F(TrainCommandTest, OneLineErrors) {
  EXPECT_EQ(run({"missing.gptc"}), 1);
  EXPECT_EQ(err.str(),
            "gptc train: error: missing.gptc: no such bundle directory\n");

  EXPECT_EQ(run({"fake.gptc", "--data", "data/nothing_*.bin"}), 1);
  EXPECT_NE(err.str().find("data/nothing_*.bin"), std::string::npos)
      << err.str();

  writeTokens(path("data/small_000000.bin"), bigramTokens(16, 1));
  EXPECT_EQ(run({"fake.gptc", "--data", "data/small_*.bin"}), 1);
  EXPECT_NE(err.str().find("too few for one step"), std::string::npos)
      << err.str();

  std::vector<uint16_t> bad = bigramTokens(1000, 1);
  bad[5] = 300;
  writeTokens(path("data/bad_000000.bin"), bad);
  EXPECT_EQ(run({"fake.gptc", "--data", "data/bad_*.bin"}), 1);
  EXPECT_NE(err.str().find("data/bad_000000.bin"), std::string::npos)
      << err.str();

  writeFile(path("fake.gptc/manifest.json"), "{\"format\": 1");
  EXPECT_EQ(run({"fake.gptc"}), 1);
  EXPECT_EQ(err.str().rfind("gptc train: error: fake.gptc/manifest.json: "
                            "invalid JSON",
                            0),
            0u)
      << err.str();

  makeBundle(path("fake.gptc"));
  writeFile(path("fake.gptc/spec.yaml"), fakeSpecYaml() + "bogus_key: 1\n");
  EXPECT_EQ(run({"fake.gptc"}), 1);
  EXPECT_NE(err.str().find("fake.gptc/spec.yaml:"), std::string::npos)
      << err.str();

  // The manifest must match the spec.
  writeFile(path("fake.gptc/spec.yaml"), fakeSpecYaml());
  llvm::json::Object m = fakeManifest();
  m["grad_accum"] = 1;
  writeFile(path("fake.gptc/manifest.json"), toJson(std::move(m)));
  EXPECT_EQ(run({"fake.gptc"}), 1);
  EXPECT_EQ(err.str(), "gptc train: error: fake.gptc/manifest.json: "
                       "grad_accum: 1 disagrees with fake.gptc/spec.yaml "
                       "training.batch / (device_batch * ranks) = 2 (a stale "
                       "or mixed bundle?)\n");

  makeBundle(path("fake.gptc"));
  std::filesystem::remove(path("fake.gptc/step.so"));
  EXPECT_EQ(run({"fake.gptc"}), 1);
  EXPECT_EQ(err.str().rfind("gptc train: error: cannot load "
                            "fake.gptc/step.so: ",
                            0),
            0u)
      << err.str();
}

TEST_F(TrainCommandTest, SpecsCompileThroughTheHook) {
  writeFile(path("my-spec.yaml"), fakeSpecYaml());
  // No hook: an error.
  EXPECT_EQ(run({"my-spec.yaml"}), 1);
  EXPECT_EQ(err.str(), "gptc train: error: my-spec.yaml: this program cannot "
                       "compile specs; pass a bundle directory\n");

  std::string gotSpec, gotDir;
  std::vector<std::string> gotOverrides;
  CompileHook hook = [&](const std::string &spec,
                         const std::vector<std::string> &overrides,
                         const std::string &outDir, std::string &error) {
    gotSpec = spec;
    gotOverrides = overrides;
    gotDir = outDir;
    if (spec == "fail.yaml") {
      error = "fail.yaml:1:1: error: nope";
      return false;
    }
    makeBundle(outDir);
    return true;
  };
  ASSERT_EQ(run({"my-spec.yaml", "--set", "training.steps=3", "--set=a.b=c",
                 "--steps", "3"},
                hook),
            0)
      << err.str();
  EXPECT_EQ(gotSpec, "my-spec.yaml");
  EXPECT_EQ(gotDir, "my-spec.gptc");
  EXPECT_EQ(gotOverrides,
            (std::vector<std::string>{"training.steps=3", "a.b=c"}));
  EXPECT_NE(out.str().find("gptc train: compiling my-spec.yaml -> "
                           "my-spec.gptc\n"),
            std::string::npos);
  EXPECT_NE(out.str().find("done: 3 steps"), std::string::npos);

  writeFile(path("fail.yaml"), "x: 1\n");
  EXPECT_EQ(run({"fail.yaml"}, hook), 1);
  EXPECT_EQ(err.str(), "gptc train: error: fail.yaml:1:1: error: nope\n");
  EXPECT_EQ(run({"absent.yaml"}, hook), 1);
  EXPECT_EQ(err.str(), "gptc train: error: absent.yaml: no such spec file\n");
}

} // namespace
