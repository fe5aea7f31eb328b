// Internal: IPC schema metadata (flatbuffers) to and from quiver types.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <string>
#include <string_view>
#include <vector>

#include "Message_generated.h"
#include "quiver/record_batch.h"
#include "quiver/status.h"
#include "quiver/type.h"

namespace quiver::ipc {

using KeyValueOffsets = flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>>;

KeyValueOffsets WriteKeyValues(flatbuffers::FlatBufferBuilder& builder,
                               const KeyValueMetadata& metadata);
KeyValueMetadata ReadKeyValues(const flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>* pairs);
// The value of `key` in `metadata`; nullptr where it is absent or given
// more than once (two answers: a reader of hints trusts neither).
const std::string* SoleValue(const KeyValueMetadata& metadata, std::string_view key);

// The flatbuffer Schema of `schema`. Types quiver cannot write are errors.
Result<flatbuffers::Offset<fb::Schema>> WriteSchema(flatbuffers::FlatBufferBuilder& builder,
                                                    const Schema& schema);

// A verified flatbuffer Schema as a quiver Schema; types quiver does not
// support (map, union, run-end encoded, list views, intervals, ...) are
// NotImplemented naming the column and the type, never misread.
Result<SchemaPtr> ReadSchema(const fb::Schema* schema);

// The dictionary id of every dictionary-encoded field, in field pre-order
// (the order the decoder meets them in).
std::vector<int64_t> DictionaryIds(const fb::Schema* schema);

// A tensor value type from its flatbuffer Type (Int / FloatingPoint /
// Bool); `where` prefixes errors.
Result<TypePtr> ReadTensorValueType(fb::Type type_type, const void* type, const std::string& where);
// The flatbuffer Type of a tensor value type.
Result<std::pair<fb::Type, flatbuffers::Offset<void>>> WriteTensorValueType(
    flatbuffers::FlatBufferBuilder& builder, const DataType& type);

// Tensor and SparseTensor messages have no extension types: an extension
// value type (arrow.bool8, quiver.bfloat16, quiver.float8_e4m3fn,
// quiver.float8_e5m2) is written as its storage type plus the message's
// custom metadata naming it (the keys a field would carry). Empty for
// other types.
KeyValueMetadata TensorValueExtensionMetadata(const DataType& type);
// The value type a message's `custom` metadata names over the `storage`
// type its header says (`storage` itself when it names none or one quiver
// does not know); Invalid when the storage is not that type's.
Result<TypePtr> ApplyTensorValueExtension(TypePtr storage, const KeyValueMetadata& custom,
                                          const std::string& where);

}  // namespace quiver::ipc
