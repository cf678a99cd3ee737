// The translation unit that makes the precompiled MLIR headers of
// cmake/PrecompiledMLIR.cmake (CMake adds the headers itself).
