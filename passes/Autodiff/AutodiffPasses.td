//===- AutodiffPasses.td - gptc passes ---------------------*- tablegen -*-===//
//
// Stage 2: reverse-mode autodiff. Included by passes/Passes.td (one pass-
// declaration file for the library).
//
//===----------------------------------------------------------------------===//

def AutodiffPass : Pass<"gptc-autodiff", "mlir::ModuleOp"> {
  let summary = "Reverse-mode autodiff of a gpt forward function";
  let description = [{
    For the function named by `function` (default `forward`), whose single
    result is the scalar loss, builds `<function>_grad`: the same arguments,
    results (loss, d loss / d p for every argument marked `gpt.param`, in
    argument order). The backward graph is gpt IR, produced by walking the
    forward graph backwards and asking every op for its vector-Jacobian
    product through `DifferentiableOpInterface`. Only values that depend on
    a parameter are differentiated (activity analysis). The forward
    function is kept.
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"forward\"",
           "The forward function to differentiate">,
  ];
  let dependentDialects = ["mlir::gpt::GPTDialect", "mlir::func::FuncDialect"];
}
