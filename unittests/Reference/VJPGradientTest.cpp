//===- VJPGradientTest.cpp - Finite-difference checks of every gpt VJP ----===//
//
// For each differentiable gpt op, a tiny function
//
//   func.func @forward(%x {gpt.param}, ..., %r) -> loss = sum(r * op(x...))
//
// with a fixed random `r` (an extra non-parameter argument) goes through
// gptc-autodiff; @forward_grad is evaluated by the reference interpreter and
// every entry of every parameter gradient is compared with the central
// difference (L(x + h e_i) - L(x - h e_i)) / 2h of @forward, in f64.
//
// Step and tolerance: h = 1e-6; the check is norm-wise,
//   || g_autodiff - g_fd ||_2 <= 1e-6 * || g_fd ||_2,
// for each parameter. The inputs are O(1), so the central difference has a
// truncation error ~h^2 = 1e-12 and a round-off error ~1e-16 / h = 1e-10,
// both far below the tolerance, while a wrong VJP (a missing term, a wrong
// transpose, a wrong sign) is off by O(1). Ops with kinks (relu, max,
// reduce max) get inputs at least 0.1 away from the kink (ties), much more
// than h.
//
// Not covered: compare, constant,
// iota, cumsum, embedding_grad, scatter_last and pad are not differentiable
// by design. `EveryDifferentiableOpIsCovered` fails when a differentiable op
// has no case here.
//
//===----------------------------------------------------------------------===//

#include "RefTestUtil.h"

#include "mlir/AsmParser/AsmParser.h"

#include <set>

using namespace mlir;
using namespace gptc::ref;
using namespace gptc::ref::test;

namespace {

constexpr double kStep = 1e-6;
constexpr double kTolerance = 1e-6;

/// How to fill an argument.
enum class Fill {
  Normal,       ///< N(0, 1)
  Positive,     ///< U(0.5, 2): log, sqrt, rsqrt, divisors
  AwayFromZero, ///< +-U(0.2, 1.5): relu
  Distinct,     ///< a random permutation of 0.3 * (0, 1, 2, ...) - 1: no ties
  DistinctShifted, ///< the same + 0.15: never equal to a Distinct value
  Values,          ///< the given values (integers, masks)
};

struct ArgSpec {
  std::string name; ///< without the %
  std::string type;
  bool param = false;
  Fill fill = Fill::Normal;
  std::vector<double> values = {};
};

struct GradCase {
  std::string name;
  std::vector<ArgSpec> args;
  /// MLIR defining %y (the op under test); the harness appends
  /// loss = sum(%y * %r).
  std::string body;
  std::string yType;
  /// Skip (rather than fail) when this op is not differentiable yet.
  std::string skipUnlessDifferentiable = {};
};

ArgSpec param(std::string name, std::string type, Fill fill = Fill::Normal) {
  return {std::move(name), std::move(type), true, fill, {}};
}
ArgSpec input(std::string name, std::string type, std::vector<double> values) {
  return {std::move(name), std::move(type), false, Fill::Values,
          std::move(values)};
}

std::string joinInts(ArrayRef<int64_t> v, const char *sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

/// The module of a case: @forward(args..., %r) -> sum(%y * %r).
std::string moduleSource(const GradCase &c, RankedTensorType yType) {
  std::string s = "func.func @forward(";
  for (const ArgSpec &a : c.args)
    s += "%" + a.name + ": " + a.type + (a.param ? " {gpt.param}" : "") + ", ";
  std::string elt;
  llvm::raw_string_ostream(elt) << yType.getElementType();
  std::string lossType = "tensor<" + elt + ">";
  s += "%r: " + c.yType + ") -> " + lossType + " {\n" + c.body + "\n";
  s += "  %ry = gpt.mul %y, %r {gpt.tail} : " + c.yType + "\n";
  if (yType.getRank() == 0) {
    s += "  return %ry : " + lossType + "\n}\n";
    return s;
  }
  SmallVector<int64_t> dims, ones(yType.getRank(), 1);
  for (int64_t i = 0; i < yType.getRank(); ++i)
    dims.push_back(i);
  std::string onesType = "tensor<" + joinInts(ones, "x") + "x" + elt + ">";
  s += "  %rs = gpt.reduce sum %ry dims = [" + joinInts(dims, ", ") +
       "] {gpt.tail} : " + c.yType + " -> " + onesType + "\n";
  s += "  %loss = gpt.reshape %rs {gpt.tail} : " + onesType + " to " +
       lossType + "\n";
  s += "  return %loss : " + lossType + "\n}\n";
  return s;
}

HostTensor makeValue(const ArgSpec &a, RankedTensorType type, Generator &gen) {
  HostTensor t(type.getShape());
  switch (a.fill) {
  case Fill::Normal:
    for (double &v : t.data)
      v = gen.normal();
    break;
  case Fill::Positive:
    for (double &v : t.data)
      v = gen.uniform(0.5, 2.0);
    break;
  case Fill::AwayFromZero:
    for (double &v : t.data)
      v = (gen.below(2) ? 1.0 : -1.0) * gen.uniform(0.2, 1.5);
    break;
  case Fill::Distinct:
  case Fill::DistinctShifted: {
    double shift = a.fill == Fill::DistinctShifted ? 0.15 : 0.0;
    for (int64_t i = 0; i < t.size(); ++i)
      t[i] = 0.3 * static_cast<double>(i) - 1.0 + shift;
    for (int64_t i = t.size() - 1; i > 0; --i)
      std::swap(t[i], t[static_cast<int64_t>(gen.below(i + 1))]);
    break;
  }
  case Fill::Values:
    EXPECT_EQ(static_cast<int64_t>(a.values.size()), t.size())
        << "argument %" << a.name;
    t.data = a.values;
    t.data.resize(t.size(), 0.0);
    break;
  }
  return t;
}

//===----------------------------------------------------------------------===//
// The cases
//===----------------------------------------------------------------------===//

GradCase binary(const std::string &op, Fill lhsFill = Fill::Normal,
                Fill rhsFill = Fill::Normal) {
  const char *t = "tensor<3x4xf64>";
  return {op,
          {param("a", t, lhsFill), param("b", t, rhsFill)},
          "  %y = gpt." + op + " %a, %b : " + t,
          t};
}

GradCase unary(const std::string &op, Fill fill = Fill::Normal) {
  const char *t = "tensor<3x4xf64>";
  return {op, {param("x", t, fill)}, "  %y = gpt." + op + " %x : " + t, t};
}

std::string matmulBody(const std::string &lhs, const std::string &rhs,
                       const std::string &flags, const std::string &out) {
  return "  %y = gpt.matmul %a, %b " + flags + " : " + lhs + ", " + rhs +
         " -> " + out;
}

GradCase matmul(const std::string &name, const std::string &lhs,
                const std::string &rhs, const std::string &flags,
                const std::string &out) {
  return {name,
          {param("a", lhs), param("b", rhs)},
          matmulBody(lhs, rhs, flags, out),
          out};
}

std::vector<GradCase> allCases() {
  std::vector<GradCase> cases;
  // Binary elementwise (max: distinct values, so no ties).
  cases.push_back(binary("add"));
  cases.push_back(binary("sub"));
  cases.push_back(binary("mul"));
  cases.push_back(binary("div", Fill::Normal, Fill::Positive));
  cases.push_back(binary("max", Fill::Distinct, Fill::DistinctShifted));
  cases.push_back({"mul_same_operand",
                   {param("x", "tensor<3x4xf64>")},
                   "  %y = gpt.mul %x, %x : tensor<3x4xf64>",
                   "tensor<3x4xf64>"});
  cases.push_back({"div_negative_divisor",
                   {param("a", "tensor<3x4xf64>"),
                    param("b", "tensor<3x4xf64>", Fill::Positive)},
                   "  %n = gpt.neg %b : tensor<3x4xf64>\n"
                   "  %y = gpt.div %a, %n : tensor<3x4xf64>",
                   "tensor<3x4xf64>"});

  // Unary elementwise.
  cases.push_back(unary("neg"));
  cases.push_back(unary("exp"));
  cases.push_back(unary("log", Fill::Positive));
  cases.push_back(unary("sqrt", Fill::Positive));
  cases.push_back(unary("rsqrt", Fill::Positive));
  cases.push_back(unary("tanh"));
  cases.push_back(unary("sigmoid"));
  cases.push_back(unary("square"));
  cases.push_back(unary("relu", Fill::AwayFromZero));
  cases.push_back(unary("gelu"));
  cases.push_back(unary("erf"));
  cases.push_back(unary("cos"));
  cases.push_back(unary("sin"));
  cases.push_back({"mul_scalar",
                   {param("x", "tensor<3x4xf64>")},
                   "  %y = gpt.mul_scalar %x, -2.500000e+00 : tensor<3x4xf64>",
                   "tensor<3x4xf64>"});
  cases.push_back({"add_scalar",
                   {param("x", "tensor<3x4xf64>")},
                   "  %y = gpt.add_scalar %x, 1.500000e+00 : tensor<3x4xf64>",
                   "tensor<3x4xf64>"});

  // select: the condition is an input; both branches are parameters.
  cases.push_back(
      {"select",
       {input("c", "tensor<2x3xi1>", {1, 0, 0, 1, 1, 0}),
        param("t", "tensor<2x3xf64>"), param("f", "tensor<2x3xf64>")},
       "  %y = gpt.select %c, %t, %f : tensor<2x3xi1>, "
       "tensor<2x3xf64>",
       "tensor<2x3xf64>"});

  // cast: float to float (identities in f64), and an integer input that
  // is cast to float (no gradient, must not break autodiff).
  cases.push_back({"cast_f32_to_f64",
                   {param("x", "tensor<2x3xf32>")},
                   "  %y = gpt.cast %x : tensor<2x3xf32> to tensor<2x3xf64>",
                   "tensor<2x3xf64>"});
  cases.push_back({"cast_f64_bf16_f64",
                   {param("x", "tensor<2x3xf64>")},
                   "  %h = gpt.cast %x : tensor<2x3xf64> to tensor<2x3xbf16>\n"
                   "  %y = gpt.cast %h : tensor<2x3xbf16> to tensor<2x3xf64>",
                   "tensor<2x3xf64>"});
  cases.push_back({"cast_int_input",
                   {param("x", "tensor<2x3xf64>"),
                    input("i", "tensor<2x3xi32>", {1, -2, 3, 0, 5, 7})},
                   "  %f = gpt.cast %i : tensor<2x3xi32> to tensor<2x3xf64>\n"
                   "  %y = gpt.mul %x, %f : tensor<2x3xf64>",
                   "tensor<2x3xf64>"});

  // Reductions.
  const char *r3 = "tensor<2x3x4xf64>";
  auto reduce = [&](const std::string &name, const std::string &kind,
                    const std::string &dims, const std::string &out,
                    Fill fill = Fill::Normal) {
    return GradCase{name,
                    {param("x", r3, fill)},
                    "  %y = gpt.reduce " + kind + " %x dims = [" + dims +
                        "] : " + r3 + " -> " + out,
                    out};
  };
  cases.push_back(reduce("reduce_sum_last", "sum", "2", "tensor<2x3x1xf64>"));
  cases.push_back(
      reduce("reduce_sum_outer", "sum", "0, 2", "tensor<1x3x1xf64>"));
  cases.push_back(
      reduce("reduce_mean_middle", "mean", "1", "tensor<2x1x4xf64>"));
  cases.push_back(
      reduce("reduce_mean_all", "mean", "0, 1, 2", "tensor<1x1x1xf64>"));
  cases.push_back(reduce("reduce_max_last", "max", "2", "tensor<2x3x1xf64>",
                         Fill::Distinct));
  cases.push_back(reduce("reduce_max_outer", "max", "0, 1", "tensor<1x1x4xf64>",
                         Fill::Distinct));

  // Broadcast, reshape, transpose.
  cases.push_back(
      {"broadcast_middle",
       {param("x", "tensor<3x1x4xf64>")},
       "  %y = gpt.broadcast %x : tensor<3x1x4xf64> to tensor<3x5x4xf64>",
       "tensor<3x5x4xf64>"});
  cases.push_back(
      {"broadcast_two_dims",
       {param("x", "tensor<1x4x1xf64>")},
       "  %y = gpt.broadcast %x : tensor<1x4x1xf64> to tensor<2x4x3xf64>",
       "tensor<2x4x3xf64>"});
  cases.push_back(
      {"broadcast_identity",
       {param("x", "tensor<2x3xf64>")},
       "  %y = gpt.broadcast %x : tensor<2x3xf64> to tensor<2x3xf64>",
       "tensor<2x3xf64>"});
  cases.push_back(
      {"reshape",
       {param("x", "tensor<2x6xf64>")},
       "  %y = gpt.reshape %x : tensor<2x6xf64> to tensor<3x2x2xf64>",
       "tensor<3x2x2xf64>"});
  cases.push_back({"reshape_to_scalar",
                   {param("x", "tensor<1x1xf64>")},
                   "  %y = gpt.reshape %x : tensor<1x1xf64> to tensor<f64>",
                   "tensor<f64>"});
  cases.push_back({"transpose",
                   {param("x", "tensor<2x3x4xf64>")},
                   "  %y = gpt.transpose %x permutation = [2, 0, 1] : "
                   "tensor<2x3x4xf64> to tensor<4x2x3xf64>",
                   "tensor<4x2x3xf64>"});

  // Slicing and joining.
  cases.push_back({"slice",
                   {param("x", "tensor<4x6xf64>")},
                   "  %y = gpt.slice %x offsets = [1, 2] : tensor<4x6xf64> to "
                   "tensor<2x3xf64>",
                   "tensor<2x3xf64>"});
  cases.push_back(
      {"concat",
       {param("a", "tensor<2x1xf64>"),
        input("b", "tensor<2x2xf64>", {0.5, -1, 2, 3}),
        param("c", "tensor<2x3xf64>")},
       "  %y = gpt.concat %a, %b, %c, %a dim = 1 : (tensor<2x1xf64>, "
       "tensor<2x2xf64>, tensor<2x3xf64>, tensor<2x1xf64>) -> "
       "tensor<2x7xf64>",
       "tensor<2x7xf64>"});
  cases.push_back(
      {"split_all_parts",
       {param("x", "tensor<2x6xf64>")},
       "  %p:3 = gpt.split %x dim = 1 : tensor<2x6xf64> -> "
       "tensor<2x2xf64>, tensor<2x2xf64>, tensor<2x2xf64>\n"
       "  %y = gpt.concat %p#2, %p#0, %p#1 dim = 0 : (tensor<2x2xf64>, "
       "tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<6x2xf64>",
       "tensor<6x2xf64>"});
  cases.push_back({"split_unused_part",
                   {param("x", "tensor<6x2xf64>")},
                   "  %p:3 = gpt.split %x dim = 0 : tensor<6x2xf64> -> "
                   "tensor<2x2xf64>, tensor<2x2xf64>, tensor<2x2xf64>\n"
                   "  %y = gpt.mul %p#2, %p#0 : tensor<2x2xf64>",
                   "tensor<2x2xf64>"});

  // Matmul: the four transpose combinations, batched, plain rank 2, a
  // rank-4 batch, and the shared rank-2 rhs of a linear layer.
  cases.push_back(matmul("matmul_nn", "tensor<2x3x4xf64>", "tensor<2x4x5xf64>",
                         "", "tensor<2x3x5xf64>"));
  cases.push_back(matmul("matmul_tn", "tensor<2x4x3xf64>", "tensor<2x4x5xf64>",
                         "transpose_lhs", "tensor<2x3x5xf64>"));
  cases.push_back(matmul("matmul_nt", "tensor<2x3x4xf64>", "tensor<2x5x4xf64>",
                         "transpose_rhs", "tensor<2x3x5xf64>"));
  cases.push_back(matmul("matmul_tt", "tensor<2x4x3xf64>", "tensor<2x5x4xf64>",
                         "transpose_lhs transpose_rhs", "tensor<2x3x5xf64>"));
  cases.push_back(matmul("matmul_rank2_nn", "tensor<3x4xf64>",
                         "tensor<4x5xf64>", "", "tensor<3x5xf64>"));
  cases.push_back(matmul("matmul_rank2_tt", "tensor<4x3xf64>",
                         "tensor<5x4xf64>", "transpose_lhs transpose_rhs",
                         "tensor<3x5xf64>"));
  cases.push_back(matmul("matmul_rank4_nt", "tensor<2x2x3x4xf64>",
                         "tensor<2x2x5x4xf64>", "transpose_rhs",
                         "tensor<2x2x3x5xf64>"));
  cases.push_back(matmul("matmul_shared_rhs_n", "tensor<2x3x4xf64>",
                         "tensor<4x5xf64>", "", "tensor<2x3x5xf64>"));
  cases.push_back(matmul("matmul_shared_rhs_t", "tensor<2x3x4xf64>",
                         "tensor<5x4xf64>", "transpose_rhs",
                         "tensor<2x3x5xf64>"));
  cases.push_back(matmul("matmul_shared_rhs_rank4", "tensor<2x2x3x4xf64>",
                         "tensor<5x4xf64>", "transpose_rhs",
                         "tensor<2x2x3x5xf64>"));

  // rms_norm with and without residual and weight.
  const char *n3 = "tensor<2x3x4xf64>";
  cases.push_back(
      {"rms_norm",
       {param("x", n3)},
       std::string("  %y = gpt.rms_norm %x eps = 1.000000e-06 : ") + n3,
       n3});
  cases.push_back({"rms_norm_residual",
                   {param("x", n3), param("res", n3)},
                   std::string("  %y = gpt.rms_norm %x residual %res : ") + n3 +
                       " eps = 1.000000e-06 : " + n3,
                   n3});
  cases.push_back(
      {"rms_norm_weight",
       {param("x", n3), param("w", "tensor<4xf64>")},
       std::string("  %y = gpt.rms_norm %x weight %w : tensor<4xf64> "
                   "eps = 1.000000e-06 : ") +
           n3,
       n3});
  cases.push_back(
      {"rms_norm_residual_weight",
       {param("x", n3), param("res", n3), param("w", "tensor<4xf64>")},
       std::string("  %y = gpt.rms_norm %x residual %res : ") + n3 +
           " weight %w : tensor<4xf64> eps = 1.000000e-06 : " + n3,
       n3});
  cases.push_back({"rms_norm_large_eps_rank2",
                   {param("x", "tensor<3x5xf64>"), param("w", "tensor<5xf64>")},
                   "  %y = gpt.rms_norm %x weight %w : tensor<5xf64> "
                   "eps = 5.000000e-01 : tensor<3x5xf64>",
                   "tensor<3x5xf64>"});

  // rotary and its inverse: the tables are inputs (no gradient), one
  // dimension broadcast.
  for (const char *inverse : {"", " inverse"}) {
    const char *x4 = "tensor<2x3x2x4xf64>", *t4 = "tensor<1x3x1x2xf64>";
    cases.push_back(
        {std::string("rotary") + (*inverse ? "_inverse" : ""),
         {param("x", x4), input("c", t4, {0.9, -0.3, 0.1, 0.7, -0.5, 0.2}),
          input("s", t4, {0.4, 0.95, -0.99, 0.6, 0.8, -0.1})},
         std::string("  %y = gpt.rotary %x, %c, %s") + inverse + " : " + x4 +
             ", " + t4,
         x4});
  }

  // Gathers: repeated ids accumulate into the same table row.
  cases.push_back({"embedding",
                   {param("table", "tensor<5x3xf64>"),
                    input("ids", "tensor<2x3xi32>", {4, 0, 4, 2, 4, 1})},
                   "  %y = gpt.embedding %table[%ids] : tensor<5x3xf64>, "
                   "tensor<2x3xi32> -> tensor<2x3x3xf64>",
                   "tensor<2x3x3xf64>"});
  cases.push_back({"gather_last",
                   {param("x", "tensor<2x3x5xf64>"),
                    input("idx", "tensor<2x3xi64>", {0, 4, 2, 2, 1, 4})},
                   "  %y = gpt.gather_last %x[%idx] : tensor<2x3x5xf64>, "
                   "tensor<2x3xi64> -> tensor<2x3xf64>",
                   "tensor<2x3xf64>"});

  // Fused cross-entropy (its VJP is gpt.cross_entropy_grad).
  cases.push_back({"cross_entropy",
                   {param("x", "tensor<2x3x5xf64>"),
                    input("t", "tensor<2x3xi32>", {0, 4, 2, 2, 1, 4})},
                   "  %y = gpt.cross_entropy %x[%t] : tensor<2x3x5xf64>, "
                   "tensor<2x3xi32> -> tensor<2x3xf64>",
                   "tensor<2x3xf64>"});

  // A composite: softmax cross-entropy as the frontend writes it (max,
  // sub, exp, sum, log, gather_last, mean) with masked (-inf) entries.
  cases.push_back(
      {"masked_softmax_chain",
       {param("s", "tensor<2x4xf64>"),
        input("m", "tensor<2x4xi1>", {1, 0, 1, 1, 1, 1, 0, 1})},
       "  %ninf = gpt.constant dense<0xFFF0000000000000> : tensor<2x4xf64>\n"
       "  %sm = gpt.select %m, %s, %ninf : tensor<2x4xi1>, tensor<2x4xf64>\n"
       "  %mx0 = gpt.reduce max %sm dims = [1] : tensor<2x4xf64> -> "
       "tensor<2x1xf64>\n"
       "  %mx = gpt.broadcast %mx0 : tensor<2x1xf64> to tensor<2x4xf64>\n"
       "  %d = gpt.sub %sm, %mx : tensor<2x4xf64>\n"
       "  %e = gpt.exp %d : tensor<2x4xf64>\n"
       "  %z0 = gpt.reduce sum %e dims = [1] : tensor<2x4xf64> -> "
       "tensor<2x1xf64>\n"
       "  %z = gpt.broadcast %z0 : tensor<2x1xf64> to tensor<2x4xf64>\n"
       "  %y = gpt.div %e, %z : tensor<2x4xf64>",
       "tensor<2x4xf64>"});

  // Fused attention (its VJP is gpt.attention_grad).
  const char *q = "tensor<1x2x4x3xf64>";
  cases.push_back(
      {"attention_causal",
       {param("q", q), param("k", q), param("v", q)},
       std::string("  %y, %lse = gpt.attention %q, %k, %v mask = "
                   "#gpt.mask<causal = true, window = none, bos = -1> "
                   "scale = 5.000000e-01 : ") +
           q,
       q,
       "gpt.attention"});
  cases.push_back(
      {"attention_window_document",
       {param("q", q), param("k", q), param("v", q),
        input("tok", "tensor<1x4xi32>", {3, 9, 2, 1}),
        input("w", "tensor<i64>", {2})},
       std::string("  %y, %lse = gpt.attention %q, %k, %v tokens %tok : "
                   "tensor<1x4xi32> window %w : tensor<i64> mask = "
                   "#gpt.mask<causal = true, window = tokens, bos = 9> "
                   "scale = 5.000000e-01 : ") +
           q,
       q,
       "gpt.attention"});
  // R15's record_blocks over two 128-key blocks: window 64 cuts at the
  // block boundary (query 128 + o sees keys 128 .. 128 + o only) and at
  // q - k < 64 inside it; a document starts at 200.
  const char *q2 = "tensor<1x1x256x2xf64>";
  std::vector<double> tokens(256, 3.0);
  tokens[200] = 9.0;
  cases.push_back(
      {"attention_record_blocks",
       {param("q", q2), param("k", q2), param("v", q2),
        input("tok", "tensor<1x256xi32>", tokens),
        input("w", "tensor<i64>", {64})},
       std::string("  %y, %lse = gpt.attention %q, %k, %v tokens %tok : "
                   "tensor<1x256xi32> window %w : tensor<i64> mask = "
                   "#gpt.mask<causal = true, window = record_blocks, bos = 9> "
                   "scale = 5.000000e-01 : ") +
           q2,
       q2,
       "gpt.attention"});
  cases.push_back(
      {"attention_document_not_causal",
       {param("q", q), param("k", q), param("v", q),
        input("tok", "tensor<1x4xi32>", {5, 7, 7, 5})},
       std::string("  %y, %lse = gpt.attention %q, %k, %v tokens %tok : "
                   "tensor<1x4xi32> mask = "
                   "#gpt.mask<causal = false, window = none, bos = 7> "
                   "scale = 7.000000e-01 : ") +
           q,
       q,
       "gpt.attention"});
  return cases;
}

//===----------------------------------------------------------------------===//
// The check
//===----------------------------------------------------------------------===//

class VJPGradientTest : public ::testing::TestWithParam<GradCase> {};

bool isDifferentiable(MLIRContext &ctx, StringRef opName) {
  std::optional<RegisteredOperationName> name =
      RegisteredOperationName::lookup(opName, &ctx);
  return name && name->hasInterface<mlir::gpt::DifferentiableOpInterface>();
}

TEST_P(VJPGradientTest, MatchesCentralDifferences) {
  const GradCase &c = GetParam();
  TestContext tc;
  if (!c.skipUnlessDifferentiable.empty() &&
      !isDifferentiable(tc.get(), c.skipUnlessDifferentiable))
    GTEST_SKIP() << c.skipUnlessDifferentiable
                 << " does not implement DifferentiableOpInterface yet";

  auto yType =
      dyn_cast_or_null<RankedTensorType>(parseType(c.yType, &tc.get()));
  ASSERT_TRUE(yType) << c.yType;
  std::string src = moduleSource(c, yType);
  OwningOpRef<ModuleOp> module = tc.parse(src);
  ASSERT_TRUE(module) << src << tc.diagnostics;
  ASSERT_TRUE(succeeded(tc.autodiff(*module))) << src << tc.diagnostics;
  auto forward = module->lookupSymbol<func::FuncOp>("forward");
  auto grad = module->lookupSymbol<func::FuncOp>("forward_grad");
  ASSERT_TRUE(forward && grad);

  uint64_t seed = 1469598103934665603ull; // FNV-1a of the case name
  for (char ch : c.name)
    seed = (seed ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  Generator gen(seed);
  SmallVector<HostTensor> args;
  SmallVector<unsigned> params;
  for (auto [i, a] : llvm::enumerate(c.args)) {
    args.push_back(makeValue(
        a, cast<RankedTensorType>(forward.getArgumentTypes()[i]), gen));
    if (a.param)
      params.push_back(i);
  }
  HostTensor r(yType.getShape());
  for (double &v : r.data)
    v = gen.normal();
  args.push_back(r);

  FailureOr<SmallVector<HostTensor>> out = evaluate(grad, args);
  ASSERT_TRUE(succeeded(out)) << src << tc.diagnostics;
  ASSERT_EQ(out->size(), params.size() + 1);
  FailureOr<SmallVector<HostTensor>> loss = evaluate(forward, args);
  ASSERT_TRUE(succeeded(loss)) << tc.diagnostics;
  EXPECT_EQ((*loss)[0][0], (*out)[0][0]) << "forward_grad's loss differs";

  auto lossAt = [&](ArrayRef<HostTensor> a) {
    FailureOr<SmallVector<HostTensor>> l = evaluate(forward, a);
    EXPECT_TRUE(succeeded(l)) << tc.diagnostics;
    return succeeded(l) ? (*l)[0][0] : std::nan("");
  };
  for (auto [k, p] : llvm::enumerate(params)) {
    const HostTensor &g = (*out)[k + 1];
    ASSERT_EQ(g.shape, args[p].shape) << "gradient of %" << c.args[p].name;
    HostTensor fd(g.shape);
    for (int64_t i = 0; i < fd.size(); ++i) {
      double x0 = args[p][i];
      args[p][i] = x0 + kStep;
      double lp = lossAt(args);
      args[p][i] = x0 - kStep;
      double lm = lossAt(args);
      args[p][i] = x0;
      fd[i] = (lp - lm) / (2 * kStep);
    }
    double diff2 = 0, ref2 = 0, worst = 0;
    int64_t worstAt = 0;
    for (int64_t i = 0; i < fd.size(); ++i) {
      double d = g[i] - fd[i];
      diff2 += d * d;
      ref2 += fd[i] * fd[i];
      if (std::fabs(d) > worst)
        worst = std::fabs(d), worstAt = i;
    }
    double rel = std::sqrt(diff2) / std::max(std::sqrt(ref2), 1e-300);
    if (ref2 == 0.0)
      rel = std::sqrt(diff2); // an all-zero gradient: compare absolutely
    EXPECT_LE(rel, kTolerance)
        << c.name << ": gradient of %" << c.args[p].name
        << " is off (norm-wise relative error " << rel << "); worst element "
        << worstAt << ": autodiff " << g[worstAt] << ", finite difference "
        << fd[worstAt] << "\n"
        << src;
  }
}

INSTANTIATE_TEST_SUITE_P(GPTOps, VJPGradientTest,
                         ::testing::ValuesIn(allCases()),
                         [](const ::testing::TestParamInfo<GradCase> &info) {
                           return info.param.name;
                         });

// Every op that implements DifferentiableOpInterface appears in the body
// of at least one case above.
TEST(VJPCoverage, EveryDifferentiableOpIsCovered) {
  TestContext tc;
  std::set<std::string> covered;
  for (const GradCase &c : allCases()) {
    auto yType =
        dyn_cast_or_null<RankedTensorType>(parseType(c.yType, &tc.get()));
    ASSERT_TRUE(yType);
    OwningOpRef<ModuleOp> m = tc.parse(moduleSource(c, yType));
    ASSERT_TRUE(m) << c.name << tc.diagnostics;
    m->walk([&](Operation *op) {
      if (op->getDialect() && op->getDialect()->getNamespace() == "gpt" &&
          !op->hasAttr("gpt.tail"))
        covered.insert(op->getName().getStringRef().str());
    });
  }
  for (RegisteredOperationName name : tc.get().getRegisteredOperations()) {
    if (name.getDialectNamespace() != "gpt" ||
        !name.hasInterface<mlir::gpt::DifferentiableOpInterface>())
      continue;
    EXPECT_TRUE(covered.count(name.getStringRef().str()))
        << name.getStringRef().str()
        << " is differentiable but has no finite-difference case";
  }
}

} // namespace

// Where elements tie for a max the VJP is not differentiable, and central
// differences cannot check it; the ties must share the gradient (as
// torch.amax), never each receive all of it. A cross-entropy over a
// zero-initialised head ties every logit of a row: there a duplicated
// share multiplied the max's round-off by the vocabulary size.
TEST(VJPTies, ReduceMaxSharesTheGradientAmongTies) {
  TestContext tc;
  OwningOpRef<ModuleOp> module = tc.parse(R"mlir(
    func.func @forward(%x: tensor<2x4xf64> {gpt.name = "x", gpt.param},
                       %r: tensor<2x1xf64> {gpt.name = "r"}) -> tensor<f64> {
      %m = gpt.reduce max %x dims = [1] : tensor<2x4xf64> -> tensor<2x1xf64>
      %p = gpt.mul %m, %r : tensor<2x1xf64>
      %s = gpt.reduce sum %p dims = [0, 1] : tensor<2x1xf64> -> tensor<1x1xf64>
      %l = gpt.reshape %s : tensor<1x1xf64> to tensor<f64>
      return %l : tensor<f64>
    })mlir");
  ASSERT_TRUE(module) << tc.diagnostics;
  ASSERT_TRUE(succeeded(tc.autodiff(*module))) << tc.diagnostics;
  auto grad = module->lookupSymbol<func::FuncOp>("forward_grad");
  ASSERT_TRUE(grad);
  HostTensor x(SmallVector<int64_t>{2, 4}), r(SmallVector<int64_t>{2, 1});
  // Row 0: a three-way tie at 3; row 1: a single max.
  x.data = {3, 1, 3, 3, -1, 2, 0.5, 1};
  r.data = {6, 5};
  FailureOr<SmallVector<HostTensor>> out = evaluate(grad, {x, r});
  ASSERT_TRUE(succeeded(out)) << tc.diagnostics;
  std::vector<double> want = {2, 0, 2, 2, 0, 5, 0, 0};
  EXPECT_EQ((*out)[1].data, want);
}
