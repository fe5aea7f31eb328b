// Internal: strict JSON parsing and checks shared by the tensor extension
// types' metadata (fixed and variable shape).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "quiver/status.h"
#include "quiver/type.h"

namespace quiver::internal {

// Parses `text` as a JSON object; `type_name` prefixes every error.
Result<nlohmann::json> ParseMetadataObject(std::string_view text, const std::string& type_name);

// The readers below take a key whose value is null as absent (arrow-rs
// writes absent optional parameters that way).

// The array of int64 under `key`, nullopt when the key is absent.
Result<std::optional<std::vector<int64_t>>> ReadIntArray(const nlohmann::json& object,
                                                         const char* key,
                                                         const std::string& type_name);
// The array of int64-or-null under `key` (null entries as nullopt),
// nullopt when the key is absent.
Result<std::optional<std::vector<std::optional<int64_t>>>> ReadNullableIntArray(
    const nlohmann::json& object, const char* key, const std::string& type_name);
// The array of strings under `key`, nullopt when the key is absent.
Result<std::optional<std::vector<std::string>>> ReadStringArray(const nlohmann::json& object,
                                                                const char* key,
                                                                const std::string& type_name);

// The permutation under "permutation" or arrow-rs's "permutations";
// Invalid when both are present and differ, nullopt when neither is.
Result<std::optional<std::vector<int64_t>>> ReadPermutation(const nlohmann::json& object,
                                                            const std::string& type_name);

// Whether `object` uses a form only other writers use (a null value, the
// "permutations" key): such metadata is read, never written on.
bool HasOtherWritersKeys(const nlohmann::json& object);

// `dim_names` is empty or has ndim entries.
Status CheckDimNames(const std::vector<std::string>& dim_names, size_t ndim,
                     const std::string& type_name);

// TypeError unless `type` is the extension type named `name`.
Status CheckExtensionType(const TypePtr& type, const char* name);

// The value type is numeric or bool (TypeError otherwise).
Status CheckTensorValueType(const TypePtr& value_type, const std::string& type_name);

// " dim_names=[H, W] permutation=[1, 0]" for ToString (empty parts left out).
std::string FormatTensorParameters(const std::vector<std::string>& dim_names,
                                   const std::vector<int64_t>& permutation);

// The inverse permutation: out[p[i]] = i.
std::vector<int64_t> InvertPermutation(const std::vector<int64_t>& p);

}  // namespace quiver::internal
