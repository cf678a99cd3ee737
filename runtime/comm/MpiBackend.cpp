//===- MpiBackend.cpp - Ranks over MPI (CPU) ------------------------------===//
//
// MPI_COMM_WORLD of the job mpirun started. All-reduces are
// MPI_Iallreduce in place, so a bucket's reduction proceeds while the step
// computes; all-gathers are blocking MPI_Allgather. MPI is initialised
// once, finalised at exit; an abort is MPI_Abort, which mpirun turns into
// the end of every rank.
//
//===----------------------------------------------------------------------===//

#include "runtime/comm/Backend.h"

// The C API only (Open MPI would add its deprecated C++ bindings).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdlib>
#include <vector>

namespace gptc {
namespace runtime {
namespace comm {

namespace {

MPI_Datatype mpiType(Dtype t) {
  switch (t) {
  case Dtype::f64:
    return MPI_DOUBLE;
  case Dtype::i32:
    return MPI_INT32_T;
  case Dtype::i64:
    return MPI_INT64_T;
  default:
    return MPI_FLOAT;
  }
}

MPI_Op mpiOp(Reduction op) {
  switch (op) {
  case Reduction::max:
    return MPI_MAX;
  case Reduction::min:
    return MPI_MIN;
  case Reduction::prod:
    return MPI_PROD;
  default:
    return MPI_SUM;
  }
}

std::string mpiError(const char *call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  return std::string(call) + " failed: " + std::string(text, size_t(len));
}

class MpiBackend final : public Backend {
public:
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string name() const override {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    std::string v(version, size_t(len));
    v = v.substr(0, v.find(','));
    return "MPI (" + v + ")";
  }
  bool init(std::string &error) {
    int provided = 0;
    int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS) {
      error = mpiError("MPI_Init_thread", rc);
      return false;
    }
    // Errors come back as codes: each becomes one line and an abort.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    std::atexit([] {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (!finalized)
        MPI_Finalize();
    });
    return true;
  }
  bool startAllReduce(void *data, int64_t count, Dtype wire, Reduction op,
                      int64_t &request, std::string &error) override {
    MPI_Request r;
    int rc = MPI_Iallreduce(MPI_IN_PLACE, data, int(count), mpiType(wire),
                            mpiOp(op), MPI_COMM_WORLD, &r);
    if (rc != MPI_SUCCESS) {
      error = mpiError("MPI_Iallreduce", rc);
      return false;
    }
    requests.push_back(r);
    request = int64_t(requests.size()) - 1;
    return true;
  }
  void progress() override {
    for (MPI_Request &r : requests)
      if (r != MPI_REQUEST_NULL) {
        int done = 0;
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
      }
  }
  bool wait(int64_t request, std::string &error) override {
    int rc = MPI_Wait(&requests[size_t(request)], MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
      error = mpiError("MPI_Wait", rc);
      return false;
    }
    // Requests are waited for in order within a step: forget them once
    // all are done.
    bool all = true;
    for (MPI_Request &r : requests)
      all = all && r == MPI_REQUEST_NULL;
    if (all)
      requests.clear();
    return true;
  }
  bool allGather(const void *in, void *out, int64_t bytes,
                 std::string &error) override {
    int rc = MPI_Allgather(in, int(bytes), MPI_BYTE, out, int(bytes), MPI_BYTE,
                           MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
      error = mpiError("MPI_Allgather", rc);
      return false;
    }
    return true;
  }
  [[noreturn]] void abortJob(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
  }

private:
  int rank_ = 0, size_ = 1;
  std::vector<MPI_Request> requests;
};

} // namespace

std::unique_ptr<Backend> makeMpiBackend(std::string &error) {
  auto backend = std::make_unique<MpiBackend>();
  if (!backend->init(error))
    return nullptr;
  return backend;
}

} // namespace comm
} // namespace runtime
} // namespace gptc
