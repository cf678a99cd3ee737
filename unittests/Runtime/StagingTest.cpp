//===- StagingTest.cpp - Which staging directories are debris -------------===//

#include "runtime/Files.h"

#include "RuntimeTestUtil.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

using namespace gptc::runtime;
using namespace gptc::runtime::testing;

namespace {

using Staging = TempDirTest;

bool exists(const std::string &path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

TEST_F(Staging, ALiveWritersDirectoryIsKept) {
  std::string staging, error;
  ASSERT_TRUE(makeStagingDirectory(path("out"), staging, error)) << error;
  EXPECT_FALSE(isAbandonedStaging(staging));
  removeStagingDirectories(path("out"));
  EXPECT_TRUE(exists(staging));
  removeTree(staging);
  EXPECT_FALSE(exists(staging));
}

TEST_F(Staging, AKilledWritersDirectoryIsDebris) {
  // A writer that dies before committing (as under SIGKILL): its lock goes
  // with it, whatever its pid becomes later.
  int pipeFds[2];
  ASSERT_EQ(::pipe(pipeFds), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::string staging, error;
    bool ok = makeStagingDirectory(path("out"), staging, error);
    if (ok)
      (void)!::write(pipeFds[1], staging.data(), staging.size());
    ::_exit(ok ? 0 : 1);
  }
  ::close(pipeFds[1]);
  char buffer[4096];
  ssize_t n = ::read(pipeFds[0], buffer, sizeof(buffer));
  ::close(pipeFds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_GT(n, 0);
  std::string staging(buffer, size_t(n));
  ASSERT_TRUE(exists(staging));
  EXPECT_TRUE(isAbandonedStaging(staging));
  removeStagingDirectories(path("out"));
  EXPECT_FALSE(exists(staging));
}

TEST_F(Staging, ADirectoryWithoutTheMarkerIsSomeonesData) {
  // The same name, but not made by gptc: never removed.
  std::string mine = path("out.partial-abcdef");
  ASSERT_EQ(::mkdir(mine.c_str(), 0755), 0);
  std::ofstream(mine + "/notes.txt") << "mine\n";
  EXPECT_FALSE(isAbandonedStaging(mine));
  removeStagingDirectories(path("out"));
  EXPECT_TRUE(exists(mine + "/notes.txt"));
  // Nor a symlink to a directory that has one.
  std::string staging, error;
  ASSERT_TRUE(makeStagingDirectory(path("other"), staging, error)) << error;
  std::string link = path("out.partial-linked");
  ASSERT_EQ(::symlink(staging.c_str(), link.c_str()), 0);
  EXPECT_FALSE(isAbandonedStaging(link));
}

TEST_F(Staging, RemoveTreeUnlinksASymlinkNotItsTarget) {
  std::string target = path("target");
  ASSERT_EQ(::mkdir(target.c_str(), 0755), 0);
  std::ofstream(target + "/keep.txt") << "keep\n";
  std::string link = path("link");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  removeTree(link);
  EXPECT_FALSE(exists(link));
  EXPECT_TRUE(exists(target + "/keep.txt"));
}

} // namespace
