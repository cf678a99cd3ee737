//===- AttentionKernelTest.cpp - Flash attention against naive attention --===//
//
// gpt.attention and gpt.attention_grad compiled through the real pipeline
// (their loop-nest kernels, JIT) against a naive f64 attention that builds
// the whole T x T probability matrix, on random q, k, v, dO and random
// documents: documents shorter than a tile, longer than the window, and a
// batch row with no BOS at all (one document spanning the sequence). The
// sequence lengths are not multiples of the tiles.
//
//===----------------------------------------------------------------------===//

#include "unittests/Optim/CompiledModule.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>
#include <sstream>
#include <vector>

namespace {

using gptc::test::CompiledModule;

struct MaskCase {
  const char *name;
  bool causal;
  const char *window; ///< "none", "tokens", "blocks"
  bool document;
  int64_t T;
  int64_t W;
};

void PrintTo(const MaskCase &c, std::ostream *os) { *os << c.name; }

constexpr int64_t B = 2, H = 2, D = 16;
constexpr int64_t kBos = 7;
constexpr double kScale = 0.3;

/// Batch row 0: BOS at random places (gaps of 1 to 60 tokens); row 1: none.
std::vector<int32_t> makeTokens(int64_t T, std::mt19937 &gen) {
  std::vector<int32_t> tok(B * T);
  std::uniform_int_distribution<int> other(0, 5), gap(1, 60);
  for (auto &t : tok)
    t = other(gen);
  for (int64_t t = 5; t < T; t += gap(gen))
    tok[t] = kBos;
  tok[5 + 1] = kBos; // a document of one token
  // A document longer than a 256-token chunk of the parallel BOS scans
  // (one chunk has no BOS at all).
  if (T >= 700)
    for (int64_t t = 200; t < 650; ++t)
      if (tok[t] == kBos)
        tok[t] = 0;
  return tok;
}

bool allowed(const MaskCase &c, const std::vector<int32_t> &tok, int64_t b,
             int64_t i, int64_t j) {
  if (c.causal && j > i)
    return false;
  std::string w = c.window;
  if (w == "tokens" && !(i - j < c.W))
    return false;
  if (w == "blocks" && !(i / 128 - j / 128 < c.W / 128))
    return false;
  if (c.document) {
    int di = 0, dj = 0;
    for (int64_t t = 0; t <= i; ++t)
      di += tok[b * c.T + t] == kBos;
    for (int64_t t = 0; t <= j; ++t)
      dj += tok[b * c.T + t] == kBos;
    if (di != dj)
      return false;
  }
  return true;
}

/// Naive f64 attention and its gradients; x = [q; k; v; o; dO] stacked
/// along the batch, each [B, H, T, D].
void naive(const MaskCase &c, const std::vector<int32_t> &tok,
           const std::vector<float> &x, std::vector<double> &o,
           std::vector<double> &dq, std::vector<double> &dk,
           std::vector<double> &dv) {
  int64_t T = c.T, n = B * H * T * D;
  o.assign(n, 0.0), dq.assign(n, 0.0), dk.assign(n, 0.0), dv.assign(n, 0.0);
  auto at = [&](int part, int64_t b, int64_t h, int64_t t, int64_t d) {
    return double(x[part * n + ((b * H + h) * T + t) * D + d]);
  };
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      std::vector<double> p(T * T, 0.0);
      for (int64_t i = 0; i < T; ++i) {
        double mx = -INFINITY;
        for (int64_t j = 0; j < T; ++j)
          if (allowed(c, tok, b, i, j)) {
            double s = 0;
            for (int64_t d = 0; d < D; ++d)
              s += at(0, b, h, i, d) * at(1, b, h, j, d);
            p[i * T + j] = kScale * s;
            mx = std::max(mx, kScale * s);
          }
        double z = 0;
        for (int64_t j = 0; j < T; ++j)
          if (allowed(c, tok, b, i, j))
            z += p[i * T + j] = std::exp(p[i * T + j] - mx);
        for (int64_t j = 0; j < T; ++j)
          p[i * T + j] = allowed(c, tok, b, i, j) ? p[i * T + j] / z : 0.0;
      }
      int64_t base = (b * H + h) * T * D;
      for (int64_t i = 0; i < T; ++i) {
        for (int64_t j = 0; j < T; ++j)
          for (int64_t d = 0; d < D; ++d)
            o[base + i * D + d] += p[i * T + j] * at(2, b, h, j, d);
      }
      // Gradients with the given O (part 3) and dO (part 4).
      for (int64_t i = 0; i < T; ++i) {
        double delta = 0;
        for (int64_t d = 0; d < D; ++d)
          delta += at(4, b, h, i, d) * at(3, b, h, i, d);
        for (int64_t j = 0; j < T; ++j) {
          double pij = p[i * T + j];
          if (pij == 0.0)
            continue;
          double dp = 0;
          for (int64_t d = 0; d < D; ++d) {
            dp += at(4, b, h, i, d) * at(2, b, h, j, d);
            dv[base + j * D + d] += pij * at(4, b, h, i, d);
          }
          double ds = kScale * pij * (dp - delta);
          for (int64_t d = 0; d < D; ++d) {
            dq[base + i * D + d] += ds * at(1, b, h, j, d);
            dk[base + j * D + d] += ds * at(0, b, h, i, d);
          }
        }
      }
    }
}

/// @fwd and @bwd over in/out buffers [5B, H, T, D]: in = q, k, v, o, dO;
/// out = o (fwd) or dq, dk, dv (bwd), the rest zero.
std::string moduleText(const MaskCase &c, const std::vector<int32_t> &tok) {
  int64_t T = c.T;
  std::ostringstream s;
  std::string one = "tensor<" + std::to_string(B) + "x" + std::to_string(H) +
                    "x" + std::to_string(T) + "x" + std::to_string(D) + "xf32>";
  std::string all = "tensor<" + std::to_string(5 * B) + "x" +
                    std::to_string(H) + "x" + std::to_string(T) + "x" +
                    std::to_string(D) + "xf32>";
  std::string mall = "memref" + all.substr(6);
  std::string sizes = "[" + std::to_string(B) + ", " + std::to_string(H) +
                      ", " + std::to_string(T) + ", " + std::to_string(D) + "]";
  std::string tokType =
      "tensor<" + std::to_string(B) + "x" + std::to_string(T) + "xi32>";
  std::ostringstream tokText;
  tokText << "dense<[";
  for (int64_t b = 0; b < B; ++b) {
    tokText << (b ? ", [" : "[");
    for (int64_t t = 0; t < T; ++t)
      tokText << (t ? ", " : "") << tok[b * T + t];
    tokText << "]";
  }
  tokText << "]>";
  std::string operands,
      mask = std::string("#gpt.mask<causal = ") +
             (c.causal ? "true" : "false") + ", window = " + c.window +
             ", bos = " + (c.document ? std::to_string(kBos) : "-1") + ">";
  if (c.document)
    operands += " tokens %tok : " + tokType;
  if (std::string(c.window) != "none")
    operands += " window %w : tensor<i64>";
  auto prologue = [&](const char *name) {
    s << "func.func @" << name << "(%in: " << mall << ", %out: " << mall
      << ") attributes {llvm.emit_c_interface} {\n"
      << "  %x = bufferization.to_tensor %in restrict : " << mall << " to "
      << all << "\n";
    for (int part = 0; part < 5; ++part)
      s << "  %p" << part << " = tensor.extract_slice %x[" << part * B
        << ", 0, 0, 0] " << sizes << " [1, 1, 1, 1] : " << all << " to " << one
        << "\n";
    s << "  %tok = arith.constant " << tokText.str() << " : " << tokType
      << "\n  %w = arith.constant dense<" << c.W << "> : tensor<i64>\n"
      << "  %z = arith.constant dense<0.0> : " << all << "\n";
  };
  auto epilogue = [&](std::vector<std::string> results) {
    std::string acc = "%z";
    for (size_t r = 0; r < results.size(); ++r) {
      s << "  %r" << r << " = tensor.insert_slice " << results[r] << " into "
        << acc << "[" << r * B << ", 0, 0, 0] " << sizes
        << " [1, 1, 1, 1] : " << one << " into " << all << "\n";
      acc = "%r" + std::to_string(r);
    }
    s << "  bufferization.materialize_in_destination " << acc
      << " in restrict writable %out : (" << all << ", " << mall
      << ") -> ()\n  return\n}\n";
  };
  prologue("fwd");
  auto forward = [&] {
    s << "  %o:2 = gpt.attention %p0, %p1, %p2" << operands
      << " mask = " << mask << " scale = " << kScale << " : " << one << "\n";
  };
  forward();
  epilogue({"%o#0"});
  // The backward reads the forward kernel's lse (%o#1), so a wrong lse
  // shows in dq, dk and dv.
  prologue("bwd");
  forward();
  s << "  %g:3 = gpt.attention_grad %p0, %p1, %p2, %p3, %o#1, %p4" << operands
    << " mask = " << mask << " scale = " << kScale << " : " << one << "\n";
  epilogue({"%g#0", "%g#1", "%g#2"});
  return s.str();
}

/// max |a - b| / max |b|.
double relError(const float *a, const std::vector<double> &b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    num = std::max(num, std::abs(double(a[i]) - b[i]));
    den = std::max(den, std::abs(b[i]));
  }
  return num / std::max(den, 1e-30);
}

class AttentionKernelTest : public ::testing::TestWithParam<MaskCase> {};

TEST_P(AttentionKernelTest, MatchesNaiveAttention) {
  const MaskCase &c = GetParam();
  std::mt19937 gen(1234 + c.T);
  std::vector<int32_t> tok = makeTokens(c.T, gen);
  std::string error;
  std::unique_ptr<CompiledModule> m =
      CompiledModule::compile(moduleText(c, tok), error);
  ASSERT_TRUE(m) << error;

  int64_t n = B * H * c.T * D;
  std::vector<int64_t> shape = {5 * B, H, c.T, D};
  std::vector<float> in(5 * n), out(5 * n);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (float &v : in)
    v = normal(gen);
  std::vector<double> o, dq, dk, dv;
  naive(c, tok, in, o, dq, dk, dv);
  ASSERT_TRUE(m->run<float>("fwd", shape, in, out));
  double eo = relError(out.data(), o);
  // The backward kernels take the true output.
  for (int64_t i = 0; i < n; ++i)
    in[3 * n + i] = static_cast<float>(o[i]);
  naive(c, tok, in, o, dq, dk, dv);
  ASSERT_TRUE(m->run<float>("bwd", shape, in, out));
  double eq = relError(out.data(), dq), ek = relError(out.data() + n, dk),
         ev = relError(out.data() + 2 * n, dv);
  std::printf("[ attention %s ] T=%lld W=%lld rel. error: o %.2e dq %.2e dk "
              "%.2e dv %.2e\n",
              c.name, (long long)c.T, (long long)c.W, eo, eq, ek, ev);
  EXPECT_LT(eo, 1e-5);
  EXPECT_LT(eq, 1e-4);
  EXPECT_LT(ek, 1e-4);
  EXPECT_LT(ev, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(
    Masks, AttentionKernelTest,
    ::testing::Values(
        MaskCase{"causal", true, "none", false, 100, 0},
        MaskCase{"causal_document_window", true, "tokens", true, 150, 40},
        MaskCase{"causal_document_block_window", true, "blocks", true, 384,
                 256},
        MaskCase{"document_not_causal", false, "none", true, 90, 0},
        MaskCase{"causal_document_window_long", true, "tokens", true, 700, 300},
        MaskCase{"document_not_causal_long", false, "none", true, 700, 0},
        MaskCase{"not_causal_no_mask", false, "none", false, 70, 0}),
    [](const ::testing::TestParamInfo<MaskCase> &info) {
      return std::string(info.param.name);
    });

} // namespace
