//===- OptCommandLine.h - gptc-opt's options, errors in one line -*- C++
//-*-===//
//
// mlir-opt's options (MlirOptMain's registerCLIOptions) parsed here rather
// than by MlirOptMain, so that a mistyped option, a second input file or a
// bad value is one line with the fix (driver/OptionErrors.h), as in gptc.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_TOOLS_GPTC_OPT_OPTCOMMANDLINE_H
#define GPTC_TOOLS_GPTC_OPT_OPTCOMMANDLINE_H

#include <string>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace gptc {

/// Registers mlir-opt's options and parses `argv`: the input ("-": stdin)
/// and output ("-": stdout) file names. False after printing the error.
bool parseOptCommandLine(int argc, char **argv, mlir::DialectRegistry &registry,
                         std::string &input, std::string &output);

} // namespace gptc

#endif // GPTC_TOOLS_GPTC_OPT_OPTCOMMANDLINE_H
