//===- CacheScanTest.cpp - `gptc cache` over fake bundles -----------------===//

#include "commands/CacheScan.h"
#include "commands/CacheCommand.h"

#include "RuntimeTestUtil.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sstream>

using namespace gptc::commands;
using gptc::runtime::testing::TempDirTest;
using gptc::runtime::testing::writeFile;

namespace {

class CacheScanTest : public TempDirTest {
protected:
  /// A bundle as gptc compiles one, its files last touched `daysAgo` ago.
  void bundle(const std::string &name, const std::string &spec,
              double daysAgo = 0, const std::string &format = "gptc-step/3") {
    std::string d = path(name);
    ASSERT_EQ(::mkdir(d.c_str(), 0755), 0);
    writeFile(d + "/manifest.json", "{\"format\": \"" + format +
                                        "\", \"spec_name\": \"" + spec +
                                        "\", \"target\": \"cpu\"}");
    writeFile(d + "/step.so", std::string(5000, 'x'));
    writeFile(d + "/spec.yaml", "name: " + spec + "\n");
    struct timespec t[2];
    t[0].tv_sec = t[1].tv_sec = ::time(nullptr) - time_t(daysAgo * 86400);
    t[0].tv_nsec = t[1].tv_nsec = 0;
    for (const char *f : {"/manifest.json", "/step.so", "/spec.yaml"})
      ASSERT_EQ(::utimensat(AT_FDCWD, (d + f).c_str(), t, 0), 0);
  }
  int run(const std::vector<std::string> &args) {
    out.str("");
    err.str("");
    return runCacheCommand(args, out, err);
  }
  bool exists(const std::string &name) {
    struct stat st;
    return ::lstat(path(name).c_str(), &st) == 0;
  }
  std::ostringstream out, err;
};

TEST(CacheBundleName, SpecKeyDotGptc) {
  EXPECT_TRUE(isCacheBundleName("tiny-r08-0123456789ab.gptc"));
  EXPECT_TRUE(isCacheBundleName("a-0123456789ab.gptc"));
  EXPECT_FALSE(isCacheBundleName("tiny-r08.gptc"));
  EXPECT_FALSE(isCacheBundleName("tiny-r08-0123456789AB.gptc"));
  EXPECT_FALSE(isCacheBundleName("tiny-r08-0123456789a.gptc"));
  EXPECT_FALSE(isCacheBundleName("tiny-r08_0123456789ab.gptc"));
  EXPECT_FALSE(isCacheBundleName("tiny-r08-0123456789ab.gptc.partial-abcdef"));
  EXPECT_FALSE(isCacheBundleName("-0123456789ab.gptc"));
  EXPECT_FALSE(isCacheBundleName("bundle"));
}

TEST_F(CacheScanTest, ListsBundlesNewestFirstAndLeavesTheRestAlone) {
  bundle("old-000000000001.gptc", "old", /*daysAgo=*/3);
  bundle("new-000000000002.gptc", "new");
  bundle("fmt-000000000003.gptc", "fmt", 0, "other/1");
  bundle("mine-000000000004.gptc", "mine");
  writeFile(path("mine-000000000004.gptc/notes.txt"), "mine");
  ASSERT_EQ(::mkdir(path("empty-000000000005.gptc").c_str(), 0755), 0);
  ASSERT_EQ(::symlink(path("new-000000000002.gptc").c_str(),
                      path("link-000000000006.gptc").c_str()),
            0);
  writeFile(path("file-000000000007.gptc"), "");
  bundle("unrelated", "unrelated");

  CacheListing listing;
  std::string error;
  ASSERT_TRUE(scanCache(dir, listing, error)) << error;
  ASSERT_EQ(listing.bundles.size(), 2u);
  EXPECT_EQ(listing.bundles[0].name, "new-000000000002.gptc");
  EXPECT_EQ(listing.bundles[0].spec, "new");
  EXPECT_EQ(listing.bundles[0].target, "cpu");
  EXPECT_GE(listing.bundles[0].bytes, 5000u);
  EXPECT_EQ(listing.bundles[0].user, "");
  EXPECT_EQ(listing.bundles[1].name, "old-000000000001.gptc");
  std::vector<std::pair<std::string, std::string>> alone = {
      {"empty-000000000005.gptc", "no manifest.json (not a gptc bundle)"},
      {"file-000000000007.gptc", "not a directory"},
      {"fmt-000000000003.gptc",
       "its manifest.json is not a gptc manifest (no format gptc-step/N)"},
      {"link-000000000006.gptc", "a symlink (not followed)"},
      {"mine-000000000004.gptc", "it holds notes.txt, which no bundle does"}};
  EXPECT_EQ(listing.leftAlone, alone);
}

TEST_F(CacheScanTest, CleanKeepsTheNewestAndRemovesOnlyBundles) {
  bundle("old-000000000001.gptc", "old", /*daysAgo=*/3);
  bundle("new-000000000002.gptc", "new");
  ASSERT_EQ(::mkdir(path("empty-000000000005.gptc").c_str(), 0755), 0);

  EXPECT_EQ(run({"clean", dir, "--keep", "1", "--dry-run"}), 0) << err.str();
  EXPECT_NE(out.str().find("would remove old-000000000001.gptc (old, cpu, "),
            std::string::npos)
      << out.str();
  EXPECT_TRUE(exists("old-000000000001.gptc"));

  EXPECT_EQ(run({"clean", dir, "--older-than", "5"}), 0) << err.str();
  EXPECT_NE(out.str().find("removed 0 bundles"), std::string::npos)
      << out.str();
  EXPECT_TRUE(exists("old-000000000001.gptc"));

  EXPECT_EQ(run({"clean", dir, "--keep=1", "--older-than=2"}), 0) << err.str();
  EXPECT_NE(out.str().find("removed old-000000000001.gptc"), std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("note: left alone empty-000000000005.gptc: no "
                           "manifest.json (not a gptc bundle)"),
            std::string::npos)
      << out.str();
  EXPECT_FALSE(exists("old-000000000001.gptc"));
  EXPECT_TRUE(exists("new-000000000002.gptc"));
  EXPECT_TRUE(exists("empty-000000000005.gptc"));

  EXPECT_EQ(run({"clean", dir}), 0) << err.str();
  EXPECT_FALSE(exists("new-000000000002.gptc"));
  EXPECT_TRUE(exists("empty-000000000005.gptc"));
}

TEST_F(CacheScanTest, CleanRemovesWhatKilledCompilesLeft) {
  std::string staging = "x-0123456789ab.gptc.partial-abcdef";
  ASSERT_EQ(::mkdir(path(staging).c_str(), 0755), 0);
  writeFile(path(staging + "/.gptc-staging"), "123\n");
  writeFile(path(staging + "/step.so"), "half");
  EXPECT_EQ(run({"clean", dir}), 0) << err.str();
  EXPECT_NE(out.str().find("removed " + staging + " (left by a killed compile"),
            std::string::npos)
      << out.str();
  EXPECT_FALSE(exists(staging));
}

TEST_F(CacheScanTest, Errors) {
  EXPECT_EQ(run({}), 2);
  EXPECT_EQ(err.str(), "gptc cache: error: no subcommand (expected list or "
                       "clean; see gptc cache --help)\n");
  EXPECT_EQ(run({"purge"}), 2);
  EXPECT_EQ(err.str(), "gptc cache: error: unknown subcommand 'purge' "
                       "(expected list or clean; see gptc cache --help)\n");
  EXPECT_EQ(run({"clean", dir, "--older-than", "soon"}), 2);
  EXPECT_EQ(err.str(), "gptc cache clean: error: --older-than 'soon' is not a "
                       "number of days (a non-negative decimal, e.g. 7 or "
                       "0.5)\n");
  EXPECT_EQ(run({"clean", dir, "--older-than", "-1"}), 2);
  EXPECT_EQ(run({"clean", dir, "--keep", "1.5"}), 2);
  EXPECT_EQ(err.str(),
            "gptc cache clean: error: --keep '1.5' is not a non-negative "
            "integer\n");
  EXPECT_EQ(run({"list", dir, "--keep", "1"}), 2);
  EXPECT_NE(err.str().find("unknown option '--keep'"), std::string::npos);
  EXPECT_EQ(run({"list", path("none")}), 1);
  EXPECT_EQ(err.str(), "gptc cache list: error: " + path("none") +
                           ": No such file or directory\n");
  EXPECT_EQ(run({"list", dir, dir}), 2);
  EXPECT_EQ(run({"list", "--help"}), 0);
  EXPECT_NE(out.str().find("usage: gptc cache list [DIR]"), std::string::npos);
}

} // namespace
