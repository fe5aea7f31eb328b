// Byte compatibility of quiver's SparseTensor IPC message with Arrow C++:
// every case is written by Arrow C++ and read by quiver, and written by
// quiver and read by Arrow C++; both readings must give back the index
// arrays, index types, values, shape and dim names that went in, and the
// dense tensor the non-zeros describe.
//
//   arrow_sparse_compat              run the cases, end with "N passed, N failed"
//   arrow_sparse_compat --seeds DIR  also write every message into DIR (fuzz seeds)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "plain_sparse.h"

namespace compat {
namespace {

struct Entry {
  std::vector<int64_t> coord;
  double value;
};

struct Case {
  std::string name;
  std::string format;
  std::string value_type, index_type, indptr_type;
  std::vector<int64_t> shape;
  std::vector<Entry> entries;  // COO keeps this order; the others sort
  std::vector<std::string> dim_names;
  bool column_major = false;
  std::vector<int64_t> axis_order;
};

// float16 bits of a small integer (|v| < 2048), exact.
uint16_t HalfBits(double v) {
  if (v == 0) return 0;
  const uint16_t sign = v < 0 ? 0x8000 : 0;
  const int64_t n = static_cast<int64_t>(std::fabs(v));
  int exponent = 0;
  while ((int64_t{1} << (exponent + 1)) <= n) ++exponent;
  const int64_t mantissa = (n - (int64_t{1} << exponent)) << (10 - exponent);
  return static_cast<uint16_t>(sign | ((exponent + 15) << 10) | mantissa);
}

void AppendValue(const std::string& type, double v, std::vector<uint8_t>* out) {
  uint8_t bytes[8];
  auto put = [&](auto x) {
    std::memcpy(bytes, &x, sizeof(x));
    out->insert(out->end(), bytes, bytes + sizeof(x));
  };
  if (type == "int8" || type == "bool8")
    put(static_cast<int8_t>(v));
  else if (type == "int16")
    put(static_cast<int16_t>(v));
  else if (type == "int32")
    put(static_cast<int32_t>(v));
  else if (type == "int64")
    put(static_cast<int64_t>(v));
  else if (type == "uint8")
    put(static_cast<uint8_t>(v));
  else if (type == "uint16")
    put(static_cast<uint16_t>(v));
  else if (type == "uint32")
    put(static_cast<uint32_t>(v));
  else if (type == "uint64")
    put(static_cast<uint64_t>(v));
  else if (type == "float16")
    put(HalfBits(v));
  else if (type == "float32")
    put(static_cast<float>(v));
  else
    put(v);
}

std::vector<int64_t> Permuted(const std::vector<int64_t>& coord,
                              const std::vector<int64_t>& order) {
  std::vector<int64_t> out;
  for (int64_t axis : order) out.push_back(coord[axis]);
  return out;
}

// The fiber tree of `entries` sorted by their coordinates in `order`.
void BuildCsf(std::vector<Entry> entries, const std::vector<int64_t>& order, PlainSparse* out) {
  std::sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
    return Permuted(a.coord, order) < Permuted(b.coord, order);
  });
  const size_t ndim = order.size();
  out->indptr.assign(ndim - 1, {});
  out->indices.assign(ndim, {});
  std::vector<int64_t> previous;
  for (const Entry& entry : entries) {
    const std::vector<int64_t> key = Permuted(entry.coord, order);
    size_t level = 0;
    while (!previous.empty() && level < ndim && key[level] == previous[level]) ++level;
    for (size_t k = level; k < ndim; ++k) {
      if (k + 1 < ndim) out->indptr[k].push_back(static_cast<int64_t>(out->indices[k + 1].size()));
      out->indices[k].push_back(key[k]);
    }
    AppendValue(out->value_type, entry.value, &out->values);
    previous = key;
  }
  for (size_t k = 0; k + 1 < ndim; ++k)
    out->indptr[k].push_back(static_cast<int64_t>(out->indices[k + 1].size()));
}

// CSR (axis 0) or CSC (axis 1).
void BuildCsx(std::vector<Entry> entries, int64_t axis, const std::vector<int64_t>& shape,
              PlainSparse* out) {
  const int64_t other = 1 - axis;
  std::sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
    return std::make_pair(a.coord[axis], a.coord[other]) <
           std::make_pair(b.coord[axis], b.coord[other]);
  });
  std::vector<int64_t> indptr(shape[axis] + 1, 0), indices;
  for (const Entry& entry : entries) {
    ++indptr[entry.coord[axis] + 1];
    indices.push_back(entry.coord[other]);
    AppendValue(out->value_type, entry.value, &out->values);
  }
  for (size_t i = 1; i < indptr.size(); ++i) indptr[i] += indptr[i - 1];
  out->indptr = {indptr};
  out->indices = {indices};
}

PlainSparse Expected(const Case& c) {
  PlainSparse out;
  out.format = c.format;
  out.value_type = c.value_type;
  out.index_type = c.index_type;
  out.indptr_type = c.indptr_type;
  out.shape = c.shape;
  out.dim_names = c.dim_names;
  out.nnz = static_cast<int64_t>(c.entries.size());
  if (c.format == "COO") {
    for (const Entry& entry : c.entries) {
      out.coords.insert(out.coords.end(), entry.coord.begin(), entry.coord.end());
      AppendValue(c.value_type, entry.value, &out.values);
    }
    out.column_major = c.column_major;
    out.canonical =
        std::is_sorted(c.entries.begin(), c.entries.end(),
                       [](const Entry& a, const Entry& b) { return a.coord <= b.coord; });
  } else if (c.format == "CSR" || c.format == "CSC") {
    BuildCsx(c.entries, c.format == "CSR" ? 0 : 1, c.shape, &out);
  } else {
    out.axis_order = c.axis_order;
    BuildCsf(c.entries, c.axis_order, &out);
  }
  int64_t size = 1;
  for (int64_t d : c.shape) size *= d;
  out.dense.assign(size, 0.0);
  for (const Entry& entry : c.entries) {
    int64_t at = 0;
    for (size_t k = 0; k < c.shape.size(); ++k) at = at * c.shape[k] + entry.coord[k];
    out.dense[at] = entry.value;
  }
  return out;
}

std::string Join(const std::vector<int64_t>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
  return out + "]";
}

std::string Join(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", \"" : "\"") + v[i] + "\"";
  return out + "]";
}

// "" when equal, else what differs.
std::string Compare(const PlainSparse& want, const PlainSparse& got) {
  if (got.format != want.format) return "format " + got.format + " != " + want.format;
  if (got.value_type != want.value_type)
    return "value type " + got.value_type + " != " + want.value_type;
  if (got.index_type != want.index_type)
    return "index type " + got.index_type + " != " + want.index_type;
  if (want.format != "COO" && got.indptr_type != want.indptr_type) {
    return "indptr type " + got.indptr_type + " != " + want.indptr_type;
  }
  if (got.shape != want.shape) return "shape " + Join(got.shape) + " != " + Join(want.shape);
  if (got.dim_names != want.dim_names)
    return "dim names " + Join(got.dim_names) + " != " + Join(want.dim_names);
  if (got.nnz != want.nnz)
    return "nnz " + std::to_string(got.nnz) + " != " + std::to_string(want.nnz);
  if (got.coords != want.coords) return "coords " + Join(got.coords) + " != " + Join(want.coords);
  if (got.column_major != want.column_major) return "COO layout (column-major) differs";
  if (got.canonical != want.canonical) return "COO canonical flag differs";
  if (got.indptr != want.indptr) return "indptr arrays differ";
  if (got.indices != want.indices) return "indices arrays differ";
  if (got.axis_order != want.axis_order)
    return "axis order " + Join(got.axis_order) + " != " + Join(want.axis_order);
  if (got.values != want.values) return "value bytes differ";
  if (got.dense != want.dense) return "dense tensors differ";
  return "";
}

std::vector<Entry> Entries3d() {
  return {{{0, 0, 1}, 1}, {{0, 2, 3}, 2}, {{1, 0, 0}, 3},
          {{1, 0, 3}, 4}, {{1, 1, 2}, 5}, {{1, 2, 0}, 6}};
}
std::vector<Entry> Entries2d() {
  return {{{0, 1}, 7}, {{1, 0}, 8}, {{1, 4}, 9}, {{2, 2}, 10}, {{3, 0}, 11}, {{3, 3}, 12}};
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  const std::vector<std::string> names3 = {"batch", "row", "column"};
  // COO: row-major and column-major coordinates, canonical or not.
  cases.push_back({"coo-row-major-float64-int64",
                   "COO",
                   "float64",
                   "int64",
                   "",
                   {2, 3, 4},
                   Entries3d(),
                   names3});
  cases.push_back(
      {"coo-column-major-int32-int16", "COO", "int32", "int16", "", {4, 5}, Entries2d(), {}, true});
  auto unsorted = Entries2d();
  std::reverse(unsorted.begin(), unsorted.end());
  cases.push_back({"coo-unsorted-uint16-uint8", "COO", "uint16", "uint8", "", {4, 5}, unsorted});
  cases.push_back({"coo-column-major-float16-uint32",
                   "COO",
                   "float16",
                   "uint32",
                   "",
                   {2, 3, 4},
                   Entries3d(),
                   {},
                   true});
  cases.push_back({"coo-int8-int8", "COO", "int8", "int8", "", {2, 3, 4}, Entries3d()});
  cases.push_back({"coo-empty-float32-int64", "COO", "float32", "int64", "", {3, 0, 2}, {}});
  // CSR / CSC with differing indptr and indices types.
  cases.push_back({"csr-float32-int64-int32",
                   "CSR",
                   "float32",
                   "int32",
                   "int64",
                   {4, 5},
                   Entries2d(),
                   {"r", "c"}});
  cases.push_back({"csr-uint8-int8", "CSR", "uint8", "int8", "int8", {4, 5}, Entries2d()});
  cases.push_back(
      {"csc-int64-uint16-uint32", "CSC", "int64", "uint16", "uint32", {4, 5}, Entries2d()});
  cases.push_back(
      {"csc-float64-int16", "CSC", "float64", "int16", "int16", {4, 5}, Entries2d(), {"r", "c"}});
  cases.push_back({"csr-empty-int16-int32", "CSR", "int16", "int32", "int32", {3, 7}, {}});
  // CSF: identity and permuted axis orders, 3-D and 4-D.
  cases.push_back({"csf-float64-int64",
                   "CSF",
                   "float64",
                   "int64",
                   "int64",
                   {2, 3, 4},
                   Entries3d(),
                   names3,
                   false,
                   {0, 1, 2}});
  cases.push_back({"csf-order-201-int8-int16-int8",
                   "CSF",
                   "int8",
                   "int8",
                   "int16",
                   {2, 3, 4},
                   Entries3d(),
                   {},
                   false,
                   {2, 0, 1}});
  cases.push_back({"csf-order-120-uint32-uint16",
                   "CSF",
                   "uint32",
                   "uint16",
                   "uint16",
                   {2, 3, 4},
                   Entries3d(),
                   names3,
                   false,
                   {1, 2, 0}});
  std::vector<Entry> four;
  for (const Entry& e : Entries3d())
    four.push_back({{e.coord[0], e.coord[1], e.coord[2], (e.coord[2] + 1) % 2}, e.value});
  cases.push_back({"csf-4d-order-3102-float16-int32",
                   "CSF",
                   "float16",
                   "int32",
                   "int32",
                   {2, 3, 4, 2},
                   four,
                   {},
                   false,
                   {3, 1, 0, 2}});
  cases.push_back({"csf-empty-float32-int64",
                   "CSF",
                   "float32",
                   "int64",
                   "int64",
                   {2, 3, 4},
                   {},
                   {},
                   false,
                   {0, 1, 2}});
  return cases;
}

// bool8 travels as int8 to and from Arrow C++ (which has no bool8).
std::vector<Case> QuiverOnlyCases() {
  return {{"coo-bool8-int32",
           "COO",
           "bool8",
           "int32",
           "",
           {2, 3, 4},
           {{{0, 0, 1}, 1}, {{1, 2, 3}, 1}}}};
}

struct Tally {
  int passed = 0, failed = 0;
  void Report(const std::string& what, const std::string& error) {
    (error.empty() ? passed : failed)++;
    std::printf("%s %s%s%s\n", error.empty() ? "ok  " : "FAIL", what.c_str(),
                error.empty() ? "" : ": ", error.c_str());
  }
};

void WriteSeed(const std::string& dir, const std::string& name, const std::vector<uint8_t>& bytes) {
  if (dir.empty()) return;
  std::ofstream(dir + "/" + name, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

void Run(const Case& c, const std::string& seeds, Tally* tally) {
  PlainSparse want = Expected(c);
  PlainSparse as_arrow = want;
  if (as_arrow.value_type == "bool8") as_arrow.value_type = "int8";
  std::vector<uint8_t> bytes;
  PlainSparse got;
  std::string error = ArrowWrite(as_arrow, &bytes);
  if (error.empty()) error = QuiverRead(bytes, &got);
  if (error.empty()) error = Compare(as_arrow, got);
  tally->Report("Arrow C++ -> quiver  " + c.name, error);
  WriteSeed(seeds, "seed-arrow-" + c.name, bytes);

  bytes.clear();
  error = QuiverWrite(want, &bytes);
  if (error.empty()) error = ArrowRead(bytes, &got);
  // Arrow C++'s SparseCOOTensor::ToTensor walks the coordinates as if they
  // were row-major whatever their strides (its own column-major tensors
  // come out wrong too), so its dense tensor is no witness there; the
  // coordinates it read through the strides still are.
  if (error.empty() && c.column_major) got.dense = as_arrow.dense;
  if (error.empty()) error = Compare(as_arrow, got);
  tally->Report("quiver -> Arrow C++  " + c.name, error);
  WriteSeed(seeds, "seed-quiver-" + c.name, bytes);
}

}  // namespace
}  // namespace compat

int main(int argc, char** argv) {
  std::string seeds;
  if (argc == 3 && std::string(argv[1]) == "--seeds") seeds = argv[2];
  compat::Tally tally;
  for (const auto& c : compat::Cases()) compat::Run(c, seeds, &tally);
  for (const auto& c : compat::QuiverOnlyCases()) compat::Run(c, seeds, &tally);
  std::printf("%d passed, %d failed\n", tally.passed, tally.failed);
  return tally.failed == 0 ? 0 : 1;
}
