//===- StepLibrary.cpp - The entry points of a compiled step --------------===//

#include "runtime/StepLibrary.h"

#include "runtime/ElfCheck.h"
#include "runtime/StepLayout.h"

#include <dlfcn.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace gptc {
namespace runtime {

namespace {

std::string dlerrorText() {
  const char *e = dlerror();
  return e ? e : "unknown dlerror";
}

} // namespace

bool StepLibrary::load(const std::string &path, std::string &error) {
  gradFn = updateFn = evalFn = nullptr;
  // dlopen would hand back an already loaded library of the same name
  // without looking at the file: check the file and open it by its real
  // path.
  char *real = realpath(path.c_str(), nullptr);
  if (!real) {
    error = "cannot load " + path + ": " + std::strerror(errno);
    return false;
  }
  // A truncated library would be mapped past its end: SIGBUS, no word.
  if (!checkCompleteSharedObject(real, error)) {
    std::free(real);
    return false;
  }
  dlerror();
  void *handle = dlopen(real, RTLD_NOW | RTLD_LOCAL);
  std::free(real);
  if (!handle) {
    error = "cannot load " + path + ": " + dlerrorText();
    // step.so binds gptc_gemm_* to the process's exported symbols.
    if (!dlsym(RTLD_DEFAULT, "gptc_gemm_f32"))
      error += " (this executable does not export gptc_gemm_*: link it "
               "with GPTCRuntime, see runtime/CMakeLists.txt)";
    return false;
  }
  struct Entry {
    const char *name;
    gptc_step_fn *fn;
  } entries[] = {{"_mlir_ciface_gptc_grad_step", &gradFn},
                 {"_mlir_ciface_gptc_update_step", &updateFn},
                 {"_mlir_ciface_gptc_eval_step", &evalFn}};
  for (Entry &e : entries) {
    dlerror();
    void *sym = dlsym(handle, e.name);
    if (!sym) {
      error = path + ": no entry point " + e.name + ": " + dlerrorText();
      gradFn = updateFn = evalFn = nullptr;
      dlclose(handle);
      return false;
    }
    *e.fn = reinterpret_cast<gptc_step_fn>(sym);
  }
  // Sampling's entry point; bundles without it train but cannot sample.
  logitsFn = reinterpret_cast<gptc_step_fn>(
      dlsym(handle, "_mlir_ciface_gptc_logits_step"));
  layout = static_cast<const char *>(dlsym(handle, layout::kLayoutSymbol));
  units = static_cast<const int64_t *>(dlsym(handle, "gptc_buffer_units"));
  layoutSha256 =
      static_cast<const char *>(dlsym(handle, layout::kLayoutHashSymbol));
  manifestSha256 =
      static_cast<const char *>(dlsym(handle, layout::kManifestHashSymbol));
  // Deliberately no dlclose (see the header).
  return true;
}

} // namespace runtime
} // namespace gptc
