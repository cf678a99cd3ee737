//===- ExportCommand.cpp - `gptc export` ----------------------------------===//

#include "commands/ExportCommand.h"

#include "commands/CommandOptions.h"
#include "commands/CommandTable.h"

#include "runtime/Checkpoint.h"
#include "runtime/Files.h"
#include "runtime/HostMemory.h"
#include "runtime/ParamNames.h"
#include "runtime/SafeTensors.h"

#include <sys/stat.h>

#include <cstring>
#include <map>
#include <memory>
#include <optional>

namespace gptc::commands {
using namespace runtime;

const char *exportCommandUsage() {
  return "usage: gptc export CHECKPOINT --names SCHEME -o FILE.safetensors\n"
         "\n"
         "Writes the model weights of a checkpoint (a step_S directory of\n"
         "gptc train, or a directory of them: the newest) as one safetensors\n"
         "file under another trainer's parameter names, each tensor in its\n"
         "stored dtype (docs/checkpoints.md has the table).\n"
         "\n"
         "options:\n"
         "  --names SCHEME     modded-nanogpt (its state dict's names, which\n"
         "                     gptc train --init reads back), hf (Hugging\n"
         "                     Face GPT-2's: transformer.h.I.attn.c_attn,\n"
         "                     ...; the block matrices [in, out] as GPT-2's\n"
         "                     Conv1D keeps them, q, k and v joined into\n"
         "                     c_attn) or gptc (the manifest's). A parameter\n"
         "                     the scheme has no name for keeps its gptc\n"
         "                     name behind the prefix gptc.\n"
         "  -o, --output FILE  the file to write (atomically)\n"
         "  --force            replace FILE if it exists\n";
}

namespace {

const char *kMe = "gptc export: ";

/// A tensor of the exported file: the checkpoint's tensors it is made of
/// (its parts, one under the other) and whether it is stored transposed.
struct Export {
  std::string name;
  std::vector<const SafeTensorsFile::Tensor *> parts;
  bool transposed = false;
  std::unique_ptr<uint8_t[]> joined; ///< when not one part as it is
};

/// The exported tensors of `file` under `scheme`, in the checkpoint's
/// order (a joined tensor where its first part is); `unmapped` the
/// parameters the scheme has no name for.
bool planExports(const SafeTensorsFile &file, NameScheme scheme,
                 std::vector<Export> &exports,
                 std::vector<std::string> &unmapped, std::string &error) {
  std::map<std::string, size_t> byName;
  for (const SafeTensorsFile::Tensor &t : file.tensors()) {
    ExternalName e = externalName(t.name, scheme);
    if (!e.mapped)
      unmapped.push_back(t.name);
    auto [at, isNew] = byName.emplace(e.name, exports.size());
    if (isNew) {
      exports.push_back({e.name, {}, e.transposed, nullptr});
      exports.back().parts.assign(size_t(e.parts), nullptr);
    }
    Export &x = exports[at->second];
    if (size_t(e.parts) != x.parts.size() || x.parts[size_t(e.part)]) {
      error = file.path() + ": tensor '" + t.name + "' and another both " +
              "become '" + e.name + "' under " + nameSchemeWord(scheme) +
              "'s names";
      return false;
    }
    x.parts[size_t(e.part)] = &t;
  }
  for (const Export &x : exports) {
    const SafeTensorsFile::Tensor *first = nullptr;
    for (const SafeTensorsFile::Tensor *p : x.parts) {
      if (!p) {
        error = file.path() + ": '" + x.name + "' is made of " +
                std::to_string(x.parts.size()) + " parameters and the " +
                "checkpoint lacks one of them";
        return false;
      }
      if (!first)
        first = p;
      if (p->dtype != first->dtype || p->shape != first->shape ||
          ((x.transposed || x.parts.size() > 1) && p->shape.size() != 2)) {
        error = file.path() + ": tensor '" + p->name + "' is " +
                safeTensorsDtype(p->dtype) + " " + shapeText(p->shape) + "; '" +
                x.name + "' needs matrices of one dtype and shape";
        return false;
      }
    }
  }
  return true;
}

/// The tensor to write for `x`: its parts' rows one under the other, then
/// transposed when it is stored so.
TensorToWrite materialize(const SafeTensorsFile &file, Export &x) {
  const SafeTensorsFile::Tensor &first = *x.parts[0];
  TensorToWrite out{x.name, first.dtype, first.shape, file.data(first)};
  if (x.parts.size() == 1 && !x.transposed)
    return out;
  const int64_t width = byteWidth(first.dtype);
  const int64_t rows = first.shape[0] * int64_t(x.parts.size());
  const int64_t cols = first.shape[1];
  std::vector<uint8_t> stacked;
  for (const SafeTensorsFile::Tensor *p : x.parts)
    stacked.insert(stacked.end(), file.data(*p), file.data(*p) + p->bytes);
  x.joined.reset(new uint8_t[stacked.size()]);
  if (x.transposed) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        std::memcpy(x.joined.get() + (c * rows + r) * width,
                    stacked.data() + (r * cols + c) * width, size_t(width));
    out.shape = {cols, rows};
  } else {
    std::memcpy(x.joined.get(), stacked.data(), stacked.size());
    out.shape = {rows, cols};
  }
  out.data = x.joined.get();
  return out;
}

/// "blocks.I.lambdas (4), skip_weights, value_embeds.I (2)": `names` with
/// their indices as I, sorted, each with its count.
std::string nameKinds(const std::vector<std::string> &names) {
  std::map<std::string, int> kinds;
  for (const std::string &name : names) {
    std::string kind;
    for (size_t i = 0; i < name.size(); ++i) {
      bool digit = name[i] >= '0' && name[i] <= '9';
      bool segmentStart = i == 0 || name[i - 1] == '.';
      size_t end = i;
      while (end < name.size() && name[end] >= '0' && name[end] <= '9')
        ++end;
      if (digit && segmentStart && (end == name.size() || name[end] == '.')) {
        kind += 'I';
        i = end - 1;
      } else {
        kind += name[i];
      }
    }
    ++kinds[kind];
  }
  std::string text;
  for (const auto &[kind, count] : kinds)
    text += (text.empty() ? "" : ", ") + kind +
            (count > 1 ? " (" + std::to_string(count) + ")" : "");
  return text;
}

/// The checkpoint's model file, opened after its SHA-256 is checked
/// against the one checkpoint.json records.
bool openModel(const std::string &checkpoint, SafeTensorsFile &model,
               std::string &error) {
  const std::string path = checkpoint + "/" + kCheckpointModelFile;
  std::string want, got;
  int64_t bytes = 0;
  if (!readCheckpointFileSha256(checkpoint, kCheckpointModelFile, want,
                                error) ||
      !checkRegularFile(path, "safetensors file", error) ||
      (availableMemoryBytes() > 0 &&
       !checkFileSizeAtMost(path, availableMemoryBytes(),
                            "the memory available now", error)) ||
      !sha256File(path, got, bytes, error))
    return false;
  if (got != want) {
    error = path + ": its SHA-256 is " + got.substr(0, 12) + "..., not the " +
            "one checkpoint.json records (it was changed or damaged)";
    return false;
  }
  return model.open(path, error);
}

} // namespace

int runExportCommand(const std::vector<std::string> &args, std::ostream &out,
                     std::ostream &err) {
  static const std::vector<cli::OptionSpec> table = {
      {"--names", nullptr, cli::ValueKind::String},
      {"--output", "-o", cli::ValueKind::String},
      {"--force", nullptr, cli::ValueKind::None}};
  cli::ParsedOptions o;
  bool help = false;
  if (!cli::parseOptions(args, table, "export", err, o, help))
    return 2;
  if (help) {
    out << exportCommandUsage();
    return 0;
  }
  auto usage = [&](const std::string &what) {
    err << kMe << "error: " << what << " (see gptc export --help)\n";
    return 2;
  };
  if (o.positionals.size() != 1)
    return usage(o.positionals.empty() ? "no checkpoint"
                                       : "more than one checkpoint");
  NameScheme scheme;
  std::optional<std::string> names = o.get("--names");
  if (!names)
    return usage(std::string("no --names (") + nameSchemeWords() + ")");
  if (!parseNameScheme(*names, scheme))
    return usage("--names '" + *names + "' is not a naming; expected " +
                 nameSchemeWords());
  std::optional<std::string> file = o.get("--output");
  if (!file)
    return usage("no -o FILE.safetensors");
  auto fail = [&](const std::string &message) {
    err << kMe << "error: " << message << "\n";
    return 1;
  };
  std::string checkpoint, error;
  if (!findCheckpoint(o.positionals[0], checkpoint, error))
    return fail(error);
  struct stat st;
  if (!o.has("--force") && ::lstat(file->c_str(), &st) == 0)
    return fail(*file + ": exists; pass --force to replace it");
  SafeTensorsFile model;
  std::vector<Export> exports;
  std::vector<std::string> unmapped;
  if (!checkWritableDestination(*file, error) ||
      !openModel(checkpoint, model, error) ||
      !planExports(model, scheme, exports, unmapped, error))
    return fail(error);
  std::vector<TensorToWrite> tensors;
  for (Export &x : exports)
    tensors.push_back(materialize(model, x));
  std::map<std::string, std::string> metadata = model.metadata();
  metadata["gptc.names"] = nameSchemeWord(scheme);
  if (!writeFileAtomically(
          *file,
          [&](std::FILE *f, std::string &e) {
            return writeSafeTensors(f, *file, tensors, metadata, e);
          },
          error))
    return fail(error);
  out << "wrote " << *file << ": " << tensors.size() << " tensors of "
      << checkpoint << " under " << nameSchemeWord(scheme) << "'s names\n";
  if (!unmapped.empty())
    out << "note: " << unmapped.size() << " parameter"
        << (unmapped.size() == 1 ? " has" : "s have") << " no "
        << nameSchemeWord(scheme) << " name and keep"
        << (unmapped.size() == 1 ? "s" : "") << " gptc's behind '"
        << kGptcNamePrefix << "': " << nameKinds(unmapped) << "\n";
  return 0;
}

int runExport(const std::vector<std::string> &args, const std::string &) {
  return cli::withStdStreams<runExportCommand>(args, "");
}

const char kExportHelp[] =
    R"(  gptc export CHECKPOINT --names modded-nanogpt|hf|gptc -o FILE.safetensors
                                 a checkpoint's weights under another
                                 trainer's names
)";

} // namespace gptc::commands
