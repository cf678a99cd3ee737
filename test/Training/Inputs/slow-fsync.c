/* LD_PRELOAD shim for ranks-slow-save.test: every fsync takes a second
   longer, as on a slow or loaded disk. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <unistd.h>

int fsync(int fd) {
  static int (*real)(int);
  if (!real)
    real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
  sleep(1);
  return real(fd);
}
