//===- gptc-ref-run.cpp - Run a gpt function in the reference interpreter -===//
//
//   gptc-ref-run [options] <file.mlir | ->
//
// Evaluates one function of the module with deterministic arguments and
// prints its results. Float arguments are N(0, --std) from a seeded
// generator (the same on every platform); integer arguments are uniform in
// [0, --int-bound); i1 arguments are 0 or 1; `--arg=I=V` fills argument I
// with the constant V instead. Pipe gptc-opt into it to run transformed IR:
//
//   gptc-opt --gptc-autodiff f.mlir | gptc-ref-run --function=forward_grad
//
// Output (one block per result, integers printed exactly):
//   result #0: tensor<2x3xf32>
//   [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]
//
//===----------------------------------------------------------------------===//

#include "reference/Interpreter.h"
#include "reference/Random.h"
#include "reference/ReferenceInterfaces.h"

#include "dialects/GPT/GPTDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <functional>
#include <map>

using namespace mlir;
using namespace gptc::ref;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::init("-"));
static cl::opt<std::string>
    functionName("function",
                 cl::desc("Function to run (default: @forward if present, "
                          "else the first function)"),
                 cl::init(""));
static cl::opt<unsigned> seed("seed", cl::desc("Seed of the argument values"),
                              cl::init(0));
static cl::opt<double> stddev("std",
                              cl::desc("Standard deviation of float arguments"),
                              cl::init(0.1));
static cl::opt<int64_t>
    intBound("int-bound",
             cl::desc("Integer arguments are uniform in [0, int-bound)"),
             cl::init(16));
static cl::list<std::string>
    argValues("arg", cl::desc("I=V: fill argument I with the constant V"));
static cl::opt<bool> printArgs("print-args",
                               cl::desc("Print the arguments too"),
                               cl::init(false));
static cl::opt<int> precision("precision",
                              cl::desc("Significant digits of floats"),
                              cl::init(6));

namespace {

/// The shared generator of tests and reference tools.
using Generator = gptc::ref::Random;

void printTensor(llvm::raw_ostream &os, const HostTensor &t, bool integer) {
  SmallVector<int64_t, 4> strides = t.strides();
  std::function<void(int64_t, int64_t)> rec = [&](int64_t dim, int64_t base) {
    if (dim == t.rank()) {
      double v = t[base];
      if (integer)
        os << static_cast<int64_t>(v);
      else
        os << llvm::format("%.*g", precision.getValue(), v);
      return;
    }
    os << "[";
    for (int64_t i = 0; i < t.shape[dim]; ++i) {
      if (i)
        os << ", ";
      rec(dim + 1, base + i * strides[dim]);
    }
    os << "]";
  };
  rec(0, 0);
  os << "\n";
}

bool isIntegerTensor(Type type) {
  auto t = dyn_cast<ShapedType>(type);
  return t && isa<IntegerType>(t.getElementType());
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "gptc reference interpreter (f64)\n");

  DialectRegistry registry;
  registry.insert<gpt::GPTDialect, func::FuncDialect>();
  registerReferenceExternalModels(registry);
  MLIRContext ctx(registry);

  std::string error;
  auto file = openInputFile(inputFile, &error);
  if (!file) {
    llvm::errs() << "gptc-ref-run: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
  if (!module)
    return 1;

  func::FuncOp fn;
  if (!functionName.empty()) {
    fn = module->lookupSymbol<func::FuncOp>(functionName);
  } else {
    fn = module->lookupSymbol<func::FuncOp>("forward");
    if (!fn)
      for (auto f : module->getOps<func::FuncOp>()) {
        fn = f;
        break;
      }
  }
  if (!fn || fn.isExternal()) {
    llvm::errs() << "gptc-ref-run: no function "
                 << (functionName.empty() ? std::string("to run")
                                          : "named '" + functionName + "'")
                 << "\n";
    return 1;
  }

  std::map<unsigned, double> fixed;
  for (const std::string &spec : argValues) {
    size_t eq = spec.find('=');
    unsigned index = 0;
    double value = 0.0;
    if (eq == std::string::npos ||
        llvm::StringRef(spec).take_front(eq).getAsInteger(10, index) ||
        llvm::StringRef(spec).drop_front(eq + 1).getAsDouble(value)) {
      llvm::errs() << "gptc-ref-run: --arg expects INDEX=VALUE, got '" << spec
                   << "'\n";
      return 1;
    }
    fixed[index] = value;
  }

  Generator gen(seed);
  SmallVector<HostTensor> args;
  for (BlockArgument arg : fn.getArguments()) {
    Type type = arg.getType();
    HostTensor t(shapeOf(type));
    auto it = fixed.find(arg.getArgNumber());
    if (it != fixed.end()) {
      for (double &v : t.data)
        v = it->second;
    } else if (isIntegerTensor(type)) {
      unsigned width =
          cast<ShapedType>(type).getElementType().getIntOrFloatBitWidth();
      uint64_t bound = width == 1 ? 2 : std::max<int64_t>(intBound, 1);
      for (double &v : t.data)
        v = static_cast<double>(gen.below(bound));
    } else {
      for (double &v : t.data)
        v = stddev * gen.normal();
    }
    if (printArgs) {
      llvm::outs() << "arg #" << arg.getArgNumber() << ": " << type << "\n";
      printTensor(llvm::outs(), t, isIntegerTensor(type));
    }
    args.push_back(std::move(t));
  }

  FailureOr<SmallVector<HostTensor>> results = evaluate(fn, args);
  if (failed(results))
    return 1;
  for (auto [i, t] : llvm::enumerate(*results)) {
    Type type = fn.getResultTypes()[i];
    llvm::outs() << "result #" << i << ": " << type << "\n";
    printTensor(llvm::outs(), t, isIntegerTensor(type));
  }
  return 0;
}
