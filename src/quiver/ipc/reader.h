// Internal: what the stream and file readers and the dataset's index
// (src/quiver/dataset/) share: the schema of a stream's first message, the
// byte order, and a file's footer.
#pragma once

#include <string>
#include <vector>

#include "File_generated.h"
#include "quiver/ipc.h"
#include "quiver/ipc/decoder.h"
#include "quiver/ipc/message.h"

namespace quiver::ipc {

inline constexpr char kMagic[6] = {'A', 'R', 'R', 'O', 'W', '1'};

// The schema a Schema message carries; Invalid naming the message when it
// carries another header.
Result<SchemaPtr> SchemaFromMessage(const Message& message);

Endianness EndiannessOf(const fb::Schema* schema);

// Whether data of `endianness` must be swapped to be read here; Invalid
// when it is not native and the caller asked to keep it as it is.
Result<bool> SwapFor(Endianness endianness, const ReadOptions& options, const std::string& where);

// An IPC file's footer, verified, in memory of its own.
struct FileFooter {
  BufferPtr bytes;  // keeps `footer` alive
  const fb::Footer* footer = nullptr;
  SchemaPtr schema;     // as the file describes its batches
  SchemaPtr canonical;  // what readers hand out (canonical_storage.h)
  Endianness endianness = Endianness::kLittle;
  bool swap = false;                         // not in native order, and swap_endian is on
  DictionaryMemo dictionaries;               // ids and types; no values yet
  std::vector<fb::Block> batch_blocks;       // each checked to lie inside the file
  std::vector<fb::Block> dictionary_blocks;  // likewise
};

// Reads the magic at both ends, the footer and the schema in it (the first
// 6 bytes, the last 10 and the footer: three reads). Errors as
// FileReader::Open's after its check of what kind of file this is.
Result<FileFooter> ReadFileFooter(InputSource& source, const ReadOptions& options);

}  // namespace quiver::ipc
