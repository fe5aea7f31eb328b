#include "quiver/extension/tensor_metadata.h"

#include <limits>

#include "quiver/internal/checked_math.h"

namespace quiver::internal {

using nlohmann::json;

Result<json> ParseMetadataObject(std::string_view text, const std::string& type_name) {
  // allow_exceptions=false: malformed input yields a discarded value.
  json parsed = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return Status::Invalid(type_name, " metadata is not valid JSON: '", std::string(text), "'");
  }
  if (!parsed.is_object()) {
    return Status::Invalid(type_name, " metadata must be a JSON object, got '", std::string(text),
                           "'");
  }
  return parsed;
}

namespace {

// Whether `item` is an integer that fits int64.
bool IsInt64(const json& item) {
  return item.is_number_integer() &&
         !(item.is_number_unsigned() &&
           item.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
}

// Reads the array under `key` entry by entry; nullopt when the key is absent.
template <typename T, typename ReadItem>
Result<std::optional<std::vector<T>>> ReadArray(const json& object, const char* key,
                                                const std::string& type_name, const char* expected,
                                                ReadItem&& read_item) {
  auto it = object.find(key);
  // arrow-rs writes an absent optional parameter as null: read it as absent.
  if (it == object.end() || it->is_null()) return std::optional<std::vector<T>>{};
  if (!it->is_array()) {
    return Status::Invalid(type_name, " metadata '", key, "' must be an array, each entry ",
                           expected);
  }
  std::vector<T> out;
  out.reserve(it->size());
  for (size_t i = 0; i < it->size(); ++i) {
    const json& item = (*it)[i];
    std::optional<T> value = read_item(item);
    if (!value) {
      return Status::Invalid(type_name, " metadata '", key, "'[", std::to_string(i), "] must be ",
                             expected, ", got ", item.dump());
    }
    out.push_back(std::move(*value));
  }
  return std::optional<std::vector<T>>(std::move(out));
}

}  // namespace

Result<std::optional<std::vector<int64_t>>> ReadIntArray(const json& object, const char* key,
                                                         const std::string& type_name) {
  return ReadArray<int64_t>(object, key, type_name, "an int64 integer",
                            [](const json& item) -> std::optional<int64_t> {
                              if (!IsInt64(item)) return std::nullopt;
                              return item.get<int64_t>();
                            });
}

Result<std::optional<std::vector<std::optional<int64_t>>>> ReadNullableIntArray(
    const json& object, const char* key, const std::string& type_name) {
  using Entry = std::optional<int64_t>;
  return ReadArray<Entry>(object, key, type_name, "an int64 integer or null",
                          [](const json& item) -> std::optional<Entry> {
                            if (item.is_null()) return Entry{};
                            if (!IsInt64(item)) return std::nullopt;
                            return Entry{item.get<int64_t>()};
                          });
}

Result<std::optional<std::vector<std::string>>> ReadStringArray(const json& object, const char* key,
                                                                const std::string& type_name) {
  return ReadArray<std::string>(object, key, type_name, "a string",
                                [](const json& item) -> std::optional<std::string> {
                                  if (!item.is_string()) return std::nullopt;
                                  return item.get<std::string>();
                                });
}

Result<std::optional<std::vector<int64_t>>> ReadPermutation(const json& object,
                                                            const std::string& type_name) {
  QUIVER_ASSIGN_OR_RETURN(auto spec, ReadIntArray(object, "permutation", type_name));
  // arrow-rs names the key "permutations"; the spec's name wins only when
  // both agree, since picking one of two different orders would be a guess.
  QUIVER_ASSIGN_OR_RETURN(auto plural, ReadIntArray(object, "permutations", type_name));
  if (spec && plural && *spec != *plural) {
    return Status::Invalid(type_name, " metadata has both 'permutation' ",
                           internal::FormatShape(*spec), " and 'permutations' ",
                           internal::FormatShape(*plural), ", which differ");
  }
  return spec ? spec : plural;
}

bool HasOtherWritersKeys(const json& object) {
  if (object.contains("permutations")) return true;
  for (const auto& item : object.items()) {
    if (item.value().is_null()) return true;
  }
  return false;
}

Status CheckDimNames(const std::vector<std::string>& dim_names, size_t ndim,
                     const std::string& type_name) {
  if (dim_names.empty() || dim_names.size() == ndim) return Status::OK();
  return Status::Invalid(type_name, " has ", std::to_string(dim_names.size()), " dim_names for ",
                         std::to_string(ndim), " dimensions");
}

Status CheckExtensionType(const TypePtr& type, const char* name) {
  if (type && type->id() == TypeId::kExtension && type->extension_name() == name) {
    return Status::OK();
  }
  return Status::TypeError("expected an ", std::string(name), " type, got ",
                           (type ? type->ToString() : std::string("none")));
}

Status CheckTensorValueType(const TypePtr& value_type, const std::string& type_name) {
  if (!value_type) return Status::TypeError(type_name, " needs a value type");
  if (!value_type->is_tensor_value() && value_type->id() != TypeId::kBool) {
    return Status::TypeError(type_name,
                             " value type must be numeric, bool or bool8 (or bfloat16, "
                             "float8_e4m3fn, float8_e5m2), got ",
                             value_type->ToString());
  }
  return Status::OK();
}

std::string FormatTensorParameters(const std::vector<std::string>& dim_names,
                                   const std::vector<int64_t>& permutation) {
  std::string out;
  if (!dim_names.empty()) {
    out += " dim_names=[";
    for (size_t i = 0; i < dim_names.size(); ++i) out += (i ? ", " : "") + dim_names[i];
    out += "]";
  }
  if (!permutation.empty()) out += " permutation=" + internal::FormatShape(permutation);
  return out;
}

std::vector<int64_t> InvertPermutation(const std::vector<int64_t>& p) {
  std::vector<int64_t> out(p.size());
  for (size_t i = 0; i < p.size(); ++i) out[p[i]] = static_cast<int64_t>(i);
  return out;
}

}  // namespace quiver::internal
