//===- KeepDumpHeader.h - gptc-opt keeps a gptc dump's header --*- C++ -*-===//
//
// A `gptc compile --emit=STAGE` dump starts with a header line (stage,
// target, fusion, spec, the spec's digest) and ends with the resolved spec
// ("//| " lines): `gptc compile --from` and `gptc compile DUMP.mlir` read
// them. mlir-opt's printer drops comments, so gptc-opt runs MlirOptMain into
// a temporary file and writes the header back before the IR and the spec
// after it. A --gptc-pipeline run moves the header's stage to where the
// pipeline stopped (its stop-after, else llvm); any other pass leaves the
// IR at its stage.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_TOOLS_GPTC_OPT_KEEPDUMPHEADER_H
#define GPTC_TOOLS_GPTC_OPT_KEEPDUMPHEADER_H

#include <functional>
#include <string>

namespace gptc {

/// Runs `optMain(input, output)`, keeping the header and the embedded spec
/// of an `input` file that is a gptc dump (`argv`: the command line, for
/// its --gptc-pipeline). Other inputs (stdin, plain MLIR) run as they are.
int runKeepingDumpHeader(
    int argc, char **argv, const std::string &input, const std::string &output,
    const std::function<int(const std::string &, const std::string &)>
        &optMain);

} // namespace gptc

#endif // GPTC_TOOLS_GPTC_OPT_KEEPDUMPHEADER_H
