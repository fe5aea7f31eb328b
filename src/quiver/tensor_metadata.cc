#include "quiver/tensor_metadata.h"

#include <limits>

namespace quiver::internal {

using nlohmann::json;

Result<json> ParseMetadataObject(std::string_view text, const std::string& type_name) {
  // allow_exceptions=false: malformed input yields a discarded value.
  json parsed = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return Status::Invalid(type_name + " metadata is not valid JSON: '" + std::string(text) + "'");
  }
  if (!parsed.is_object()) {
    return Status::Invalid(type_name + " metadata must be a JSON object, got '" +
                           std::string(text) + "'");
  }
  return parsed;
}

Result<std::optional<std::vector<int64_t>>> ReadIntArray(const json& object, const char* key,
                                                         const std::string& type_name) {
  auto it = object.find(key);
  if (it == object.end()) return std::optional<std::vector<int64_t>>{};
  if (!it->is_array()) {
    return Status::Invalid(type_name + " metadata '" + key + "' must be an array of integers");
  }
  std::vector<int64_t> out;
  out.reserve(it->size());
  for (size_t i = 0; i < it->size(); ++i) {
    const json& item = (*it)[i];
    bool fits = item.is_number_integer() &&
                !(item.is_number_unsigned() &&
                  item.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
    if (!fits) {
      return Status::Invalid(type_name + " metadata '" + key + "'[" + std::to_string(i) +
                             "] must be an int64 integer, got " + item.dump());
    }
    out.push_back(item.get<int64_t>());
  }
  return std::optional<std::vector<int64_t>>(std::move(out));
}

Result<std::optional<std::vector<std::string>>> ReadStringArray(const json& object,
                                                                const char* key,
                                                                const std::string& type_name) {
  auto it = object.find(key);
  if (it == object.end()) return std::optional<std::vector<std::string>>{};
  if (!it->is_array()) {
    return Status::Invalid(type_name + " metadata '" + key + "' must be an array of strings");
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < it->size(); ++i) {
    if (!(*it)[i].is_string()) {
      return Status::Invalid(type_name + " metadata '" + key + "'[" + std::to_string(i) +
                             "] must be a string, got " + (*it)[i].dump());
    }
    out.push_back((*it)[i].get<std::string>());
  }
  return std::optional<std::vector<std::string>>(std::move(out));
}

Status CheckPermutation(const std::vector<int64_t>& permutation, size_t ndim,
                        const std::string& type_name) {
  if (permutation.empty()) return Status::OK();
  if (permutation.size() != ndim) {
    return Status::Invalid(type_name + " permutation has " + std::to_string(permutation.size()) +
                           " entries for " + std::to_string(ndim) + " dimensions");
  }
  std::vector<bool> seen(ndim, false);
  for (size_t i = 0; i < ndim; ++i) {
    int64_t p = permutation[i];
    if (p < 0 || p >= static_cast<int64_t>(ndim)) {
      return Status::Invalid(type_name + " permutation entry " + std::to_string(i) + " (" +
                             std::to_string(p) + ") is outside [0, " + std::to_string(ndim) + ")");
    }
    if (seen[p]) {
      return Status::Invalid(type_name + " permutation repeats " + std::to_string(p));
    }
    seen[p] = true;
  }
  return Status::OK();
}

Status CheckDimNames(const std::vector<std::string>& dim_names, size_t ndim,
                     const std::string& type_name) {
  if (dim_names.empty() || dim_names.size() == ndim) return Status::OK();
  return Status::Invalid(type_name + " has " + std::to_string(dim_names.size()) +
                         " dim_names for " + std::to_string(ndim) + " dimensions");
}

std::vector<int64_t> InvertPermutation(const std::vector<int64_t>& p) {
  std::vector<int64_t> out(p.size());
  for (size_t i = 0; i < p.size(); ++i) out[p[i]] = static_cast<int64_t>(i);
  return out;
}

}  // namespace quiver::internal
