# -*- Python -*-
# lit configuration for gptc's tests (loaded by lit.cfg.py with the build's paths).

import glob
import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config

config.name = "gptc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".yaml", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.gptc_obj_root, "test")

config.substitutions.append(("%models", os.path.join(config.gptc_src_root, "models")))
# Bundles and token shards built once with the tools (test/CMakeLists.txt):
# tests that only train or read them copy them instead of compiling.
config.substitutions.append(("%fixtures", config.gptc_fixtures_dir))
config.substitutions.append(("%gptc_src_root", config.gptc_src_root))
config.substitutions.append(("%gptc_obj_root", config.gptc_obj_root))
# The lit running these tests, for tests of running lit itself.
import sys
config.substitutions.append(
    ("%lit", f"{sys.executable} {os.path.abspath(sys.argv[0])}"))
config.substitutions.append(("%PATH%", config.environment["PATH"]))

llvm_config.with_system_environment(
    ["HOME", "INCLUDE", "LIB", "TMP", "TEMP", "CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"])
llvm_config.use_default_substitutions()

# Tools: gptc's own first, then LLVM's (FileCheck, not, count).
llvm_config.with_environment("PATH", config.gptc_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.gptc_tools_dir, config.llvm_tools_dir]
if lit_config.params.get("gptc_spec_check"):
    # The sanitizer job (scripts/sanitize.sh) has no MLIR tools: `gptc check`
    # runs as gptc-spec-check, the same spec parser without MLIR.
    from lit.llvm.subst import ToolSubst
    llvm_config.add_tool_substitutions(
        [ToolSubst("gptc", command=os.path.join(config.gptc_tools_dir,
                                                "gptc-spec-check"))])
else:
    llvm_config.add_tool_substitutions(["gptc", "gptc-opt", "gptc-ref-run"],
                                       tool_dirs)

# ptxas (CUDA toolkit) is optional: tests that assemble PTX say
# `REQUIRES: ptxas` and are reported UNSUPPORTED without it.
ptxas = config.gptc_ptxas or shutil.which("ptxas")
if ptxas and os.path.exists(ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# The emulated CUDA device (build/lib/emu, built when the CUDA toolkit's
# headers are found): tests that run kernels on it say `REQUIRES: cuda-emu`
# and run programs with `env LD_LIBRARY_PATH=%emu_lib_dir`; those that
# compile CUDA C++ also say `REQUIRES: nvcc`.
emu_dir = getattr(config, "gptc_emu_lib_dir", "")
if emu_dir and os.path.exists(os.path.join(emu_dir, "libcuda.so.1")):
    config.available_features.add("cuda-emu")
    config.substitutions.append(("%emu_lib_dir", emu_dir))
    stub = getattr(config, "gptc_cuda_stub", "")
    if stub and os.path.exists(stub):
        config.available_features.add("cuda-stub")
        config.substitutions.append(("%cuda_stub", stub))
# A CUDA driver the dynamic loader finds without help (a machine with a
# GPU): tests of what happens without one say `UNSUPPORTED: cuda-driver`.
ldconfig = shutil.which("ldconfig") or "/sbin/ldconfig"
if os.path.exists(ldconfig) and "libcuda.so.1 " in subprocess.run(
        [ldconfig, "-p"], capture_output=True, text=True).stdout:
    config.available_features.add("cuda-driver")
nvcc = getattr(config, "gptc_nvcc", "") or shutil.which("nvcc")
if nvcc and os.path.exists(nvcc):
    config.available_features.add("nvcc")
    config.substitutions.append(("%nvcc", nvcc))

# PyTorch (Debian's python3-torch, installed by scripts/test.sh) is the
# independent oracle of test/Training/torch-agreement.test, which says
# `REQUIRES: torch` and is reported UNSUPPORTED where no python3 has it.
for python in ("/usr/bin/python3", shutil.which("python3")):
    if not python or not os.path.exists(python):
        continue
    if subprocess.run([python, "-c", "import numpy, torch"],
                      stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode == 0:
        config.available_features.add("torch")
        config.substitutions.append(("%torch_python", python))
        break

# The `safetensors` package (PyPI; Debian has none) reads gptc's
# checkpoints in test/Training/checkpoint-safetensors.test. scripts/test.sh
# installs it into BUILD/pyenv, a virtual environment over Debian's python3
# (numpy and torch come from there); UNSUPPORTED without it.
pyenv_python = os.path.join(config.gptc_obj_root, "pyenv", "bin", "python3")
if os.path.exists(pyenv_python) and subprocess.run(
        [pyenv_python, "-c", "import numpy, safetensors.numpy"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("safetensors")
    config.substitutions.append(("%safetensors_python", pyenv_python))
    # tiktoken (PyPI, the same environment): the oracle of gptc's BPE
    # tokenizer in test/Training/bpe-tokenizer.test.
    if subprocess.run([pyenv_python, "-c", "import tiktoken, regex"],
                      stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode == 0:
        config.available_features.add("tiktoken")
    # tensorboard (PyPI, the same environment): reads the event files of
    # gptc train --tensorboard in test/Training/tensorboard.test.
    if subprocess.run([pyenv_python, "-c", "from tensorboard.backend."
                       "event_processing import event_accumulator"],
                      stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode == 0:
        config.available_features.add("tensorboard")

# nvdisasm (the CUDA toolkit's, or PyPI's nvidia-cuda-nvdisasm, which
# scripts/test.sh installs into BUILD/pyenv): tests that count SASS from the
# cubins say `REQUIRES: nvdisasm` and are UNSUPPORTED without it.
nvdisasm = shutil.which("nvdisasm") or next(
    (p for p in sorted(glob.glob(os.path.join(
        config.gptc_obj_root, "pyenv", "lib", "python3*", "site-packages",
        "nvidia", "cu*", "bin", "nvdisasm"))) + ["/usr/local/cuda/bin/nvdisasm"]
     if os.path.exists(p)), None)
if nvdisasm:
    config.available_features.add("nvdisasm")
    config.substitutions.append(("%nvdisasm", nvdisasm))

# Tests that give files to another user (chown) need root.
if hasattr(os, "geteuid") and os.geteuid() == 0:
    config.available_features.add("root")

# gptc plot draws with gnuplot (Debian's gnuplot-nox, installed by setup).
if shutil.which("gnuplot"):
    config.available_features.add("gnuplot")

# Several ranks on the CPU: Open MPI's launcher (Debian's openmpi-bin,
# installed by setup). Tests run as root in containers and on a machine
# with fewer cores than some jobs have ranks; shared-memory transfers
# without ptrace-based single copy (not allowed in most containers).
if shutil.which("mpirun"):
    config.available_features.add("mpi")
    for var, value in [
        ("OMPI_ALLOW_RUN_AS_ROOT", "1"),
        ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
        ("OMPI_MCA_rmaps_base_oversubscribe", "1"),
        ("OMPI_MCA_btl_vader_single_copy_mechanism", "none"),
    ]:
        config.environment[var] = value

# Two hosts on one machine (test/Training/Inputs/two-hosts.sh: network, UTS
# and mount namespaces joined by a veth pair) need root and a kernel and
# container that allow namespaces; tests of jobs across hosts say
# `REQUIRES: netns` and are UNSUPPORTED where the probe cannot make them.
two_hosts = os.path.join(config.gptc_src_root, "test", "Training", "Inputs",
                         "two-hosts.sh")
if shutil.which("mpirun") and subprocess.run(
        ["bash", two_hosts, "--probe"], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("netns")

# A memory cgroup of a test's own (test/Training/Inputs/in-memory-cgroup.sh:
# root and a writable hierarchy with the memory controller); tests of
# cgroup limits say `REQUIRES: cgroup-memory` and are UNSUPPORTED where the
# probe cannot make one.
in_cgroup = os.path.join(config.gptc_src_root, "test", "Training", "Inputs",
                         "in-memory-cgroup.sh")
if subprocess.run(["bash", in_cgroup, "--probe"], stdout=subprocess.DEVNULL,
                  stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("cgroup-memory")

# A small file system of a test's own, to fill: a tmpfs mounted in a private
# mount namespace (unshare -m: root, and a kernel and container that allow
# it); tests of a full disk say `REQUIRES: tmpfs-mount`.
if shutil.which("unshare") and subprocess.run(
        ["unshare", "-m", "sh", "-c",
         "d=$(mktemp -d) && mount -t tmpfs -o size=16k tmpfs \"$d\" && "
         "umount \"$d\" && rmdir \"$d\""],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("tmpfs-mount")

# An x86 CPU without AVX512-FP16 (every one before Sapphire Rapids, every
# AMD one so far): code compiled for sapphirerapids is foreign to it.
try:
    with open("/proc/cpuinfo") as cpuinfo:
        flags = next((l.split(":", 1)[1].split() for l in cpuinfo
                      if l.startswith("flags")), [])
except OSError:
    flags = []
if "sse2" in flags and "avx512_fp16" not in flags:
    config.available_features.add("x86-without-avx512fp16")
