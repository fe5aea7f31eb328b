// `quiver demo`: the toolchain on generated data. Writes ragged images,
// embeddings and a sparse matrix, reads them back memory-mapped, checks
// shapes with enforce_shape, converts, and reports sizes, timings and
// what was zero-copy.
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>
#include <sstream>

#include "batch_writer.h"
#include "cli.h"
#include "quiver/build_info.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/shape_pattern.h"
#include "quiver/variable_shape_tensor.h"
#include "signal_cleanup.h"
#include "text_format.h"

namespace quiver::tools {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct DemoArgs {
  std::string dir;
  int64_t rows = 256;
  CommonOptions common;
};

std::string Millis(Clock::time_point start) {
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f ms", ms);
  return text;
}

// Whether every non-empty buffer of `data` is a view of someone else's
// memory (the file mapping) rather than a copy quiver made.
bool ZeroCopy(const ArrayData& data) {
  for (const BufferPtr& buffer : data.buffers) {
    if (buffer != nullptr && buffer->size() > 0 && buffer->is_owned()) return false;
  }
  for (const ArrayDataPtr& child : data.children) {
    if (child != nullptr && !ZeroCopy(*child)) return false;
  }
  return true;
}

Result<RecordBatchPtr> MakeDataset(int64_t rows, std::mt19937& random) {
  // Ragged RGB images: H and W between 32 and 96.
  QUIVER_ASSIGN_OR_RETURN(auto image_type,
                          VariableShapeTensorType::Make(uint8(), 3, {"H", "W", "C"}, {},
                                                        {std::nullopt, std::nullopt, 3}));
  std::uniform_int_distribution<int64_t> side(32, 96);
  std::vector<std::vector<uint8_t>> pixels(static_cast<size_t>(rows));
  std::vector<std::array<int64_t, 3>> shapes(static_cast<size_t>(rows));
  std::vector<std::array<int64_t, 3>> strides(static_cast<size_t>(rows));
  std::vector<VariableShapeTensorArray::RowView> views;
  for (size_t i = 0; i < pixels.size(); ++i) {
    shapes[i] = {side(random), side(random), 3};
    strides[i] = {shapes[i][1] * 3, 3, 1};
    pixels[i].resize(static_cast<size_t>(shapes[i][0] * shapes[i][1] * 3));
    for (auto& p : pixels[i]) p = static_cast<uint8_t>(random());
    views.push_back({false, pixels[i].data(), shapes[i], strides[i]});
  }
  QUIVER_ASSIGN_OR_RETURN(auto images, VariableShapeTensorArray::FromRowViews(image_type, views));
  // Embeddings: float32[128] per row.
  constexpr int64_t kWidth = 128;
  QUIVER_ASSIGN_OR_RETURN(BufferPtr values, Buffer::Allocate(rows * kWidth * 4));
  std::normal_distribution<float> normal;
  for (int64_t i = 0; i < rows * kWidth; ++i) {
    const float v = normal(random);
    std::memcpy(values->mutable_data() + i * 4, &v, 4);
  }
  QUIVER_ASSIGN_OR_RETURN(Tensor matrix, Tensor::Make(float32(), values, {rows, kWidth}));
  QUIVER_ASSIGN_OR_RETURN(auto embeddings, FixedShapeTensorArray::FromTensor(matrix));
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"image", images.data()->type, true, {}},
                    Field{"embedding", embeddings.data()->type, true, {}}};
  return RecordBatch::Make(schema, rows, {images.data(), embeddings.data()});
}

Result<SparseTensor> MakeSparse(std::mt19937& random) {
  constexpr int64_t kSide = 2000;
  QUIVER_ASSIGN_OR_RETURN(BufferPtr values, Buffer::Allocate(kSide * kSide * 4));
  std::uniform_int_distribution<int64_t> cell(0, kSide * kSide - 1);
  for (int64_t i = 0; i < kSide * kSide / 100; ++i) {
    const float v = 1.0f + static_cast<float>(i % 7);
    std::memcpy(values->mutable_data() + cell(random) * 4, &v, 4);
  }
  QUIVER_ASSIGN_OR_RETURN(Tensor dense, Tensor::Make(float32(), values, {kSide, kSide}));
  return SparseTensor::FromDense(dense, SparseFormat::kCSR);
}

Result<int64_t> WriteSparse(const SparseTensor& tensor, const std::string& path) {
  QUIVER_ASSIGN_OR_RETURN(auto sink, OpenOutputFile(path));
  QUIVER_RETURN_NOT_OK(ipc::WriteSparseTensor(tensor, sink.get()));
  const int64_t bytes = sink->position();
  QUIVER_RETURN_NOT_OK(sink->Close());
  return bytes;
}

Status Demo(const DemoArgs& args, const std::string& dir) {
  std::ostringstream discarded;  // --quiet: no report
  std::ostream& out = args.common.quiet ? discarded : std::cout;
  std::mt19937 random(23);
  out << "quiver demo: sample data in " << dir << "\n";

  // 1. Write.
  auto start = Clock::now();
  QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr batch, MakeDataset(args.rows, random));
  const std::string data_path = (fs::path(dir) / "demo.arrow").string();
  QUIVER_ASSIGN_OR_RETURN(auto writer, BatchWriter::Open(data_path, batch->schema(), {}, false));
  QUIVER_RETURN_NOT_OK(writer->Write(*batch));
  QUIVER_RETURN_NOT_OK(writer->Close());
  out << "  wrote demo.arrow: " << args.rows
      << " ragged images (uint8 [H, W, 3], H and W 32..96) and " << args.rows
      << " embeddings (float32[128]), " << FormatBytes(writer->position()) << " in "
      << Millis(start) << "\n";
  start = Clock::now();
  QUIVER_ASSIGN_OR_RETURN(SparseTensor sparse, MakeSparse(random));
  const std::string matrix_path = (fs::path(dir) / "matrix.arrow").string();
  QUIVER_ASSIGN_OR_RETURN(int64_t matrix_bytes, WriteSparse(sparse, matrix_path));
  out << "  wrote matrix.arrow: " << sparse.ToString() << ", " << FormatBytes(matrix_bytes)
      << " (dense: " << FormatBytes(sparse.size() * 4) << ") in " << Millis(start) << "\n";

  // 2. Read back memory-mapped.
  start = Clock::now();
  QUIVER_ASSIGN_OR_RETURN(auto source, ipc::OpenFileSource(data_path, /*memory_map=*/true));
  QUIVER_ASSIGN_OR_RETURN(auto reader, ipc::FileReader::Open(source));
  QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr back, reader->ReadRecordBatch(0));
  const std::string read_time = Millis(start);
  if (!back->Equals(*batch)) return Status::Invalid("demo: the batch read back differs");
  out << "  read demo.arrow memory-mapped and fully validated in " << read_time << ": image column "
      << (ZeroCopy(*back->column(0)) ? "zero-copy" : "copied") << ", embedding column "
      << (ZeroCopy(*back->column(1)) ? "zero-copy" : "copied")
      << " (views of the mapping), equal to what was written\n";
  QUIVER_ASSIGN_OR_RETURN(auto matrix_source, ipc::OpenFileSource(matrix_path));
  QUIVER_ASSIGN_OR_RETURN(SparseTensor matrix, ipc::ReadSparseTensor(matrix_source));
  if (!matrix.Equals(sparse)) return Status::Invalid("demo: the sparse matrix read back differs");

  // 3. enforce_shape.
  start = Clock::now();
  QUIVER_ASSIGN_OR_RETURN(auto images, VariableShapeTensorArray::Make(back->column(0)));
  QUIVER_ASSIGN_OR_RETURN(auto embeddings, FixedShapeTensorArray::Make(back->column(1)));
  QUIVER_ASSIGN_OR_RETURN(ShapePattern image_pattern, ShapePattern::Parse("n h w 3"));
  QUIVER_ASSIGN_OR_RETURN(ShapePattern embedding_pattern, ShapePattern::Parse("n 128"));
  QUIVER_RETURN_NOT_OK(EnforceShape(images, image_pattern).status());
  QUIVER_RETURN_NOT_OK(EnforceShape(embeddings, embedding_pattern).status());
  QUIVER_ASSIGN_OR_RETURN(ShapePattern wrong, ShapePattern::Parse("n h w 4"));
  auto refused = EnforceShape(images, wrong);
  out << "  enforce_shape: images match [n, h, w, 3], embeddings [n, 128] (" << Millis(start)
      << "); [n, h, w, 4] is refused: "
      << (refused.ok() ? std::string("(accepted?)") : refused.status().message()) << "\n";

  // 4. Convert.
  start = Clock::now();
  const std::string stream_path = (fs::path(dir) / "demo.arrows").string();
  ipc::WriteOptions zstd;
  zstd.compression =
      ipc::HasCodec(ipc::Compression::kZstd) ? ipc::Compression::kZstd : ipc::Compression::kNone;
  QUIVER_ASSIGN_OR_RETURN(auto stream, BatchWriter::Open(stream_path, back->schema(), zstd, true));
  QUIVER_RETURN_NOT_OK(stream->Write(*back));
  QUIVER_RETURN_NOT_OK(stream->Close());
  out << "  converted to demo.arrows (IPC stream, "
      << (zstd.compression == ipc::Compression::kZstd ? "zstd" : "uncompressed")
      << "): " << FormatBytes(stream->position()) << " in " << Millis(start) << "\n";
  for (SparseFormat format : {SparseFormat::kCOO, SparseFormat::kCSC, SparseFormat::kCSF}) {
    start = Clock::now();
    QUIVER_ASSIGN_OR_RETURN(SparseTensor converted, matrix.Convert(format));
    const std::string name = std::string("matrix_") + SparseFormatName(format) + ".arrow";
    QUIVER_ASSIGN_OR_RETURN(int64_t bytes, WriteSparse(converted, (fs::path(dir) / name).string()));
    out << "  converted the matrix to " << SparseFormatName(format) << ": " << FormatBytes(bytes)
        << " in " << Millis(start) << "\n";
  }
  if (!args.dir.empty()) out << "Inspect the files with: quiver inspect " << data_path << "\n";
  return Status::OK();
}

Status RunDemo(const DemoArgs& args) {
  std::string dir = args.dir;
  bool temporary = false;
  if (dir.empty()) {
    std::string pattern = (fs::temp_directory_path() / "quiver-demo-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr)
      return Status::IOError("cannot make a temporary folder");
    dir = pattern;
    temporary = true;
  } else {
    std::error_code error;
    fs::create_directories(dir, error);
    if (error) return Status::IOError("cannot make '", dir, "': ", error.message());
  }
  Status status = Demo(args, dir);
  if (temporary) {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
    if (status.ok() && !args.common.quiet)
      std::cout << "(the temporary folder is removed; keep the files with --dir DIR)\n";
  }
  return status;
}

}  // namespace

void AddDemoCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<DemoArgs>();
  CLI::App* command = app.add_subcommand(
      "demo", "Write, read back, check and convert generated sample data, with a short report");
  command->add_option("--dir", args->dir,
                      "Keep the files in this folder (default: a temporary one)");
  command->add_option("--rows", args->rows, "Rows of images and embeddings (default 256)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  AddCommonOptions(command, &args->common);
  command->footer(
      "Examples:\n"
      "  quiver demo\n"
      "  quiver demo --dir demo-files && quiver inspect demo-files/demo.arrow\n");
  command->callback([args, exit_code] {
    Status status = RunDemo(*args);
    std::cout.flush();
    if (!status.ok()) PrintError("demo", status);
    *exit_code = status.ok() ? kExitOk : kExitFailure;
  });
}

}  // namespace quiver::tools
