//===- FatbinTest.cpp - Fatbinaries made by nvcc on the emulated device ---===//
//
// cuModuleLoadData of a fatbinary (nvcc -fatbin, at build time when nvcc
// exists): the emulated sm_90 device runs the PTX a driver would JIT for
// it, and refuses, as a real device without the matching code would, a
// fatbinary that holds cubins only. Each test reports itself skipped
// without nvcc.
//
//===----------------------------------------------------------------------===//

#include "EmuTestUtil.h"

#include <fstream>
#include <sstream>

using namespace gptc::emu::test;

namespace {

std::string readFile(const char *path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

#ifdef GPTC_EMU_NVCC_FATBIN_DIR
std::string fatbin(const std::string &name) {
  return readFile((std::string(GPTC_EMU_NVCC_FATBIN_DIR) + "/" + name).c_str());
}
#define REQUIRE_FATBIN(var, name)                                              \
  std::string var = fatbin(name);                                              \
  ASSERT_FALSE(var.empty()) << name;
#else
#define REQUIRE_FATBIN(var, name)                                              \
  std::string var;                                                             \
  GTEST_SKIP() << "nvcc was not found at configure time";
#endif

/// block_sum of Inputs/conformance_kernels.cu over 0..n-1 from `image`.
float blockSum(const std::string &image) {
  PtxModule m(image);
  EXPECT_EQ(m.result, CUDA_SUCCESS);
  if (m.result != CUDA_SUCCESS)
    return -1;
  int n = 1000;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = (float)i;
  DeviceBuffer<float> dx(x), dout(1);
  EXPECT_EQ(launch(m.function("block_sum"), 4, 256, {&dx.ptr, &dout.ptr, &n}),
            CUDA_SUCCESS);
  return dout.read()[0];
}

TEST(EmuFatbin, RunsThePtxForItsArchitecture) {
  // sm_80 and sm_90 cubins and PTX, uncompressed.
  REQUIRE_FATBIN(image, "all.fatbin");
  EXPECT_EQ(blockSum(image), 999.f * 1000.f / 2);
}

TEST(EmuFatbin, CubinsOnlyAreRefused) {
  REQUIRE_FATBIN(image, "cubin.fatbin");
  PtxModule m(image);
  EXPECT_EQ(m.result, CUDA_ERROR_INVALID_IMAGE);
}

TEST(EmuFatbin, CompressedPtxIsNotSupported) {
  REQUIRE_FATBIN(image, "compressed.fatbin");
  PtxModule m(image);
  EXPECT_EQ(m.result, CUDA_ERROR_NOT_SUPPORTED);
}

TEST(EmuFatbin, AnEntryPastTheEndIsRefused) {
  REQUIRE_FATBIN(image, "all.fatbin");
  // The first entry's payload size (offset 16 + 8) made larger than the
  // container.
  uint64_t huge = image.size();
  std::memcpy(&image[16 + 8], &huge, sizeof(huge));
  PtxModule m(image);
  EXPECT_EQ(m.result, CUDA_ERROR_INVALID_IMAGE);
}

} // namespace
