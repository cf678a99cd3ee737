//===- CostModelTest.cpp - H100 occupancy and roofline of --stats ---------===//
//
// driver/report/CostModel.h on hand-computed cases.
//
//===----------------------------------------------------------------------===//

#include "driver/report/CostModel.h"

#include <gtest/gtest.h>

using namespace gptc::cost;

namespace {

TEST(CostModelTest, OccupancyLimitedByWarps) {
  // 8 warps per block: 8 blocks fill 64 warps; registers allow 8 too.
  Occupancy occ = occupancyH100(256, 32, 0);
  EXPECT_EQ(occ.blocksPerSM, 8);
  EXPECT_DOUBLE_EQ(occ.fraction, 1.0);
  EXPECT_EQ(occ.limiter, "warps");
}

TEST(CostModelTest, OccupancyLimitedByRegisters) {
  // 64 registers x 32 lanes = 2048 per warp: 32 warps, one 32-warp block.
  Occupancy occ = occupancyH100(1024, 64, 0);
  EXPECT_EQ(occ.blocksPerSM, 1);
  EXPECT_DOUBLE_EQ(occ.fraction, 0.5);
  EXPECT_EQ(occ.limiter, "registers");
  // 40 registers round up to 1280 per warp: 51 warps, 17 blocks of 3.
  occ = occupancyH100(96, 40, 0);
  EXPECT_EQ(occ.blocksPerSM, 17);
  EXPECT_DOUBLE_EQ(occ.fraction, 51.0 / 64.0);
  EXPECT_EQ(occ.limiter, "registers");
}

TEST(CostModelTest, OccupancyLimitedByBlocks) {
  // One thread per block: 32 blocks of one warp each, half the SM.
  Occupancy occ = occupancyH100(1, 16, 0);
  EXPECT_EQ(occ.blocksPerSM, 32);
  EXPECT_DOUBLE_EQ(occ.fraction, 0.5);
  EXPECT_EQ(occ.limiter, "blocks");
}

TEST(CostModelTest, OccupancyLimitedBySharedMemory) {
  // 48 KiB + 1 KiB reserved = 50176 bytes: 4 blocks in 228 KiB.
  Occupancy occ = occupancyH100(128, 0, 48 * 1024);
  EXPECT_EQ(occ.blocksPerSM, 4);
  EXPECT_DOUBLE_EQ(occ.fraction, 0.25);
  EXPECT_EQ(occ.limiter, "shared");
  // 100 bytes round up to 128: 1152 per block, 202 fit; blocks limit.
  EXPECT_EQ(occupancyH100(32, 0, 100).limiter, "blocks");
}

TEST(CostModelTest, BlocksThatCannotLaunch) {
  EXPECT_EQ(occupancyH100(2048, 32, 0).blocksPerSM, 0);
  EXPECT_EQ(occupancyH100(32, 256, 0).blocksPerSM, 0);
  EXPECT_EQ(occupancyH100(32, 32, 228 * 1024).limiter, "none");
  EXPECT_DOUBLE_EQ(occupancyH100(32, 32, 228 * 1024).fraction, 0.0);
}

TEST(CostModelTest, LaunchEfficiency) {
  // One lane of 32, enough warps to fill the schedulers.
  EXPECT_DOUBLE_EQ(launchEfficiency(1, 32768), 1.0 / 32);
  // Full warps, 8 of the 528 scheduler slots.
  EXPECT_DOUBLE_EQ(launchEfficiency(256, 256), 8.0 / 528);
  EXPECT_DOUBLE_EQ(launchEfficiency(256, 256 * 1000), 1.0);
}

TEST(CostModelTest, KernelRoofline) {
  // 67 TFLOP in one second of compute; 3.35 GB at half efficiency in 2 ms.
  EXPECT_DOUBLE_EQ(kernelSeconds(67e12, 1e9, 1.0), 1.0 + 3e-6);
  EXPECT_DOUBLE_EQ(kernelSeconds(1e3, 3.35e9, 0.5), 2e-3 + 3e-6);
  EXPECT_DOUBLE_EQ(kernelSeconds(0, 0, 1.0), 3e-6);
}

TEST(CostModelTest, GemmRoofline) {
  // bf16 4096^3: 137.4 GFLOP at 989 TFLOP/s (compute bound; 100.7 MB).
  double flops = 2.0 * 4096 * 4096 * 4096;
  EXPECT_DOUBLE_EQ(gemmBytes(4096, 4096, 4096, 1, 2, false),
                   3.0 * 4096 * 4096 * 2);
  EXPECT_DOUBLE_EQ(gemmSeconds(4096, 4096, 4096, 1, 2, false),
                   flops / 989e12 + 3e-6);
  // f32 64^3 batch 2 reading C: 4 matrices of 16 KiB each per batch,
  // memory bound (1.05 MFLOP / 67 TFLOP/s is 15.6 ns; 131 KB is 39 ns).
  EXPECT_DOUBLE_EQ(gemmBytes(64, 64, 64, 2, 4, true), 2.0 * 4 * 4096 * 4);
  EXPECT_DOUBLE_EQ(gemmSeconds(64, 64, 64, 2, 4, true),
                   131072.0 / 3.35e12 + 3e-6);
  EXPECT_DOUBLE_EQ(gemmPeakFlops(4), 67e12);
}

TEST(CostModelTest, ModelFlopUtilisation) {
  EXPECT_DOUBLE_EQ(mfu(989e12 * 0.5, 1.0), 0.5);
  EXPECT_DOUBLE_EQ(mfu(1.0, 0.0), 0.0);
}

// The calibrated model (CostModel.h, calibratedKernelTime).

constexpr double kWarpRate = 132 * 4 * 1.98e9; // warp-instructions / s
constexpr double kLaunch = 1.3e-6;

TEST(CalibratedModelTest, IssueBoundOnAFullMachine) {
  // 2112 warps of 256-thread blocks, 8 resident blocks (64 warps) per SM:
  // 16 active warps per SM hide the issue latency.
  KernelWork w;
  w.threadsPerBlock = 256;
  w.threads = 2112 * 32;
  w.blocksPerSM = 8;
  w.threadInstructions = 1e9;
  w.dramBytes = 1e6;
  KernelTime t = calibratedKernelTime(w);
  EXPECT_EQ(t.bound, Bound::Issue);
  EXPECT_NEAR(t.issue, 1e9 / 32 / kWarpRate, 1e-12);
  EXPECT_NEAR(t.seconds, t.issue + kLaunch, 1e-12);
  EXPECT_STREQ(boundName(t.bound), "issue");
}

TEST(CalibratedModelTest, OneWarpIssuesEveryFourCycles) {
  // A lone warp cannot hide the 4-cycle latency of dependent issue:
  // 1000 instructions take 4000 cycles at 1.98 GHz.
  KernelWork w;
  w.threadsPerBlock = 32;
  w.threads = 32;
  w.threadInstructions = 32 * 1000;
  KernelTime t = calibratedKernelTime(w);
  EXPECT_NEAR(t.issue, 4000 / 1.98e9, 1e-12);
  EXPECT_EQ(t.bound, Bound::Issue);
  // A one-thread block issues as many warp-instructions as a full one.
  w.threadsPerBlock = 1;
  w.threads = 1;
  w.threadInstructions = 1000;
  EXPECT_NEAR(calibratedKernelTime(w).issue, 4000 / 1.98e9, 1e-12);
}

TEST(CalibratedModelTest, DramBoundAndLaunchBound) {
  KernelWork w;
  w.threadsPerBlock = 256;
  w.threads = 528 * 32; // every scheduler has a warp
  w.dramBytes = 3.35e9;
  w.threadInstructions = 528 * 32;
  KernelTime t = calibratedKernelTime(w);
  EXPECT_EQ(t.bound, Bound::DRAM);
  EXPECT_NEAR(t.dram, 1e-3, 1e-12);
  // Half the schedulers: half the bandwidth.
  w.threads = 264 * 32;
  EXPECT_NEAR(calibratedKernelTime(w).dram, 2e-3, 1e-12);
  // 1 kB and no instructions counted: nothing beats the launch.
  w.dramBytes = 1024;
  w.threadInstructions = 0;
  t = calibratedKernelTime(w);
  EXPECT_EQ(t.bound, Bound::Launch);
  EXPECT_NEAR(t.seconds, 1024 / 3.35e12 * 2 + kLaunch, 1e-15);
}

TEST(CalibratedModelTest, MeasuredSectorsAndSass) {
  // A measured launch (--stats --profile): its SASS warp-instructions
  // replace threadInstructions / 32, and the sectors its requests move
  // between L1 and L2 are a term at L2's 3.8 TB/s.
  KernelWork w;
  w.threadsPerBlock = 256;
  w.threads = 2112 * 32;
  w.blocksPerSM = 8;
  w.threadInstructions = 1e9;
  w.warpInstructions = 2e9 / 32; // 2 SASS a PTX instruction
  KernelTime t = calibratedKernelTime(w);
  EXPECT_NEAR(t.issue, 2e9 / 32 / kWarpRate, 1e-12);
  // 1 GB requested by lanes alone in their sectors (2-byte lanes: 16x).
  w.dramBytes = 1e9;
  w.l2Bytes = 16e9;
  t = calibratedKernelTime(w);
  EXPECT_EQ(t.bound, Bound::L2);
  EXPECT_NEAR(t.l2, 16e9 / 3.8e12, 1e-12);
  EXPECT_STREQ(boundName(t.bound), "l2");
  // A job of ranks > 1 launches on the stream: 3 us a launch.
  w.launchSeconds = 3e-6;
  EXPECT_NEAR(calibratedKernelTime(w).seconds, t.l2 + 3e-6, 1e-12);
  EXPECT_NEAR(calibratedGemmSeconds(512, 64, 64, 1, 2, false, 3e-6) -
                  calibratedGemmSeconds(512, 64, 64, 1, 2, false),
              3e-6 - kLaunch, 1e-12);
}

TEST(CalibratedModelTest, SmallBuffersReadFromDramOnce) {
  // A scalar read by 50 M threads of a 1 GB launch: one sector.
  EXPECT_DOUBLE_EQ(dramReadBytes(200e6, 32, 1e9), 32);
  // A row's statistics (256 KB), each read by its row's 768 elements.
  EXPECT_DOUBLE_EQ(dramReadBytes(200e6, 262144, 600e6), 262144);
  // Read once: as counted.
  EXPECT_DOUBLE_EQ(dramReadBytes(1e6, 1e6, 1e9), 1e6);
  // Larger than half of L2 (25 MB): every read.
  EXPECT_DOUBLE_EQ(dramReadBytes(400e6, 26e6, 1e9), 400e6);
  // 16.8 MB read 24 times over a 2 GB launch: 84 MB of other traffic
  // between two reads of a line if spread evenly, more than half of L2.
  EXPECT_DOUBLE_EQ(dramReadBytes(403e6, 16.8e6, 2e9), 403e6);
  // The same table read 24 times over 0.5 GB: 21 MB between reads.
  EXPECT_DOUBLE_EQ(dramReadBytes(403e6, 16.8e6, 0.5e9), 16.8e6);
}

TEST(CalibratedModelTest, LocalMemoryFromL1L2OrDram) {
  KernelWork w;
  w.threadsPerBlock = 128;
  w.threads = 128 * 1056;
  w.sharedPerBlock = 0;
  // 16 resident warps per SM (4 blocks of 4 warps): 512 threads.
  w.stackBytes = 512; // 256 KiB per SM: fits in L1
  EXPECT_DOUBLE_EQ(localBytesPerSecond(w, 16), 132 * 128 * 1.98e9);
  w.sharedPerBlock = 1024; // 4 KiB of shared beside it: no longer
  EXPECT_DOUBLE_EQ(localBytesPerSecond(w, 16), 3.8e12);
  w.stackBytes = 1024; // 512 KiB per SM, 69 MB in all: over L2's 50 MB
  EXPECT_DOUBLE_EQ(localBytesPerSecond(w, 16), 3.35e12);
  // The local term at DRAM speed; 0 without a stack frame (the private
  // arrays are registers).
  w.blocksPerSM = 4;
  w.localBytes = 3.35e9;
  KernelTime t = calibratedKernelTime(w);
  EXPECT_EQ(t.bound, Bound::Local);
  EXPECT_NEAR(t.local, 1e-3, 1e-12);
  w.stackBytes = 0;
  EXPECT_EQ(calibratedKernelTime(w).local, 0.0);
}

TEST(CalibratedModelTest, GemmWaveQuantisation) {
  // 8192^3: 32 x 64 = 2048 tiles of 256 x 128 in 16 waves of 132 SMs, the
  // last one part full: 2048 / 2112 of the machine at 80% of its peak.
  double flops = 2.0 * 8192.0 * 8192.0 * 8192.0;
  EXPECT_NEAR(calibratedGemmSeconds(8192, 8192, 8192, 1, 2, false),
              flops / (989e12 * 0.8 * 2048 / 2112) + kLaunch, 1e-9);
  // 512 x 64 x 64: 2 tiles, 2 SMs of 132.
  EXPECT_NEAR(calibratedGemmSeconds(512, 64, 64, 1, 2, false),
              2.0 * 512 * 64 * 64 / (989e12 * 0.8 * 2 / 132) + kLaunch, 1e-12);
  // f32 without tensor cores: 67 TFLOP/s at 80%.
  EXPECT_NEAR(calibratedGemmSeconds(8192, 8192, 8192, 1, 4, false),
              flops / (67e12 * 0.8 * 2048 / 2112) + kLaunch, 1e-9);
}

} // namespace

// The all-reduces of a backward's gradients beside it: 25 MiB buckets, a
// bucket issued at the start that fills it, the rest at the backward's end,
// one bucket after another.
TEST(CostModelTest, AllReducesBesideTheBackward) {
  constexpr double MiB = 1 << 20;
  auto oneSecondPer10MiB = [&](double bytes) { return bytes / (10 * MiB); };
  // 30 MiB in three starts; the third fills a bucket 4 s before the
  // backward's end and takes 3 s: hidden.
  std::vector<ReduceStart> starts = {
      {10 * MiB, 8}, {10 * MiB, 6}, {10 * MiB, 4}};
  EXPECT_DOUBLE_EQ(
      exposedReduceSeconds(starts, 10, 25 * MiB, oneSecondPer10MiB), 0.0);
  // At half the bandwidth it takes 6 s: 2 s after the end.
  EXPECT_DOUBLE_EQ(
      exposedReduceSeconds(starts, 10, 25 * MiB,
                           [&](double b) { return 2 * oneSecondPer10MiB(b); }),
      2.0);
  // 5 MiB more after the bucket: held until the backward's end, then 0.5 s.
  starts.push_back({5 * MiB, 1});
  EXPECT_DOUBLE_EQ(
      exposedReduceSeconds(starts, 10, 25 * MiB, oneSecondPer10MiB), 0.5);
  // A bucket issued while the last is still reducing waits for it: 30 MiB
  // at t = 2 and 30 at t = 3 (3 s each) end at 8, inside a 10 s backward,
  // 1 s after a 7 s one.
  std::vector<ReduceStart> queued = {{30 * MiB, 8}, {30 * MiB, 7}};
  EXPECT_DOUBLE_EQ(
      exposedReduceSeconds(queued, 10, 25 * MiB, oneSecondPer10MiB), 0.0);
  std::vector<ReduceStart> late = {{30 * MiB, 5}, {30 * MiB, 4}};
  EXPECT_DOUBLE_EQ(exposedReduceSeconds(late, 7, 25 * MiB, oneSecondPer10MiB),
                   1.0);
}
