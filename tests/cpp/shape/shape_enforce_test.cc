// EnforceShape on shapes, tensors, fixed-shape and ragged columns, and
// the DimSize and ShapeBindings it reports through.
#include "quiver/shape_pattern.h"

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "shape_test_util.h"

namespace quiver {

namespace {

using test::Check;
using test::Message;
using test::P;
using test::Shape;
using test::Values;

Tensor Zeros(Shape shape) {
  int64_t n = 4;
  for (int64_t s : shape) n *= s;
  return *Tensor::Make(float32(), *Buffer::Allocate(n), std::move(shape));
}

// A ragged float32 column with one row per shape (nullopt = null row).
VariableShapeTensorArray Ragged(const std::vector<std::optional<Shape>>& shapes,
                                std::vector<int64_t> permutation = {}) {
  const int ndim =
      static_cast<int>(shapes.front() ? shapes.front()->size() : shapes.back()->size());
  auto type = *VariableShapeTensorType::Make(float32(), ndim, {}, std::move(permutation));
  std::vector<std::optional<Tensor>> rows;
  for (const auto& shape : shapes) {
    if (!shape) {
      rows.emplace_back();
      continue;
    }
    Shape logical = *shape;
    rows.emplace_back(Zeros(logical));
  }
  auto array = VariableShapeTensorArray::FromTensors(type, rows);
  EXPECT_TRUE(array.ok()) << array.status().ToString();
  return *array;
}

}  // namespace

// --- Ellipsis positions, symbols ----------------------------------------

TEST(EnforceShape, HostileSizes) {
  const int64_t big = int64_t{1} << 62;
  EXPECT_ERROR(kInvalid, "the product of axes 0 to 1", Check({big, big}, "..."));
  EXPECT_ERROR(kInvalid, "negative size -1", Check({2, -1}, "a b"));
  ASSERT_OK_AND_ASSIGN(auto match, Check({std::numeric_limits<int64_t>::max(), 0}, "... "));
  EXPECT_EQ(match.dims[0].value, 0);
}

// --- Tensors and tensor columns ------------------------------------------

TEST(EnforceShape, TensorAndFixedShapeColumn) {
  Tensor t = Zeros({4, 2, 3});
  ASSERT_OK_AND_ASSIGN(auto match, EnforceShape(t, P("n 2 3")));
  EXPECT_EQ(match.dims[0].value, 4);
  ASSERT_OK_AND_ASSIGN(auto column, FixedShapeTensorArray::FromTensor(t));
  ASSERT_OK_AND_ASSIGN(auto col_match, EnforceShape(column, P("rows h w")));
  EXPECT_EQ(Values(col_match.dims), (Shape{4, 2, 3}));
  EXPECT_ERROR(kInvalid, "axis 2 (4): expected 4, got 3; pattern [rows, h, 4] vs shape (4, 2, 3)",
               EnforceShape(column, P("rows h 4")));
}

TEST(EnforceShape, RaggedColumnBindsPerRowSizes) {
  auto column = Ragged({Shape{3, 4, 6}, Shape{3, 8, 8}, std::nullopt, Shape{3, 2, 5}});
  ShapeBindings bindings;
  ASSERT_OK_AND_ASSIGN(auto match,
                       EnforceShape(column, P("n 3 h w"), {&bindings, "argument 'images'"}));
  EXPECT_EQ(match.dims[0].value, 4);
  EXPECT_EQ(match.dims[1].value, 3);
  ASSERT_TRUE(match.dims[2].varies());
  EXPECT_EQ(*match.dims[2].per_row, (Shape{4, 8, -1, 2}));
  EXPECT_EQ(*bindings.Find("w")->size.per_row, (Shape{6, 8, -1, 5}));
  EXPECT_EQ(match.uniform_shape, (UniformShape{3, std::nullopt, std::nullopt}));
  ASSERT_OK_AND_ASSIGN(auto recorded, column.WithUniformShape(match.uniform_shape));
  EXPECT_EQ(recorded.type().uniform_shape(), match.uniform_shape);

  // A second ragged column must agree row by row; null rows are skipped.
  auto masks = Ragged({Shape{4, 6}, Shape{8, 8}, Shape{1, 1}, Shape{2, 5}});
  ASSERT_OK(EnforceShape(masks, P("n h w"), {&bindings, "argument 'masks'"}).status());
  auto bad = Ragged({Shape{4, 6}, Shape{8, 8}, Shape{1, 1}, Shape{2, 7}});
  EXPECT_EQ(Message(EnforceShape(bad, P("n h w"), {&bindings, "argument 'masks'"})),
            "argument 'masks': row 3: axis 2 ('w'): expected 5, got 7; pattern [n, h, w] vs shape "
            "(4, 2, 7); "
            "symbol 'w' is 5 from argument 'images' axis 3 but 7 from argument 'masks' axis 2");
  auto short_column = Ragged({Shape{4, 6}, Shape{8, 9}});
  EXPECT_ERROR(kInvalid,
               "symbol 'h' has per-row sizes for 4 rows from argument 'images' axis 2 but 2 rows",
               EnforceShape(short_column, P("m h w"), {&bindings, {}}));
  // A literal size names the first offending row.
  EXPECT_EQ(Message(EnforceShape(column, P("n 3 4 w"))),
            "row 1: axis 2 (4): expected 4, got 8; pattern [n, 3, 4, w] vs shape (4, 3, 8, 8)");
  // Square rows: a repeated symbol is checked per row.
  auto square = Ragged({Shape{2, 2}, Shape{5, 5}});
  ASSERT_OK(EnforceShape(square, P("n k k")).status());
  EXPECT_ERROR(kInvalid, "row 1: axis 2 ('k'): expected 4, got 5",
               EnforceShape(Ragged({Shape{2, 2}, Shape{4, 5}}), P("n k k")));
}

TEST(EnforceShape, RaggedEllipsisAndPermutation) {
  auto column = Ragged({Shape{2, 4, 3}, Shape{5, 4, 3}});
  ASSERT_OK_AND_ASSIGN(auto tail, EnforceShape(column, P("n ... 3")));
  ASSERT_TRUE(tail.dims[1].varies());
  EXPECT_EQ(*tail.dims[1].per_row, (Shape{8, 20}));
  ASSERT_OK_AND_ASSIGN(auto all, EnforceShape(column, P("... 3")));
  EXPECT_EQ(all.dims[0].value, 28);  // elements of every row, without the channel axis
  ASSERT_OK_AND_ASSIGN(auto uniform, EnforceShape(column, P("n h 4 3")));
  EXPECT_EQ(uniform.uniform_shape, (UniformShape{std::nullopt, 4, 3}));
  // With a permutation, uniform_shape is in physical order.
  auto permuted = Ragged({Shape{2, 4}, Shape{5, 4}}, {1, 0});
  ASSERT_OK_AND_ASSIGN(auto p, EnforceShape(permuted, P("n h 4")));
  EXPECT_EQ(p.uniform_shape, (UniformShape{4, std::nullopt}));
  ASSERT_OK(permuted.WithUniformShape(p.uniform_shape).status());
}

TEST(EnforceShape, RaggedAllNullAndEmpty) {
  auto nulls = Ragged({std::nullopt, Shape{2, 3}});
  ASSERT_OK_AND_ASSIGN(auto empty, nulls.Slice(0, 1));
  ASSERT_OK_AND_ASSIGN(auto match, EnforceShape(empty, P("n h 3")));
  EXPECT_EQ(*match.dims[1].per_row, (Shape{-1}));
  EXPECT_FALSE(match.dims[2].varies());
  EXPECT_EQ(match.dims[2].value, 3);  // a literal reports its size
  EXPECT_EQ(match.uniform_shape, (UniformShape{std::nullopt, 3}));
  ASSERT_OK_AND_ASSIGN(auto none, nulls.Slice(0, 0));
  ASSERT_OK_AND_ASSIGN(auto zero, EnforceShape(none, P("n h w")));
  EXPECT_EQ(zero.dims[0].value, 0);
  EXPECT_EQ(zero.dims[1].per_row->size(), 0u);
}

TEST(EnforceShape, DimSizeEqualityAndText) {
  DimSize eight;
  eight.value = 8;
  DimSize also_eight;
  also_eight.value = 8;
  DimSize rows;
  rows.per_row = std::make_shared<const PerRowSizes>(std::vector<int64_t>{1, 2, 3});
  DimSize same_rows;
  same_rows.per_row = std::make_shared<const PerRowSizes>(std::vector<int64_t>{1, 2, 3});
  EXPECT_TRUE(eight.Equals(also_eight));
  EXPECT_FALSE(eight.Equals(rows));
  EXPECT_TRUE(rows.Equals(same_rows));
  EXPECT_EQ(rows.at(2), 3);
  EXPECT_EQ(eight.at(2), 8);
  EXPECT_EQ(eight.ToString(), "8");
  EXPECT_EQ(rows.ToString(), "per-row sizes (3 rows)");
}

TEST(EnforceShape, PerRowSizesCompareByValue) {
  const PerRowSizes narrow(std::vector<int32_t>{4, -1, 2});
  const PerRowSizes wide(std::vector<int64_t>{4, -1, 2});
  EXPECT_TRUE(narrow.is_int32());
  EXPECT_FALSE(wide.is_int32());
  EXPECT_TRUE(narrow == wide);
  EXPECT_TRUE(wide == narrow);
  EXPECT_FALSE(narrow == PerRowSizes(std::vector<int32_t>{4, -1}));
  EXPECT_FALSE(narrow == PerRowSizes(std::vector<int64_t>{4, -1, 3}));
  EXPECT_EQ(narrow.size(), 3u);
  EXPECT_EQ(narrow[1], -1);
  EXPECT_EQ(narrow.ToVector(), (Shape{4, -1, 2}));
  EXPECT_EQ(wide.ToVector(), (Shape{4, -1, 2}));
}

TEST(EnforceShape, BindingsAreFoundByName) {
  ShapeBindings bindings;
  EXPECT_EQ(bindings.Find("b"), nullptr);
  ASSERT_OK(Check({8, 3}, "b c", &bindings, "images").status());
  EXPECT_EQ(bindings.size(), 2);
  const ShapeBinding* b = bindings.Find("b");
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->is_axes);
  EXPECT_EQ(b->size.value, 8);
  EXPECT_EQ(bindings.Find("c")->size.value, 3);
  EXPECT_EQ(bindings.Find("d"), nullptr);
  // A failed check leaves the bindings as they were.
  EXPECT_FALSE(Check({8, 4, 2}, "b c e", &bindings).ok());
  EXPECT_EQ(bindings.Find("e"), nullptr);
  bindings.Clear();
  EXPECT_EQ(bindings.size(), 0);
}

TEST(EnforceShape, ManyAxesAndNegativeSizes) {
  // More axes than fit on the stack still match.
  Shape many(40, 2);
  ASSERT_OK_AND_ASSIGN(auto match, Check(many, "..."));
  EXPECT_EQ(match.ellipsis_axes.size(), 40u);
  EXPECT_EQ(Message(Check({3, -4}, "a b")), "axis 1 has negative size -4");
}

}  // namespace quiver
