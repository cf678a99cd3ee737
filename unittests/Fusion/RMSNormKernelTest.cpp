//===- RMSNormKernelTest.cpp - Fused RMSNorm kernels against naive math ---===//
//
// gpt.rms_norm and gpt.rms_norm_grad with residual and weight, compiled
// through the real pipeline (JIT), against the formulas in f64 on random
// rows: y = x r w and dx = r g w - x r^3 mean(g w x), x = input +
// residual, r = 1 / sqrt(mean(x^2) + eps).
//
//===----------------------------------------------------------------------===//

#include "unittests/Optim/CompiledModule.h"

#include "gtest/gtest.h"

#include <cmath>
#include <iomanip>
#include <random>
#include <sstream>

namespace {

using gptc::test::CompiledModule;

constexpr int64_t kRows = 12, kCols = 48;
constexpr double kEps = 1e-5;

/// @fwd, @bwd over buffers [3, rows, cols] = (input, grad, residual); the
/// result in slot 0.
std::string moduleText(const std::vector<float> &w) {
  std::ostringstream s, wText;
  wText << std::scientific << std::setprecision(9);
  wText << "dense<[";
  for (size_t i = 0; i < w.size(); ++i)
    wText << (i ? ", " : "") << w[i];
  wText << "]> : tensor<" << kCols << "xf32>";
  std::string one =
      "tensor<" + std::to_string(kRows) + "x" + std::to_string(kCols) + "xf32>";
  std::string all = "tensor<3x" + std::to_string(kRows) + "x" +
                    std::to_string(kCols) + "xf32>";
  std::string mall = "memref" + all.substr(6);
  std::string sizes =
      "[1, " + std::to_string(kRows) + ", " + std::to_string(kCols) + "]";
  for (const char *name : {"fwd", "bwd"}) {
    s << "func.func @" << name << "(%in: " << mall << ", %out: " << mall
      << ") attributes {llvm.emit_c_interface} {\n"
      << "  %t = bufferization.to_tensor %in restrict : " << mall << " to "
      << all << "\n";
    for (int p = 0; p < 3; ++p)
      s << "  %p" << p << " = tensor.extract_slice %t[" << p << ", 0, 0] "
        << sizes << " [1, 1, 1] : " << all << " to " << one << "\n";
    s << "  %w = arith.constant " << wText.str() << "\n";
    if (std::string(name) == "fwd")
      s << "  %r = gpt.rms_norm %p0 residual %p2 : " << one
        << " weight %w : tensor<" << kCols << "xf32> eps = 1.0e-05 : " << one
        << "\n";
    else
      s << "  %r = gpt.rms_norm_grad %p0, %p1 residual %p2 : " << one
        << " weight %w : tensor<" << kCols << "xf32> eps = 1.0e-05 : " << one
        << "\n";
    s << "  %z = arith.constant dense<0.0> : " << all << "\n"
      << "  %o = tensor.insert_slice %r into %z[0, 0, 0] " << sizes
      << " [1, 1, 1] : " << one << " into " << all << "\n"
      << "  bufferization.materialize_in_destination %o in restrict writable "
         "%out : ("
      << all << ", " << mall << ") -> ()\n  return\n}\n";
  }
  return s.str();
}

TEST(RMSNormKernelTest, ResidualAndWeightMatchTheFormulas) {
  std::mt19937 gen(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> w(kCols), in(3 * kRows * kCols), out(in.size());
  for (float &v : w)
    v = 1.0f + 0.3f * normal(gen);
  for (float &v : in)
    v = normal(gen);
  std::string error;
  std::unique_ptr<CompiledModule> m =
      CompiledModule::compile(moduleText(w), error);
  ASSERT_TRUE(m) << error;
  std::vector<int64_t> shape = {3, kRows, kCols};
  const int64_t n = kRows * kCols;
  double worstY = 0, worstDx = 0;
  ASSERT_TRUE(m->run<float>("fwd", shape, in, out));
  std::vector<float> y(out.begin(), out.begin() + n);
  ASSERT_TRUE(m->run<float>("bwd", shape, in, out));
  for (int64_t row = 0; row < kRows; ++row) {
    std::vector<double> x(kCols);
    double ms = 0, dot = 0;
    for (int64_t j = 0; j < kCols; ++j) {
      int64_t i = row * kCols + j;
      x[j] = double(in[i]) + double(in[2 * n + i]);
      ms += x[j] * x[j];
      dot += double(in[n + i]) * w[j] * x[j];
    }
    double r = 1.0 / std::sqrt(ms / kCols + kEps);
    for (int64_t j = 0; j < kCols; ++j) {
      int64_t i = row * kCols + j;
      double yRef = x[j] * r * w[j];
      double dxRef =
          r * double(in[n + i]) * w[j] - x[j] * r * r * r * dot / kCols;
      worstY = std::max(worstY, std::abs(y[i] - yRef) / (1 + std::abs(yRef)));
      worstDx =
          std::max(worstDx, std::abs(out[i] - dxRef) / (1 + std::abs(dxRef)));
    }
  }
  std::printf("[ rms_norm ] residual + weight: max error y %.2e dx %.2e\n",
              worstY, worstDx);
  EXPECT_LT(worstY, 1e-5);
  EXPECT_LT(worstDx, 1e-5);
}

} // namespace
