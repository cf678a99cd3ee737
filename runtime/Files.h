//===- Files.h - Checked reads and crash-safe writes ------------*- C++ -*-===//
//
// What the runtime and the driver need of the file system so that nothing
// corrupts silently:
//   - `checkRegularFile` before opening an input: a FIFO, a directory, a
//     device or a symlink loop is named as such instead of blocking or
//     failing later;
//   - `sha256File`: the digest and size of a file (the bundle's step
//     library is verified against its manifest before it is loaded);
//   - `writeFileAtomically`: a file is written to a temporary sibling,
//     fsynced, renamed over the target and the directory fsynced, so a
//     crash leaves the old file or the new one;
//   - `makeStagingDirectory` + `commitDirectory`: a directory (a bundle, a
//     checkpoint) is built beside its target and swapped in with one
//     rename (RENAME_EXCHANGE when the target exists), so a kill at any
//     point leaves the old directory or the new one, never a mix;
//   - `checkWritableDestination`: before a long run, that a file can be
//     created where an output will go.
// Errors are one line naming the path.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_FILES_H
#define GPTC_RUNTIME_FILES_H

#include <cstdint>
#include <functional>
#include <string>

namespace gptc::runtime {

/// True when `path` is a regular file (after symlinks); otherwise false
/// with `error` = "PATH: <what it is instead>" (`what` names the role,
/// e.g. "shard").
bool checkRegularFile(const std::string &path, const char *what,
                      std::string &error);

/// Reads the regular file `path` whole into `text`: checked before it is
/// opened and again once open (a FIFO or device is named, never opened for
/// a blocking read), at most `maxBytes` long, read to the size it had when
/// opened. False with one `error` line naming `path` (and `what` it is for)
/// otherwise. Every small file gptc reads (manifest, checkpoint.json,
/// logs) goes through it.
bool readRegularFile(const std::string &path, const char *what,
                     uint64_t maxBytes, std::string &text, std::string &error);

/// False with `error` = "PATH: N GiB, more than BOUND (at most M); not
/// reading it" when the file at `path` is larger than `maxBytes`: checked
/// before a file is read or hashed whole, so a huge (or sparse) file is one
/// line, not minutes of hashing or std::bad_alloc.
bool checkFileSizeAtMost(const std::string &path, int64_t maxBytes,
                         const std::string &bound, std::string &error);

/// The SHA-256 (64 lowercase hex digits) and size of the file at `path`.
bool sha256File(const std::string &path, std::string &hex, int64_t &bytes,
                std::string &error);

/// Writes `path` through `write` (which returns false with `error` set on
/// failure) into a temporary sibling, fsyncs, renames it over `path` and
/// fsyncs the directory.
bool writeFileAtomically(
    const std::string &path,
    const std::function<bool(std::FILE *, std::string &)> &write,
    std::string &error);

/// Creates a staging directory beside `target` (same parent, so the
/// final rename stays on one file system): TARGET.partial-XXXXXX, holding
/// only a marker with this process's id (commitDirectory removes it).
bool makeStagingDirectory(const std::string &target, std::string &staging,
                          std::string &error);

/// fsyncs every file in `staging` and the directory itself, then puts it
/// at `target`: a plain rename when `target` does not exist, an atomic
/// exchange when it is a directory that `isReplaceable` accepts (the old
/// tree is then removed). A `target` that exists and is not replaceable
/// is left alone (error). The parent directory is fsynced.
bool commitDirectory(
    const std::string &staging, const std::string &target,
    const std::function<bool(const std::string &)> &isReplaceable,
    std::string &error);

/// Removes a directory tree (best effort; for staging directories and
/// gptc's own outputs). A symlink is removed as a link: nothing it points
/// at is touched.
void removeTree(const std::string &path);

/// True when `path` is a staging directory gptc made (a real directory of
/// this user holding makeStagingDirectory's marker) whose writer is no
/// longer running: debris of a killed compile or save.
bool isAbandonedStaging(const std::string &path);

/// Removes the staging directories of `target` (TARGET.partial-XXXXXX)
/// that a killed writer left behind: only those isAbandonedStaging
/// accepts; anything else of that name stays.
void removeStagingDirectories(const std::string &target);

/// False when `text` (JSON) nests arrays and objects deeper than
/// `maxDepth`: checked before llvm::json::parse, which recurses once per
/// level, so a hostile file is an error line and not a stack overflow.
bool jsonNestingWithin(const std::string &text, int maxDepth);

/// Creates the directory `dir` and its missing parents (mkdir -p).
bool makeDirectories(const std::string &dir, std::string &error);

/// False with `error` when no file can be created at `path` (its directory
/// is missing or not writable, or `path` is a directory).
bool checkWritableDestination(const std::string &path, std::string &error);

} // namespace gptc::runtime

#endif // GPTC_RUNTIME_FILES_H
