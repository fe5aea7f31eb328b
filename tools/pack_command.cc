// `quiver pack INPUT... -o FILE`: .npy files, .npz archives and folders of
// them into one tensor column (fixed-shape when every shape agrees,
// variable-shape otherwise) plus a `name` column.
//
// Two passes: the first reads every header (a page of each file) to pick
// the column type, the second copies the elements into record batches of
// about 64 MiB, so memory stays bounded whatever the input size. A file
// must be the same in both (inode, size, modification time, header), else
// pack stops with an error; standard input and FIFOs, which can be read
// only once, are held in memory from the first pass to the second.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>

#include "batch_writer.h"
#include "cli.h"
#include "input_file.h"
#include "npy.h"
#include "npz.h"
#include "progress.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/variable_shape_tensor.h"
#include "text_format.h"

namespace quiver::tools {
namespace {

namespace fs = std::filesystem;

// What identifies a file's contents between pack's two passes: a file
// replaced (another inode), rewritten (another size or modification time)
// or moved to another device in between is refused.
struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  int64_t size = 0;
  int64_t mtime_ns = 0;

  bool operator==(const FileIdentity&) const = default;
};

// A regular file opened once and read with pread into memory of its own
// (never mapped: a file truncated meanwhile is an error, not SIGBUS).
class InputFile : public ipc::InputSource {
 public:
  static Result<std::shared_ptr<InputFile>> Open(const std::string& path) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::IOError("cannot open '", path, "': ", std::strerror(errno));
    auto file = std::shared_ptr<InputFile>(new InputFile(fd, path));
    QUIVER_ASSIGN_OR_RETURN(file->identity_, file->Stat());
    return file;
  }
  ~InputFile() override { close(fd_); }
  // What the file was when opened.
  const FileIdentity& identity() const { return identity_; }
  // What it is now.
  Result<FileIdentity> Stat() const {
    struct stat info;
    if (fstat(fd_, &info) != 0) {
      return Status::IOError("cannot stat '", path_, "': ", std::strerror(errno));
    }
    if (!S_ISREG(info.st_mode)) return Status::IOError("'", path_, "' is not a regular file");
    return FileIdentity{
        info.st_dev, info.st_ino, static_cast<int64_t>(info.st_size),
        static_cast<int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec};
  }
  int64_t size() const override { return identity_.size; }
  bool zero_copy() const override { return false; }
  std::string name() const override { return "'" + path_ + "'"; }
  Result<BufferPtr> ReadAt(int64_t offset, int64_t length) override {
    if (offset < 0 || length < 0 || offset > size() || length > size() - offset) {
      return Status::IOError("bytes [", offset, ", ", offset, " + ", length,
                             ") lie past the end of ", name(), " (", size(), " bytes)");
    }
    QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateUninitialized(length));
    for (int64_t done = 0; done < length;) {
      const ssize_t got = pread(fd_, out->mutable_data() + done, static_cast<size_t>(length - done),
                                static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return Status::IOError("cannot read ", name(), ": ", std::strerror(errno));
      if (got == 0) {
        return Status::IOError(name(), " shrank while pack read it (it had ", size(),
                               " bytes, it ended at byte ", offset + done, ")");
      }
      done += got;
    }
    return out;
  }

 private:
  InputFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
  FileIdentity identity_;
};

// One array to pack: a .npy file, or a member of a .npz archive.
struct Entry {
  std::string name;  // the row's `name`
  std::string path;
  std::optional<ZipMember> member;
  NpyHeader header;
  // A regular file: what it was when the first pass read it.
  FileIdentity identity;
  // Standard input, a FIFO or a pipe, which can be read only once: its
  // bytes, read whole by the first pass (the file or the whole archive).
  BufferPtr held;
};

bool HasExtension(const fs::path& path, const char* extension) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext == extension;
}

std::string WithoutNpy(std::string name) {
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0)
    name.resize(name.size() - 4);
  return name;
}

Status AddArchive(const std::string& path, const std::string& prefix, BufferPtr held,
                  std::vector<Entry>* entries) {
  std::shared_ptr<ipc::InputSource> source;
  FileIdentity identity;
  if (held) {
    source = ipc::BufferSource(held);
  } else {
    QUIVER_ASSIGN_OR_RETURN(auto file, InputFile::Open(path));
    identity = file->identity();
    source = std::move(file);
  }
  auto members = ReadZipDirectory(*source);
  if (!members.ok()) return members.status().WithContext(path);
  for (const ZipMember& member : *members) {
    if (!member.name.empty() && member.name.back() == '/') continue;  // a folder
    entries->push_back({prefix + WithoutNpy(member.name), path, member, {}, identity, held});
  }
  return Status::OK();
}

// The whole of standard input or a FIFO (what can be read only once).
Result<BufferPtr> ReadWhole(const std::string& input) {
  const bool standard_input = input == kStandardInput;
  const int fd = standard_input ? STDIN_FILENO : open(input.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IOError("cannot open '", input, "': ", std::strerror(errno));
  auto stream = ipc::FileDescriptorStream(fd);
  std::vector<BufferPtr> pieces;
  int64_t total = 0;
  Status status;
  while (true) {
    auto piece = stream->Read(int64_t{16} << 20);
    if (!piece.ok()) {
      status = piece.status();
      break;
    }
    if ((*piece)->size() == 0) break;
    total += (*piece)->size();
    pieces.push_back(std::move(*piece));
  }
  if (!standard_input) close(fd);
  QUIVER_RETURN_NOT_OK(status);
  QUIVER_ASSIGN_OR_RETURN(BufferPtr whole, Buffer::AllocateUninitialized(total));
  int64_t at = 0;
  for (const BufferPtr& piece : pieces) {
    std::memcpy(whole->mutable_data() + at, piece->data(), static_cast<size_t>(piece->size()));
    at += piece->size();
  }
  return whole;
}

bool IsStreamInput(const std::string& input) {
  struct stat info;
  return input == kStandardInput ||
         (stat(input.c_str(), &info) == 0 && !S_ISREG(info.st_mode) && !S_ISDIR(info.st_mode));
}

// Every input as entries, in order: files as given, folders' .npy and .npz
// files in sorted path order (recursively), named by their path relative
// to the folder. Standard input ("-", named "stdin") and FIFOs are read
// whole here, a .npz told by its zip signature.
Status CollectEntries(const std::vector<std::string>& inputs, std::vector<Entry>* entries) {
  for (const std::string& input : inputs) {
    std::error_code error;
    if (IsStreamInput(input)) {
      auto held = ReadWhole(input);
      if (!held.ok()) return held.status().WithContext(input);
      const std::string name = input == kStandardInput ? "stdin" : fs::path(input).stem().string();
      if ((*held)->size() >= 4 && std::memcmp((*held)->data(), "PK\x03\x04", 4) == 0) {
        QUIVER_RETURN_NOT_OK(
            AddArchive(input, input == kStandardInput ? "" : name + "/", *held, entries));
      } else {
        entries->push_back({name, input, std::nullopt, {}, {}, *held});
      }
    } else if (fs::is_directory(input, error)) {
      std::vector<fs::path> found;
      for (auto it = fs::recursive_directory_iterator(input, error);
           !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
        if (it->is_regular_file(error) &&
            (HasExtension(it->path(), ".npy") || HasExtension(it->path(), ".npz"))) {
          found.push_back(it->path());
        }
      }
      if (error) return Status::IOError("cannot list '", input, "': ", error.message());
      std::sort(found.begin(), found.end());
      for (const fs::path& path : found) {
        const std::string relative = path.lexically_relative(input).replace_extension().string();
        if (HasExtension(path, ".npz")) {
          QUIVER_RETURN_NOT_OK(AddArchive(path.string(), relative + "/", nullptr, entries));
        } else {
          entries->push_back({relative, path.string(), std::nullopt, {}, {}, nullptr});
        }
      }
    } else if (HasExtension(input, ".npz")) {
      QUIVER_RETURN_NOT_OK(AddArchive(input, "", nullptr, entries));
    } else {
      entries->push_back({fs::path(input).stem().string(), input, std::nullopt, {}, {}, nullptr});
    }
  }
  if (entries->empty()) return Status::Invalid("no .npy files or .npz members in the inputs");
  return Status::OK();
}

std::string Where(const Entry& entry) {
  return entry.member ? entry.path + ": " + entry.member->name : entry.path;
}

// The bytes of an entry: the whole file or member, or its first `prefix`
// bytes (enough for a .npy header), read with pread into memory of pack's
// own. The first pass (`record`) notes what the file is; the second checks
// that it still is, so that a file swapped or rewritten in between is an
// error instead of bytes that no longer fit the column planned from it.
Result<BufferPtr> EntryBytes(Entry& entry, int64_t prefix, bool record) {
  auto read = [&](ipc::InputSource& source) {
    if (entry.member) return ReadZipMember(source, *entry.member, prefix);
    return source.ReadAt(0, prefix < 0 ? source.size() : std::min(source.size(), prefix));
  };
  if (entry.held) return read(*ipc::BufferSource(entry.held));
  const Status changed = Status::IOError(
      "the file changed while pack ran (replaced or rewritten after its header was read); "
      "nothing was written");
  QUIVER_ASSIGN_OR_RETURN(auto file, InputFile::Open(entry.path));
  if (record && !entry.member) {
    entry.identity = file->identity();
  } else if (!(file->identity() == entry.identity)) {
    return changed;
  }
  QUIVER_ASSIGN_OR_RETURN(BufferPtr bytes, read(*file));
  // Rewritten in place while being read: same inode, a new time or size.
  QUIVER_ASSIGN_OR_RETURN(FileIdentity now, file->Stat());
  if (!(now == entry.identity)) return changed;
  return bytes;
}

Status ReadHeaders(std::vector<Entry>& entries) {
  for (Entry& entry : entries) {
    // A page holds any header np.save writes; a longer one is read again.
    auto bytes = EntryBytes(entry, 4096, /*record=*/true);
    if (!bytes.ok()) return bytes.status().WithContext(Where(entry));
    auto header = ParseNpyHeader((*bytes)->data(), (*bytes)->size());
    if (!header.ok() && (*bytes)->size() == 4096) {
      bytes = EntryBytes(entry, int64_t{1} << 20, /*record=*/false);
      if (!bytes.ok()) return bytes.status().WithContext(Where(entry));
      header = ParseNpyHeader((*bytes)->data(), (*bytes)->size());
    }
    if (!header.ok()) return header.status().WithContext(Where(entry));
    entry.header = *header;
    const NpyHeader& first = entries.front().header;
    if (!entry.header.type->Equals(*first.type)) {
      return Status::TypeError(Where(entry), " holds ", entry.header.type->ToString(), ", ",
                               Where(entries.front()), " ", first.type->ToString(),
                               ": one column needs one dtype");
    }
    if (entry.header.shape.size() != first.shape.size()) {
      return Status::Invalid(Where(entry), " has ", entry.header.shape.size(), " axes, ",
                             Where(entries.front()), " ", first.shape.size(),
                             ": a tensor column needs one number of axes");
    }
  }
  return Status::OK();
}

// Whether the second pass read the header the first pass planned with.
bool SameHeader(const NpyHeader& a, const NpyHeader& b) {
  return a.type->Equals(*b.type) && a.big_endian == b.big_endian &&
         a.fortran_order == b.fortran_order && a.shape == b.shape &&
         a.data_offset == b.data_offset && a.data_bytes == b.data_bytes;
}

// The column's type: fixed when every shape agrees (or asked for), with
// the uniform shape recorded for variable ones.
struct ColumnPlan {
  bool fixed = true;
  std::optional<FixedShapeTensorType> fixed_type;
  std::optional<VariableShapeTensorType> variable_type;
};

Result<ColumnPlan> PlanColumn(const std::vector<Entry>& entries, const PackArgs& args) {
  const NpyHeader& first = entries.front().header;
  const size_t ndim = first.shape.size();
  if (!args.dim_names.empty() && args.dim_names.size() != ndim) {
    return Status::Invalid("--dim-names gives ", args.dim_names.size(), " names, the arrays have ",
                           ndim, " axes");
  }
  UniformShape uniform(ndim);
  for (size_t axis = 0; axis < ndim; ++axis) uniform[axis] = first.shape[axis];
  for (const Entry& entry : entries) {
    for (size_t axis = 0; axis < ndim; ++axis) {
      if (uniform[axis] && *uniform[axis] != entry.header.shape[axis]) uniform[axis].reset();
    }
  }
  const bool same =
      std::all_of(uniform.begin(), uniform.end(), [](auto& s) { return s.has_value(); });
  ColumnPlan plan;
  plan.fixed = args.tensor == "fixed" || (args.tensor == "auto" && same);
  if (plan.fixed && !same) {
    return Status::Invalid("--tensor fixed: the arrays' shapes differ (", Where(entries.front()),
                           " ", FormatInts(first.shape), ")");
  }
  if (plan.fixed) {
    QUIVER_ASSIGN_OR_RETURN(plan.fixed_type,
                            FixedShapeTensorType::Make(first.type, first.shape, args.dim_names));
  } else {
    QUIVER_ASSIGN_OR_RETURN(plan.variable_type,
                            VariableShapeTensorType::Make(first.type, static_cast<int>(ndim),
                                                          args.dim_names, {}, uniform));
  }
  return plan;
}

// A utf8 array of `names`.
Result<ArrayDataPtr> NameArray(const std::vector<std::string>& names) {
  int64_t chars = 0;
  for (const std::string& name : names) chars += static_cast<int64_t>(name.size());
  if (chars > INT32_MAX) return Status::Invalid("names too long for one utf8 column");
  const int64_t count = static_cast<int64_t>(names.size());
  QUIVER_ASSIGN_OR_RETURN(BufferPtr offsets, Buffer::Allocate((count + 1) * 4));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr data, Buffer::Allocate(chars));
  int32_t at = 0;
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(offsets->mutable_data() + i * 4, &at, 4);
    std::memcpy(data->mutable_data() + at, names[i].data(), names[i].size());
    at += static_cast<int32_t>(names[i].size());
  }
  std::memcpy(offsets->mutable_data() + count * 4, &at, 4);
  auto array = std::make_shared<ArrayData>();
  array->type = utf8();
  array->length = count;
  array->null_count = 0;
  array->buffers = {nullptr, offsets, data};
  QUIVER_RETURN_NOT_OK(Validate(*array, ValidationLevel::kFull));  // names must be UTF-8
  return ArrayDataPtr(array);
}

Result<ArrayDataPtr> TensorColumn(const ColumnPlan& plan, const std::vector<NpyArray>& arrays) {
  if (plan.fixed) {
    const FixedShapeTensorType& type = *plan.fixed_type;
    const int64_t cell = int64_t{type.list_size()} * type.value_type()->byte_width();
    const int64_t rows = static_cast<int64_t>(arrays.size());
    QUIVER_ASSIGN_OR_RETURN(BufferPtr values, Buffer::AllocateUninitialized(rows * cell));
    for (int64_t i = 0; i < rows; ++i) {
      // Never copy more than an array holds, whatever the plan said.
      const Tensor& tensor = arrays[static_cast<size_t>(i)].tensor;
      if (!tensor.type()->Equals(*type.value_type()) ||
          !std::equal(tensor.shape().begin(), tensor.shape().end(), type.shape().begin(),
                      type.shape().end())) {
        return Status::Invalid("an array of shape ", FormatInts(tensor.shape()),
                               " does not fit the column's ", type.ToString());
      }
      if (cell > 0)
        std::memcpy(values->mutable_data() + i * cell, arrays[i].tensor.raw_data(), cell);
    }
    std::vector<int64_t> shape = {rows};
    shape.insert(shape.end(), type.shape().begin(), type.shape().end());
    std::vector<std::string> names;
    if (!type.dim_names().empty()) {
      names.push_back("");
      names.insert(names.end(), type.dim_names().begin(), type.dim_names().end());
    }
    QUIVER_ASSIGN_OR_RETURN(Tensor all, Tensor::Make(type.value_type(), values, shape, {}, names));
    QUIVER_ASSIGN_OR_RETURN(auto array, FixedShapeTensorArray::FromTensor(all, CopyMode::kNever));
    return array.data();
  }
  std::vector<VariableShapeTensorArray::RowView> rows;
  rows.reserve(arrays.size());
  for (const NpyArray& array : arrays) {
    rows.push_back({false, array.tensor.raw_data(), array.tensor.shape(), array.tensor.strides()});
  }
  QUIVER_ASSIGN_OR_RETURN(auto array,
                          VariableShapeTensorArray::FromRowViews(*plan.variable_type, rows));
  return array.data();
}

}  // namespace

Status Pack(const PackArgs& args) {
  QUIVER_ASSIGN_OR_RETURN(ipc::Compression compression, ParseCompression(args.compression));
  std::vector<Entry> entries;
  QUIVER_RETURN_NOT_OK(CollectEntries(args.inputs, &entries));
  QUIVER_RETURN_NOT_OK(ReadHeaders(entries));
  QUIVER_ASSIGN_OR_RETURN(ColumnPlan plan, PlanColumn(entries, args));
  const TypePtr tensor_type =
      plan.fixed ? plan.fixed_type->data_type() : plan.variable_type->data_type();
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"name", utf8(), false, {}}, Field{args.column, tensor_type, true, {}}};
  ipc::WriteOptions options;
  options.compression = compression;
  QUIVER_ASSIGN_OR_RETURN(
      auto writer, BatchWriter::Open(args.output, schema, options, IsStreamPath(args.output)));
  Progress progress("pack", static_cast<int64_t>(entries.size()), !args.common.quiet);
  std::vector<NpyArray> arrays;
  std::vector<std::string> names;
  int64_t pending_bytes = 0;
  int64_t copied = 0;
  auto flush = [&]() -> Status {
    if (arrays.empty()) return Status::OK();
    QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr name_column, NameArray(names));
    QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr tensor_column, TensorColumn(plan, arrays));
    QUIVER_ASSIGN_OR_RETURN(
        auto batch, RecordBatch::Make(schema, static_cast<int64_t>(arrays.size()),
                                      {name_column, tensor_column}, ValidationLevel::kNone));
    QUIVER_RETURN_NOT_OK(writer->Write(*batch));
    arrays.clear();
    names.clear();
    pending_bytes = 0;
    return Status::OK();
  };
  for (Entry& entry : entries) {
    auto bytes = EntryBytes(entry, -1, /*record=*/false);
    if (!bytes.ok()) return bytes.status().WithContext(Where(entry));
    auto array = ReadNpy(*bytes);
    if (!array.ok()) return array.status().WithContext(Where(entry));
    if (!SameHeader(array->header, entry.header)) {
      return Status::IOError(
          Where(entry), ": the file changed while pack ran (its header now ", "says ",
          array->header.type->ToString(), FormatInts(array->header.shape), ", it said ",
          entry.header.type->ToString(), FormatInts(entry.header.shape), "); nothing was written");
    }
    entry.held.reset();  // a pipe's bytes are no longer needed
    copied += array->copied ? 1 : 0;
    pending_bytes += array->header.data_bytes;
    arrays.push_back(std::move(*array));
    names.push_back(entry.name);
    if (pending_bytes >= args.batch_bytes) QUIVER_RETURN_NOT_OK(flush());
    progress.Advance(1);
  }
  QUIVER_RETURN_NOT_OK(flush());
  QUIVER_RETURN_NOT_OK(writer->Close());
  progress.Finish();
  if (!args.common.quiet) {
    std::cout << args.output << ": " << entries.size() << " arrays as "
              << (plan.fixed ? plan.fixed_type->ToString() : plan.variable_type->ToString()) << ", "
              << FormatBytes(writer->position()) << "\n";
    if (copied > 0) {
      std::cout << "  " << copied << " big-endian or Fortran-ordered arrays converted to C order\n";
    }
  }
  return Status::OK();
}

void AddPackCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<PackArgs>();
  CLI::App* command = app.add_subcommand(
      "pack", "Pack .npy files, .npz archives or folders of them into one tensor column");
  command
      ->add_option("INPUT", args->inputs,
                   ".npy files, .npz archives, folders (searched recursively)")
      ->required()
      ->check(ExistingInput(/*folders=*/true));
  command
      ->add_option("-o,--output", args->output,
                   "The IPC file to write (.arrows: an IPC stream; .parquet: a Parquet file)")
      ->required()
      ->check(IpcOutputName());
  command->add_option("--column", args->column, "Name of the tensor column (default: tensor)");
  command->add_option("--dim-names", args->dim_names, "Names of the axes, e.g. H,W,C")
      ->delimiter(',');
  command
      ->add_option("--tensor", args->tensor,
                   "auto: fixed_shape_tensor when every shape agrees, else variable_shape_tensor")
      ->check(CLI::IsMember({"auto", "fixed", "variable"}));
  command->add_option("--compression", args->compression, "Body compression (default: none)")
      ->check(CLI::IsMember({"none", "lz4", "zstd"}));
  command
      ->add_option("--batch-bytes", args->batch_bytes,
                   "Tensor bytes per record batch (default: 64 MiB)")
      ->check(AtLeast(1));
  AddCommonOptions(command, &args->common);
  command->footer(
      "Rows are named after the files (relative to a folder, without .npy) or the\n"
      ".npz members. Big-endian and Fortran-ordered arrays are stored in native C order.\n"
      "Examples:\n"
      "  quiver pack images/ -o images.arrow --dim-names H,W,C\n"
      "  quiver pack a.npy b.npy weights.npz -o arrays.arrow --compression zstd\n");
  command->callback([args, exit_code] {
    Status status = Pack(*args);
    if (!status.ok()) PrintError("pack", status);
    *exit_code = status.ok() ? kExitOk : kExitFailure;
  });
}

}  // namespace quiver::tools
