//===- TrainCommandTest.cpp - `gptc train` on a bundle with the fake step -===//

#include "commands/TrainCommand.h"
#include "commands/ScheduleFit.h"

#include "RuntimeTestUtil.h"
#include "runtime/Manifest.h"

#include <sys/stat.h>
#include <unistd.h>

#include <functional>
#include <sstream>

using namespace gptc::commands;
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

  /// A bundle: the fake manifest, step.so a copy of the fake module (no
  /// spec.yaml: the runtime does not read it).
  static void makeBundle(const std::string &bundle) {
    std::filesystem::create_directories(bundle);
    writeFile(bundle + "/manifest.json", toJson(fakeManifest()));
    std::filesystem::remove(bundle + "/step.so");
    std::filesystem::copy_file(GPTC_FAKE_STEP_SO, bundle + "/step.so");
  }
  /// Runs the bundle with its manifest edited by `edit`; returns the error.
  std::string
  errorWithManifest(const std::function<void(llvm::json::Object &)> &edit) {
    makeBundle(path("fake.gptc"));
    llvm::json::Object m = fakeManifest();
    edit(m);
    writeFile(path("fake.gptc/manifest.json"), toJson(std::move(m)));
    EXPECT_EQ(run({"fake.gptc"}), 1);
    return err.str();
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

TEST_F(TrainCommandTest, TrainsABundleWithTheManifestDefaults) {
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
  EXPECT_NE(out.str().find("note: the lr, momentum and window schedules "
                           "span this run's 12 steps (the bundle's "
                           "training.steps is 40: its warm-up and decay scale "
                           "by 12/40)"),
            std::string::npos)
      << out.str();
  ASSERT_EQ(run({"fake.gptc", "--steps", "12", "--val-every=4"}), 0);
  EXPECT_EQ(losses(), first);
  EXPECT_NE(first.find("val step 12/12"), std::string::npos) << first;
  ASSERT_EQ(run({"fake.gptc", "--steps", "12", "--val-every=4", "--seed", "4"}),
            0);
  EXPECT_NE(losses(), first);
}

// The step reads the run's length from its total_steps slot: the fake's
// decay from 1 to 0.1 spans --steps, not the manifest's 40 steps.
TEST_F(TrainCommandTest, TheScheduleSpansTheRun) {
  ASSERT_EQ(run({"fake.gptc", "--steps", "10", "--val-tokens", "0"}), 0)
      << err.str();
  // Step 10 (s = 9): w = 1 - 9/10, mult = 0.1 + 0.9 * 0.1 = 0.19 (0.7975
  // over 40 steps).
  EXPECT_NE(out.str().find("step 10/10 | loss "), std::string::npos);
  EXPECT_NE(out.str().find("| lr mult 0.19 |"), std::string::npos) << out.str();
}

// A bundle without the slot (an older gptc's) has its schedule fixed: another
// length is refused with the fix; its own length trains.
TEST(ScheduleFitTest, ABundleWithoutTheSlotTrainsItsOwnLength) {
  Manifest m;
  m.path = "old/manifest.json";
  m.run.steps = 40;
  std::string error;
  EXPECT_TRUE(checkScheduleFit(m, 40, false, error));
  EXPECT_FALSE(checkScheduleFit(m, 10, false, error));
  EXPECT_EQ(error, "old/manifest.json: --steps 10: this bundle's schedules "
                   "are fixed to training.steps = 40 (it has no total_steps "
                   "slot: an older gptc compiled it); recompile it (gptc "
                   "compile SPEC -o DIR) or train it for 40 steps");
  EXPECT_FALSE(checkScheduleFit(m, 10, true, error));
  EXPECT_NE(error.find("gptc cache clean"), std::string::npos) << error;
  m.slots.push_back(Slot{});
  m.slots.back().name = "total_steps";
  EXPECT_TRUE(checkScheduleFit(m, 10, false, error));
  EXPECT_EQ(scheduleSpanNote(m, 40), "");
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
  EXPECT_EQ(err.str(), "gptc train: error: --set applies when a spec is "
                       "compiled; fake.gptc is a compiled bundle (recompile "
                       "it with gptc compile SPEC --set ...)\n");
  EXPECT_EQ(run({"fake.gptc", "--dtype", "f64"}), 2);
  EXPECT_NE(err.str().find("--dtype applies when a spec is compiled"),
            std::string::npos)
      << err.str();
}

TEST_F(TrainCommandTest, NumbersAndRepeatsAreStrict) {
  for (const char *bad : {"0x10", " 3", "3 ", "+3", "1.5", "inf", "nan", ""}) {
    EXPECT_EQ(run({"fake.gptc", "--steps", bad}), 2) << bad;
    EXPECT_EQ(err.str(), std::string("gptc train: error: --steps '") + bad +
                             "' is not a non-negative integer\n");
  }
  EXPECT_EQ(run({"fake.gptc", "--seed", "1e3"}), 2);
  EXPECT_EQ(run({"fake.gptc", "--steps", "1", "--steps", "2"}), 2);
  EXPECT_EQ(err.str(), "gptc train: error: --steps is given more than once\n");
  EXPECT_EQ(run({"fake.gptc", "--data=a", "--data", "b"}), 2);
  EXPECT_EQ(err.str(), "gptc train: error: --data is given more than once\n");
  EXPECT_EQ(run({"fake.gptc", "--step", "3"}), 2);
  EXPECT_EQ(err.str(), "gptc train: error: unknown option '--step'; did you "
                       "mean --steps? (see gptc train --help)\n");
  // 1e1 steps is ten.
  ASSERT_EQ(run({"fake.gptc", "--steps", "1e1", "--val-tokens", "0"}), 0)
      << err.str();
  EXPECT_NE(out.str().find("done: 10 steps"), std::string::npos);
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
  std::filesystem::remove(path("fake.gptc/step.so"));
  EXPECT_EQ(run({"fake.gptc"}), 1);
  EXPECT_EQ(err.str(), "gptc train: error: fake.gptc/step.so: no such step "
                       "library\n");

  // An unwritable --save-params is refused before the run.
  makeBundle(path("fake.gptc"));
  EXPECT_EQ(run({"fake.gptc", "--save-params", "no/such/dir/p.bin"}), 1);
  EXPECT_EQ(err.str(), "gptc train: error: --save-params: no/such/dir/p.bin: "
                       "no such directory no/such/dir\n");
  EXPECT_EQ(out.str().find("step 1/"), std::string::npos) << out.str();
}

TEST_F(TrainCommandTest, StepLibraryIsVerifiedBeforeLoading) {
  // Truncated: refused by size, before dlopen (no SIGBUS).
  makeBundle(path("fake.gptc"));
  std::filesystem::resize_file(path("fake.gptc/step.so"),
                               std::filesystem::file_size(GPTC_FAKE_STEP_SO) /
                                   2);
  EXPECT_EQ(run({"fake.gptc"}), 1);
  EXPECT_NE(err.str().find("fake.gptc/step.so: "), std::string::npos);
  EXPECT_NE(err.str().find(" bytes, but fake.gptc/manifest.json "
                           "step_library.bytes says "),
            std::string::npos)
      << err.str();

  // Foreign (another library of the same size would fail the same way on
  // its SHA-256): refused by digest.
  makeBundle(path("fake.gptc"));
  std::string bytes(std::filesystem::file_size(GPTC_FAKE_STEP_SO), 'x');
  writeFile(path("fake.gptc/step.so"), bytes);
  EXPECT_EQ(run({"fake.gptc"}), 1);
  EXPECT_NE(err.str().find("does not match fake.gptc/manifest.json "
                           "step_library.sha256"),
            std::string::npos)
      << err.str();

  // Not a regular file: a FIFO is named, never opened (no hang).
  makeBundle(path("fake.gptc"));
  std::filesystem::remove(path("fake.gptc/step.so"));
  ASSERT_EQ(mkfifo(path("fake.gptc/step.so").c_str(), 0600), 0);
  EXPECT_EQ(run({"fake.gptc"}), 1);
  EXPECT_EQ(err.str(), "gptc train: error: fake.gptc/step.so: the step "
                       "library is a FIFO (named pipe), not a regular file\n");
}

#if defined(__x86_64__)
TEST_F(TrainCommandTest, CodeForAnotherCPUIsRefusedBeforeLoading) {
  // A feature this CPU lacks, by GCC's reading of CPUID (AVX-512 on AMD
  // before Zen 4, XOP on every Intel CPU).
  std::string lacking = !__builtin_cpu_supports("avx512f") ? "avx512f"
                        : !__builtin_cpu_supports("xop")   ? "xop"
                                                           : "";
  ASSERT_FALSE(lacking.empty());
  std::string error = errorWithManifest([&](llvm::json::Object &m) {
    m["host_cpu"] = llvm::json::Object{
        {"name", "far-away"},
        {"features", llvm::json::Array{"sse2", "fast-gather", lacking}}};
  });
  EXPECT_EQ(error, "gptc train: error: fake.gptc/manifest.json: host_cpu: "
                   "step.so was compiled for CPU 'far-away', and this CPU "
                   "lacks " +
                       lacking +
                       " (recompile the bundle here, or with gptc compile "
                       "--cpu=NAME for a CPU that both machines' CPUs cover, "
                       "e.g. x86-64-v3)\n");
  EXPECT_EQ(out.str().find("step 1/"), std::string::npos) << out.str();

  // The features it has: trains.
  makeBundle(path("fake.gptc"));
  llvm::json::Object m = fakeManifest();
  m["host_cpu"] = llvm::json::Object{
      {"name", "x86-64"}, {"features", llvm::json::Array{"sse2", "cx8"}}};
  writeFile(path("fake.gptc/manifest.json"), toJson(std::move(m)));
  EXPECT_EQ(run({"fake.gptc", "--steps", "2"}), 0) << err.str();
}
#endif

TEST_F(TrainCommandTest, EditedManifestsDisagreeWithTheLibrary) {
  // Another arena size and workspace than the library was compiled for
  // (tests/Training/bundle-integrity.test drops a real step's workspace).
  EXPECT_EQ(errorWithManifest([](llvm::json::Object &m) {
              m["arena_bytes"] = 2496 + 64;
              m["workspace"] =
                  llvm::json::Object{{"offset", 2496}, {"bytes", 64}};
            }),
            "gptc train: error: fake.gptc/manifest.json: arena_bytes: 2560 "
            "in manifest.json, 2496 in step.so\n");
  // Two slots' offsets swapped.
  EXPECT_EQ(errorWithManifest([](llvm::json::Object &m) {
              auto &slots = *m.getArray("slots");
              (*slots[3].getAsObject())["offset"] = 256;
              (*slots[4].getAsObject())["offset"] = 192;
            }),
            "gptc train: error: fake.gptc/manifest.json: slots (loss).offset: "
            "256 in manifest.json, 192 in step.so\n");
  // A parameter of another shape (and its slots).
  EXPECT_EQ(errorWithManifest([](llvm::json::Object &m) {
              auto &slots = *m.getArray("slots");
              (*slots[6].getAsObject())["shape"] = llvm::json::Array{16, 8};
              (*slots[7].getAsObject())["shape"] = llvm::json::Array{16, 8};
              (*(*m.getArray("params"))[0].getAsObject())["shape"] =
                  llvm::json::Array{16, 8};
            }),
            "gptc train: error: fake.gptc/manifest.json: slots (param.w)."
            "shape: 16x8 in manifest.json, 16x16 in step.so\n");
  // The same layout under another hash.
  EXPECT_NE(errorWithManifest([](llvm::json::Object &m) {
              m["layout_sha256"] = std::string(64, '0');
            }).find("layout_sha256: 0000"),
            std::string::npos);
}

TEST_F(TrainCommandTest, SpecsCompileThroughTheHook) {
  writeFile(path("my-spec.yaml"), "name: fake\n");
  // No hook: an error.
  EXPECT_EQ(run({"my-spec.yaml"}), 1);
  EXPECT_EQ(err.str(), "gptc train: error: my-spec.yaml: this program cannot "
                       "compile specs; pass a bundle directory\n");

  std::string gotSpec, gotDir;
  std::vector<std::string> gotOverrides;
  bool gotNoFuse = false;
  CompileHook hook = [&](const std::string &spec,
                         const std::vector<std::string> &overrides,
                         const CompileFlags &flags, const std::string &outDir,
                         gptc::runtime::ErrorLine &error) {
    gotSpec = spec;
    gotNoFuse = flags.noFuse;
    gotOverrides = overrides;
    gotDir = outDir;
    if (spec == "fail.yaml") {
      error = gptc::runtime::ErrorLine::located("fail.yaml:1:1: error: nope");
      return false;
    }
    // An error after the spec parsed is a message: the command names
    // itself before it, whatever words the message holds.
    if (spec == "late.yaml") {
      error = gptc::runtime::ErrorLine::message(
          "late.yaml: error: looks located, is not");
      return false;
    }
    makeBundle(outDir);
    return true;
  };
  ASSERT_EQ(run({"my-spec.yaml", "--set", "training.steps=3", "--set=a.b=c",
                 "--steps", "3", "--dtype", "f64", "--no-fuse"},
                hook),
            0)
      << err.str();
  EXPECT_EQ(gotSpec, "my-spec.yaml");
  EXPECT_EQ(gotDir, "my-spec.gptc");
  EXPECT_TRUE(gotNoFuse);
  EXPECT_EQ(gotOverrides, (std::vector<std::string>{"training.steps=3", "a.b=c",
                                                    "training.dtype=f64"}));
  EXPECT_NE(out.str().find("gptc train: compiling my-spec.yaml -> "
                           "my-spec.gptc\n"),
            std::string::npos);
  EXPECT_NE(out.str().find("done: 3 steps"), std::string::npos);

  writeFile(path("fail.yaml"), "x: 1\n");
  EXPECT_EQ(run({"fail.yaml"}, hook), 1);
  EXPECT_EQ(err.str(), "fail.yaml:1:1: error: nope\n");
  writeFile(path("late.yaml"), "x: 1\n");
  EXPECT_EQ(run({"late.yaml"}, hook), 1);
  EXPECT_EQ(err.str(),
            "gptc train: error: late.yaml: error: looks located, is not\n");
  EXPECT_EQ(run({"absent.yaml"}, hook), 1);
  EXPECT_EQ(err.str(), "gptc train: error: absent.yaml: no such spec\n");
}

} // namespace
