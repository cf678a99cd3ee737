//===- NcclBackend.h - Ranks of GPUs over NCCL ------------------*- C++ -*-===//
//
// The device backend of runtime/comm: libnccl.so.2 opened with dlopen (a
// GPU machine's NCCL, or gptc's emulated one when LD_LIBRARY_PATH names
// build/lib/emu), one communicator per job. Rank 0's ncclUniqueId reaches
// the others through the job's host backend (MPI), which also keeps the
// host collectives of the start-up checks. Collectives run on the step's
// stream, on its own buffers; after each, ncclCommGetAsyncError is polled
// and an error ends the job (Collectives::fail).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_CUDA_NCCLBACKEND_H
#define GPTC_RUNTIME_CUDA_NCCLBACKEND_H

#include "runtime/comm/Backend.h"
#include "runtime/cuda/CudaDevice.h"

#include <memory>
#include <string>

namespace gptc {
namespace runtime {
namespace cuda {

/// A communicator over `host`'s ranks on `device`, which takes `host`
/// over; null and `error` (one line: NCCL not found, or the call that
/// failed) otherwise, `host` left as it was.
std::unique_ptr<comm::Backend>
makeNcclBackend(std::unique_ptr<comm::Backend> &host, CudaDevice &device,
                std::string &error);

} // namespace cuda
} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_CUDA_NCCLBACKEND_H
