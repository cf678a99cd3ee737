//===- HostMemoryTest.cpp - The memory a run can have ---------------------===//
//
// availableMemory over a fake /proc and /sys: the least of MemAvailable and
// every memory cgroup's room on the way up, in v2 and v1 names.

#include "runtime/HostMemory.h"

#include "RuntimeTestUtil.h"

#include <filesystem>
#include <fstream>

using namespace gptc::runtime;
using namespace gptc::runtime::testing;

namespace {

using HostMemory = TempDirTest;

void write(const std::string &path, const std::string &text) {
  std::filesystem::create_directories(path.substr(0, path.find_last_of('/')));
  std::ofstream(path) << text;
}

constexpr int64_t MiB = int64_t(1) << 20;

TEST_F(HostMemory, NothingToReadIsUnknown) {
  EXPECT_EQ(availableMemory(dir).bytes, -1);
}

TEST_F(HostMemory, MemAvailableWithoutALimitingCgroup) {
  write(path("proc/meminfo"), "MemTotal: 32000000 kB\nMemAvailable: 2048 kB\n");
  write(path("proc/self/cgroup"), "0::/job\n");
  write(path("sys/fs/cgroup/job/memory.max"), "max\n");
  AvailableMemory m = availableMemory(dir);
  EXPECT_EQ(m.bytes, 2048 * 1024);
  EXPECT_EQ(m.described, "this machine has 2.0 MiB available");
}

TEST_F(HostMemory, AV2LimitBelowTheMachinesIsTheAnswer) {
  write(path("proc/meminfo"), "MemAvailable: 24000000 kB\n");
  write(path("proc/self/cgroup"), "0::/slice/job\n");
  write(path("sys/fs/cgroup/slice/job/memory.max"), std::to_string(600 * MiB));
  write(path("sys/fs/cgroup/slice/job/memory.current"),
        std::to_string(300 * MiB));
  // Reclaimable page cache does not count as used.
  write(path("sys/fs/cgroup/slice/job/memory.stat"),
        "anon 1\ninactive_file " + std::to_string(100 * MiB) + "\n");
  AvailableMemory m = availableMemory(dir);
  EXPECT_EQ(m.bytes, 400 * MiB);
  EXPECT_NE(m.described.find("this process's memory cgroup (limit 600.0 MiB, "),
            std::string::npos)
      << m.described;
  EXPECT_NE(m.described.find("slice/job) leaves 400.0 MiB"), std::string::npos)
      << m.described;
}

TEST_F(HostMemory, AParentCgroupsLimitCounts) {
  write(path("proc/meminfo"), "MemAvailable: 24000000 kB\n");
  write(path("proc/self/cgroup"), "0::/slice/job\n");
  write(path("sys/fs/cgroup/slice/job/memory.max"), "max\n");
  write(path("sys/fs/cgroup/slice/memory.max"), std::to_string(256 * MiB));
  write(path("sys/fs/cgroup/slice/memory.current"), std::to_string(56 * MiB));
  EXPECT_EQ(availableMemory(dir).bytes, 200 * MiB);
}

TEST_F(HostMemory, V1NamesAndItsNoLimitNumber) {
  write(path("proc/meminfo"), "MemAvailable: 24000000 kB\n");
  write(path("proc/self/cgroup"),
        "4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n0::/\n");
  write(path("sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes"),
        std::to_string(1024 * MiB));
  write(path("sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes"),
        std::to_string(100 * MiB));
  write(path("sys/fs/cgroup/memory/docker/abc/memory.stat"),
        "total_inactive_file 0\n");
  write(path("sys/fs/cgroup/memory/docker/memory.limit_in_bytes"),
        "9223372036854771712\n");
  EXPECT_EQ(availableMemory(dir).bytes, 924 * MiB);
}

TEST_F(HostMemory, AContainersOwnCgroupIsTheMountsRoot) {
  // /proc/self/cgroup names a path the container's mount does not have.
  write(path("proc/meminfo"), "MemAvailable: 24000000 kB\n");
  write(path("proc/self/cgroup"), "0::/kubepods/pod1/c1\n");
  write(path("sys/fs/cgroup/memory.max"), std::to_string(512 * MiB));
  write(path("sys/fs/cgroup/memory.current"), std::to_string(12 * MiB));
  EXPECT_EQ(availableMemory(dir).bytes, 500 * MiB);
}

TEST_F(HostMemory, AFullCgroupLeavesNothingNotANegativeNumber) {
  write(path("proc/meminfo"), "MemAvailable: 24000000 kB\n");
  write(path("proc/self/cgroup"), "0::/\n");
  write(path("sys/fs/cgroup/memory.max"), std::to_string(64 * MiB));
  write(path("sys/fs/cgroup/memory.current"), std::to_string(80 * MiB));
  AvailableMemory m = availableMemory(dir);
  EXPECT_EQ(m.bytes, 0); // known to be none, not unknown (-1)
  EXPECT_NE(m.described.find("leaves 0.0 MiB"), std::string::npos)
      << m.described;
}

} // namespace
