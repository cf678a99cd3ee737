//===- DriverErrors.cpp - cuGetErrorName / cuGetErrorString ---------------===//
//
// The names and descriptions of cuda.h's CUresult values (the
// descriptions are the first sentence of the header's comment on each).
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

namespace {
struct ErrorText {
  CUresult code;
  const char *name, *text;
};

const ErrorText kErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "The API call returned with no errors"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE",
     "This indicates that one or more of the parameters passed to the API call "
     "is not within an acceptable range of values"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY",
     "The API call failed because it was unable to allocate enough memory or "
     "other resources to perform the requested operation"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED",
     "This indicates that the CUDA driver has not been initialized with "
     "cuInit() or that initialization has failed"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED",
     "This indicates that the CUDA driver is in the process of shutting down"},
    {CUDA_ERROR_PROFILER_DISABLED, "CUDA_ERROR_PROFILER_DISABLED",
     "This indicates profiler is not initialized for this run"},
    {CUDA_ERROR_PROFILER_NOT_INITIALIZED, "CUDA_ERROR_PROFILER_NOT_INITIALIZED",
     "Deprecated: This error return is deprecated as of CUDA 5.0"},
    {CUDA_ERROR_PROFILER_ALREADY_STARTED, "CUDA_ERROR_PROFILER_ALREADY_STARTED",
     "Deprecated: This error return is deprecated as of CUDA 5.0"},
    {CUDA_ERROR_PROFILER_ALREADY_STOPPED, "CUDA_ERROR_PROFILER_ALREADY_STOPPED",
     "Deprecated: This error return is deprecated as of CUDA 5.0"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY",
     "This indicates that the CUDA driver that the application has loaded is a "
     "stub library"},
    {CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER,
     "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER",
     "This indicates that the API call requires a newer CUDA driver than the "
     "one currently installed"},
    {CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA_ERROR_DEVICE_UNAVAILABLE",
     "This indicates that requested CUDA device is unavailable at the current "
     "time"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE",
     "This indicates that no CUDA-capable devices were detected by the "
     "installed CUDA driver"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE",
     "This indicates that the device ordinal supplied by the user does not "
     "correspond to a valid CUDA device or that the action requested is "
     "invalid for the specified device"},
    {CUDA_ERROR_DEVICE_NOT_LICENSED, "CUDA_ERROR_DEVICE_NOT_LICENSED",
     "This error indicates that the Grid license is not applied"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE",
     "This indicates that the device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT",
     "This most frequently indicates that there is no context bound to the "
     "current thread"},
    {CUDA_ERROR_CONTEXT_ALREADY_CURRENT, "CUDA_ERROR_CONTEXT_ALREADY_CURRENT",
     "This indicated that the context being supplied as a parameter to the API "
     "call was already the active context"},
    {CUDA_ERROR_MAP_FAILED, "CUDA_ERROR_MAP_FAILED",
     "This indicates that a map or register operation has failed"},
    {CUDA_ERROR_UNMAP_FAILED, "CUDA_ERROR_UNMAP_FAILED",
     "This indicates that an unmap or unregister operation has failed"},
    {CUDA_ERROR_ARRAY_IS_MAPPED, "CUDA_ERROR_ARRAY_IS_MAPPED",
     "This indicates that the specified array is currently mapped and thus "
     "cannot be destroyed"},
    {CUDA_ERROR_ALREADY_MAPPED, "CUDA_ERROR_ALREADY_MAPPED",
     "This indicates that the resource is already mapped"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "This indicates that there is no kernel image available that is suitable "
     "for the device"},
    {CUDA_ERROR_ALREADY_ACQUIRED, "CUDA_ERROR_ALREADY_ACQUIRED",
     "This indicates that a resource has already been acquired"},
    {CUDA_ERROR_NOT_MAPPED, "CUDA_ERROR_NOT_MAPPED",
     "This indicates that a resource is not mapped"},
    {CUDA_ERROR_NOT_MAPPED_AS_ARRAY, "CUDA_ERROR_NOT_MAPPED_AS_ARRAY",
     "This indicates that a mapped resource is not available for access as an "
     "array"},
    {CUDA_ERROR_NOT_MAPPED_AS_POINTER, "CUDA_ERROR_NOT_MAPPED_AS_POINTER",
     "This indicates that a mapped resource is not available for access as a "
     "pointer"},
    {CUDA_ERROR_ECC_UNCORRECTABLE, "CUDA_ERROR_ECC_UNCORRECTABLE",
     "This indicates that an uncorrectable ECC error was detected during "
     "execution"},
    {CUDA_ERROR_UNSUPPORTED_LIMIT, "CUDA_ERROR_UNSUPPORTED_LIMIT",
     "This indicates that the CUlimit passed to the API call is not supported "
     "by the active device"},
    {CUDA_ERROR_CONTEXT_ALREADY_IN_USE, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE",
     "This indicates that the CUcontext passed to the API call can only be "
     "bound to a single CPU thread at a time but is already bound to a CPU "
     "thread"},
    {CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
     "This indicates that peer access is not supported across the given "
     "devices"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX",
     "This indicates that a PTX JIT compilation failed"},
    {CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT",
     "This indicates an error with OpenGL or DirectX context"},
    {CUDA_ERROR_NVLINK_UNCORRECTABLE, "CUDA_ERROR_NVLINK_UNCORRECTABLE",
     "This indicates that an uncorrectable NVLink error was detected during "
     "the execution"},
    {CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
     "This indicates that the PTX JIT compiler library was not found"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "This indicates that the provided PTX was compiled with an unsupported "
     "toolchain"},
    {CUDA_ERROR_JIT_COMPILATION_DISABLED, "CUDA_ERROR_JIT_COMPILATION_DISABLED",
     "This indicates that the PTX JIT compilation was disabled"},
    {CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY,
     "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY",
     "This indicates that the CUexecAffinityType passed to the API call is not "
     "supported by the active device"},
    {CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC",
     "This indicates that the code to be compiled by the PTX JIT contains "
     "unsupported call to cudaDeviceSynchronize"},
    {CUDA_ERROR_CONTAINED, "CUDA_ERROR_CONTAINED",
     "This indicates that an exception occurred on the device that is now "
     "contained by the GPU's error containment capability"},
    {CUDA_ERROR_INVALID_SOURCE, "CUDA_ERROR_INVALID_SOURCE",
     "This indicates that the device kernel source is invalid"},
    {CUDA_ERROR_FILE_NOT_FOUND, "CUDA_ERROR_FILE_NOT_FOUND",
     "This indicates that the file specified was not found"},
    {CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND,
     "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND",
     "This indicates that a link to a shared object failed to resolve"},
    {CUDA_ERROR_SHARED_OBJECT_INIT_FAILED,
     "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED",
     "This indicates that initialization of a shared object failed"},
    {CUDA_ERROR_OPERATING_SYSTEM, "CUDA_ERROR_OPERATING_SYSTEM",
     "This indicates that an OS call failed"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE",
     "This indicates that a resource handle passed to the API call was not "
     "valid"},
    {CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE",
     "This indicates that a resource required by the API call is not in a "
     "valid state to perform the requested operation"},
    {CUDA_ERROR_LOSSY_QUERY, "CUDA_ERROR_LOSSY_QUERY",
     "This indicates an attempt was made to introspect an object in a way that "
     "would discard semantically important information"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND",
     "This indicates that a named symbol was not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY",
     "This indicates that asynchronous operations issued previously have not "
     "completed yet"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "While executing a kernel, the device encountered a load or store "
     "instruction on an invalid memory address"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "This indicates that a launch did not occur because it did not have "
     "appropriate resources"},
    {CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT",
     "This indicates that the device kernel took too long to execute"},
    {CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING,
     "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING",
     "This error indicates a kernel launch that uses an incompatible texturing "
     "mode"},
    {CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
     "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
     "This error indicates that a call to cuCtxEnablePeerAccess() is trying to "
     "re-enable peer access to a context which has already had peer access to "
     "it enabled"},
    {CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED",
     "This error indicates that cuCtxDisablePeerAccess() is trying to disable "
     "peer access which has not been enabled yet via cuCtxEnablePeerAccess()"},
    {CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE",
     "This error indicates that the primary context for the specified device "
     "has already been initialized"},
    {CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED",
     "This error indicates that the context current to the calling thread has "
     "been destroyed using cuCtxDestroy, or is a primary context which has not "
     "yet been initialized"},
    {CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT",
     "A device-side assert triggered during kernel execution"},
    {CUDA_ERROR_TOO_MANY_PEERS, "CUDA_ERROR_TOO_MANY_PEERS",
     "This error indicates that the hardware resources required to enable peer "
     "access have been exhausted for one or more of the devices passed to "
     "cuCtxEnablePeerAccess()"},
    {CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
     "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
     "This error indicates that the memory range passed to cuMemHostRegister() "
     "has already been registered"},
    {CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
     "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
     "This error indicates that the pointer passed to cuMemHostUnregister() "
     "does not correspond to any currently registered memory region"},
    {CUDA_ERROR_HARDWARE_STACK_ERROR, "CUDA_ERROR_HARDWARE_STACK_ERROR",
     "While executing a kernel, the device encountered a stack error"},
    {CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION",
     "While executing a kernel, the device encountered an illegal instruction"},
    {CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS",
     "While executing a kernel, the device encountered a load or store "
     "instruction on a memory address which is not aligned"},
    {CUDA_ERROR_INVALID_ADDRESS_SPACE, "CUDA_ERROR_INVALID_ADDRESS_SPACE",
     "While executing a kernel, the device encountered an instruction which "
     "can only operate on memory locations in certain address spaces (global, "
     "shared, or local), but was supplied a memory address not belonging to an "
     "allowed address space"},
    {CUDA_ERROR_INVALID_PC, "CUDA_ERROR_INVALID_PC",
     "While executing a kernel, the device program counter wrapped its address "
     "space"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED",
     "An exception occurred on the device while executing a kernel"},
    {CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
     "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
     "This error indicates that the number of blocks launched per grid for a "
     "kernel that was launched via either cuLaunchCooperativeKernel or "
     "cuLaunchCooperativeKernelMultiDevice exceeds the maximum number of "
     "blocks as allowed by cuOccupancyMaxActiveBlocksPerMultiprocessor or "
     "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags times the number of "
     "multiprocessors as specified by the device attribute "
     "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT"},
    {CUDA_ERROR_TENSOR_MEMORY_LEAK, "CUDA_ERROR_TENSOR_MEMORY_LEAK",
     "An exception occurred on the device while exiting a kernel using tensor "
     "memory: the tensor memory was not completely deallocated"},
    {CUDA_ERROR_NOT_PERMITTED, "CUDA_ERROR_NOT_PERMITTED",
     "This error indicates that the attempted operation is not permitted"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED",
     "This error indicates that the attempted operation is not supported on "
     "the current system or device"},
    {CUDA_ERROR_SYSTEM_NOT_READY, "CUDA_ERROR_SYSTEM_NOT_READY",
     "This error indicates that the system is not yet ready to start any CUDA "
     "work"},
    {CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
     "This error indicates that there is a mismatch between the versions of "
     "the display driver and the CUDA driver"},
    {CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE,
     "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
     "This error indicates that the system was upgraded to run with forward "
     "compatibility but the visible hardware detected by CUDA does not support "
     "this configuration"},
    {CUDA_ERROR_MPS_CONNECTION_FAILED, "CUDA_ERROR_MPS_CONNECTION_FAILED",
     "This error indicates that the MPS client failed to connect to the MPS "
     "control daemon or the MPS server"},
    {CUDA_ERROR_MPS_RPC_FAILURE, "CUDA_ERROR_MPS_RPC_FAILURE",
     "This error indicates that the remote procedural call between the MPS "
     "server and the MPS client failed"},
    {CUDA_ERROR_MPS_SERVER_NOT_READY, "CUDA_ERROR_MPS_SERVER_NOT_READY",
     "This error indicates that the MPS server is not ready to accept new MPS "
     "client requests"},
    {CUDA_ERROR_MPS_MAX_CLIENTS_REACHED, "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED",
     "This error indicates that the hardware resources required to create MPS "
     "client have been exhausted"},
    {CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED,
     "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED",
     "This error indicates the the hardware resources required to support "
     "device connections have been exhausted"},
    {CUDA_ERROR_MPS_CLIENT_TERMINATED, "CUDA_ERROR_MPS_CLIENT_TERMINATED",
     "This error indicates that the MPS client has been terminated by the "
     "server"},
    {CUDA_ERROR_CDP_NOT_SUPPORTED, "CUDA_ERROR_CDP_NOT_SUPPORTED",
     "This error indicates that the module is using CUDA Dynamic Parallelism, "
     "but the current configuration, like MPS, does not support it"},
    {CUDA_ERROR_CDP_VERSION_MISMATCH, "CUDA_ERROR_CDP_VERSION_MISMATCH",
     "This error indicates that a module contains an unsupported interaction "
     "between different versions of CUDA Dynamic Parallelism"},
    {CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
     "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
     "This error indicates that the operation is not permitted when the stream "
     "is capturing"},
    {CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
     "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
     "This error indicates that the current capture sequence on the stream has "
     "been invalidated due to a previous error"},
    {CUDA_ERROR_STREAM_CAPTURE_MERGE, "CUDA_ERROR_STREAM_CAPTURE_MERGE",
     "This error indicates that the operation would have resulted in a merge "
     "of two independent capture sequences"},
    {CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED",
     "This error indicates that the capture was not initiated in this stream"},
    {CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED",
     "This error indicates that the capture sequence contains a fork that was "
     "not joined to the primary stream"},
    {CUDA_ERROR_STREAM_CAPTURE_ISOLATION, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION",
     "This error indicates that a dependency would have been created which "
     "crosses the capture sequence boundary"},
    {CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
     "This error indicates a disallowed implicit dependency on a current "
     "capture sequence from cudaStreamLegacy"},
    {CUDA_ERROR_CAPTURED_EVENT, "CUDA_ERROR_CAPTURED_EVENT",
     "This error indicates that the operation is not permitted on an event "
     "which was last recorded in a capturing stream"},
    {CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
     "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD",
     "A stream capture sequence not initiated with the "
     "CU_STREAM_CAPTURE_MODE_RELAXED argument to cuStreamBeginCapture was "
     "passed to cuStreamEndCapture in a different thread"},
    {CUDA_ERROR_TIMEOUT, "CUDA_ERROR_TIMEOUT",
     "This error indicates that the timeout specified for the wait operation "
     "has lapsed"},
    {CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
     "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE",
     "This error indicates that the graph update was not performed because it "
     "included changes which violated constraints specific to instantiated "
     "graph update"},
    {CUDA_ERROR_EXTERNAL_DEVICE, "CUDA_ERROR_EXTERNAL_DEVICE",
     "This indicates that an async error has occurred in a device outside of "
     "CUDA"},
    {CUDA_ERROR_INVALID_CLUSTER_SIZE, "CUDA_ERROR_INVALID_CLUSTER_SIZE",
     "Indicates a kernel launch error due to cluster misconfiguration"},
    {CUDA_ERROR_FUNCTION_NOT_LOADED, "CUDA_ERROR_FUNCTION_NOT_LOADED",
     "Indiciates a function handle is not loaded when calling an API that "
     "requires a loaded function"},
    {CUDA_ERROR_INVALID_RESOURCE_TYPE, "CUDA_ERROR_INVALID_RESOURCE_TYPE",
     "This error indicates one or more resources passed in are not valid "
     "resource types for the operation"},
    {CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION,
     "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION",
     "This error indicates one or more resources are insufficient or "
     "non-applicable for the operation"},
    {CUDA_ERROR_KEY_ROTATION, "CUDA_ERROR_KEY_ROTATION",
     "This error indicates that an error happened during the key rotation "
     "sequence"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN",
     "This indicates that an unknown internal error has occurred"},
};

/// The entry of `error`, or null.
const ErrorText *find(CUresult error) {
  for (const ErrorText &e : kErrors)
    if (e.code == error)
      return &e;
  return nullptr;
}
} // namespace

extern "C" {

CUresult cuGetErrorName(CUresult error, const char **str) {
  if (!str)
    return CUDA_ERROR_INVALID_VALUE;
  const ErrorText *e = find(error);
  *str = e ? e->name : nullptr;
  return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult error, const char **str) {
  if (!str)
    return CUDA_ERROR_INVALID_VALUE;
  const ErrorText *e = find(error);
  *str = e ? e->text : nullptr;
  return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

} // extern "C"
