#include "quiver/shape_pattern.h"

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "test_util.h"

namespace quiver {

namespace {

using Shape = std::vector<int64_t>;

ShapePattern P(std::string_view text) {
  auto pattern = ShapePattern::Parse(text);
  EXPECT_TRUE(pattern.ok()) << pattern.status().ToString();
  return pattern.ok() ? *pattern : ShapePattern{};
}

Result<ShapeMatch> Check(const Shape& shape, std::string_view pattern, ShapeBindings* bindings = nullptr,
                         std::string_view label = {}) {
  return EnforceShape(shape, P(pattern), {bindings, label});
}

std::vector<int64_t> Values(const std::vector<DimSize>& dims) {
  std::vector<int64_t> out;
  for (const DimSize& d : dims) {
    EXPECT_FALSE(d.varies());
    out.push_back(d.value);
  }
  return out;
}

template <typename T>
std::string Message(const Result<T>& result) {
  EXPECT_FALSE(result.ok());
  return result.ok() ? "" : result.status().message();
}

Tensor Zeros(Shape shape) {
  int64_t n = 4;
  for (int64_t s : shape) n *= s;
  return *Tensor::Make(float32(), *Buffer::Allocate(n), std::move(shape));
}

// A ragged float32 column with one row per shape (nullopt = null row).
VariableShapeTensorArray Ragged(const std::vector<std::optional<Shape>>& shapes,
                                std::vector<int64_t> permutation = {}) {
  const int ndim = static_cast<int>(shapes.front() ? shapes.front()->size() : shapes.back()->size());
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

// --- Parsing -------------------------------------------------------------

TEST(ShapePattern, ParsesEveryEntryKind) {
  ASSERT_OK_AND_ASSIGN(auto pattern, ShapePattern::Parse("  b 3 _ ... "));
  EXPECT_EQ(pattern.ToString(), "[b, 3, _, ...]");
  EXPECT_EQ(pattern.ellipsis_index(), 3);
  EXPECT_EQ(pattern.min_ndim(), 3);
  ASSERT_OK_AND_ASSIGN(auto named, ShapePattern::Parse("batch *rest 3"));
  EXPECT_EQ(named.entries()[1].kind, ShapeEntry::Kind::kNamedEllipsis);
  EXPECT_EQ(named.entries()[1].name, "rest");
  ASSERT_OK_AND_ASSIGN(auto empty, ShapePattern::Parse(""));
  EXPECT_EQ(empty.size(), 0);
  EXPECT_EQ(empty.ToString(), "[]");
  ASSERT_OK_AND_ASSIGN(auto names, ShapePattern::Parse("hoehe breite_2 _x"));
  EXPECT_EQ(names.entries()[0].name, "hoehe");
  EXPECT_EQ(names.entries()[2].kind, ShapeEntry::Kind::kSymbol);
  ASSERT_OK_AND_ASSIGN(auto list, ShapePattern::Make({ShapeEntry::Any(), ShapeEntry::Size(4)}));
  EXPECT_EQ(list.ToString(), "[None, 4]");
  EXPECT_TRUE(list.Equals(*ShapePattern::Make({ShapeEntry::Any(), ShapeEntry::Size(4)})));
}

TEST(ShapePattern, NamesAndTheEllipsisAreAscii) {
  EXPECT_ERROR(kInvalid, "pattern entry 1 '\u2026' at character 2: '\u2026' (U+2026, one ellipsis character) is not '...'",
               ShapePattern::Parse("b \u2026 c"));
  EXPECT_ERROR(kInvalid, "names are ASCII letters, digits and '_'; '\u00f6' (U+00F6) is not one",
               ShapePattern::Parse("h\u00f6he"));
  // A full-width digit would otherwise start a name.
  EXPECT_ERROR(kInvalid, "'\uff11' (U+FF11) is not one", ShapePattern::Parse("\uff11x"));
  EXPECT_ERROR(kInvalid, "'\U0001F600' (U+1F600) is not one", ShapePattern::Parse("*r\U0001F600"));
  EXPECT_ERROR(kInvalid, "not valid UTF-8", ShapePattern::Parse("b \xff"));
}

TEST(ShapePattern, ParseErrorsNameTheTokenAndPosition) {
  EXPECT_ERROR(kInvalid, "pattern entry 2 '...' at character 6: a pattern has at most one ellipsis (entry 1 is one already)",
               ShapePattern::Parse("b ... ... c"));
  EXPECT_ERROR(kInvalid, "pattern entry 2 '*r' at character 6: a pattern has at most one ellipsis",
               ShapePattern::Parse("b ... *r"));
  EXPECT_ERROR(kInvalid, "pattern entry 1 'h!' at character 2: not a size, a name, '_', '...' or '*name'",
               ShapePattern::Parse("b h! w"));
  EXPECT_ERROR(kInvalid, "pattern entry 0 '-3' at character 0: sizes must be >= 0", ShapePattern::Parse("-3"));
  EXPECT_ERROR(kInvalid, "pattern entry 0 '3x' at character 0: not a size or a name", ShapePattern::Parse("3x"));
  EXPECT_ERROR(kInvalid, "'*' needs a name", ShapePattern::Parse("b *"));
  EXPECT_ERROR(kInvalid, "size does not fit int64", ShapePattern::Parse("99999999999999999999"));
  EXPECT_ERROR(kInvalid, "'n' is used both as a symbol and as a named ellipsis", ShapePattern::Parse("n *n"));
  EXPECT_ERROR(kInvalid, "pattern entry 0 '\\xff\\xfe' at character 0: not valid UTF-8", ShapePattern::Parse("\xff\xfe"));
  EXPECT_ERROR(kInvalid, "sizes must be >= 0", ShapePattern::Make({ShapeEntry::Size(-1)}));
  EXPECT_ERROR(kInvalid, "not a valid name", ShapePattern::Make({ShapeEntry::Symbol("a b")}));
  // A very long token is cut in the message.
  std::string long_token(1000, '!');
  auto status = ShapePattern::Parse(long_token).status();
  EXPECT_LT(status.message().size(), 200u) << status.message();
}

TEST(ShapePattern, LongPatternsParseAndMatch) {
  std::string text;
  Shape shape;
  for (int i = 0; i < 500; ++i) {
    text += "d" + std::to_string(i) + " ";
    shape.push_back(1);
  }
  ASSERT_OK_AND_ASSIGN(auto match, Check(shape, text));
  EXPECT_EQ(match.dims.size(), 500u);
}

// --- The proposal's examples (docs/formats.md, "enforce_shape") ---------

TEST(EnforceShape, ProposalFixesTheDimensionality) {
  // x, [d1, d2, d3] = enforce_shape(x, [None, None, None])
  ASSERT_OK_AND_ASSIGN(auto pattern, ShapePattern::Make({ShapeEntry::Any(), ShapeEntry::Any(), ShapeEntry::Any()}));
  ASSERT_OK_AND_ASSIGN(auto match, EnforceShape(Shape{2, 5, 7}, pattern));
  EXPECT_EQ(Values(match.dims), (Shape{2, 5, 7}));
  EXPECT_ERROR(kInvalid, "expected 3 axes, got 2; pattern [None, None, None] vs shape (2, 5)",
               EnforceShape(Shape{2, 5}, pattern));
}

TEST(EnforceShape, ProposalSymbolAndSize) {
  // x, [d1, d2, d3] = enforce_shape(x, [d1, None, 4])
  ShapeBindings bindings;
  ASSERT_OK(Check({6}, "d1", &bindings).status());
  ASSERT_OK_AND_ASSIGN(auto pattern, ShapePattern::Make({ShapeEntry::Symbol("d1"), ShapeEntry::Any(), ShapeEntry::Size(4)}));
  ASSERT_OK_AND_ASSIGN(auto match, EnforceShape(Shape{6, 9, 4}, pattern, {&bindings, {}}));
  EXPECT_EQ(Values(match.dims), (Shape{6, 9, 4}));
  EXPECT_ERROR(kInvalid, "axis 2 (4): expected 4, got 5; pattern [d1, None, 4] vs shape (6, 9, 5)",
               EnforceShape(Shape{6, 9, 5}, pattern, {&bindings, {}}));
  EXPECT_ERROR(kInvalid, "axis 0 ('d1'): expected 6, got 7", EnforceShape(Shape{7, 9, 4}, pattern, {&bindings, {}}));
}

TEST(EnforceShape, ProposalEllipsisInTheMiddle) {
  // x, [d1, d2, (axes, n_elements), d3] = enforce_shape(x, [1, None, ..., 3])
  ASSERT_OK_AND_ASSIGN(auto pattern, ShapePattern::Make({ShapeEntry::Size(1), ShapeEntry::Any(),
                                                         ShapeEntry::Ellipsis(), ShapeEntry::Size(3)}));
  ASSERT_OK_AND_ASSIGN(auto match, EnforceShape(Shape{1, 2, 4, 5, 3}, pattern));
  EXPECT_EQ(Values(match.ellipsis_axes), (Shape{4, 5}));
  EXPECT_EQ(Values(match.dims), (Shape{1, 2, 20, 3}));
  ASSERT_OK_AND_ASSIGN(auto none, EnforceShape(Shape{1, 2, 3}, pattern));
  EXPECT_TRUE(none.ellipsis_axes.empty());
  EXPECT_EQ(none.dims[2].value, 1);  // the product of zero axes
  EXPECT_ERROR(kInvalid, "expected at least 3 axes, got 2; pattern [1, None, ..., 3] vs shape (1, 3)",
               EnforceShape(Shape{1, 3}, pattern));
}

TEST(EnforceShape, ProposalFlattenLeadingAxes) {
  // x, [(axes, n), c] = enforce_shape(x_rgb, [..., 3]): reshape to (n, 3)
  ASSERT_OK_AND_ASSIGN(auto match, Check({4, 6, 8, 3}, "... 3"));
  EXPECT_EQ(Values(match.ellipsis_axes), (Shape{4, 6, 8}));
  EXPECT_EQ(match.dims[0].value, 192);
  EXPECT_EQ(match.dims[1].value, 3);
}

// --- Ellipsis positions, symbols ----------------------------------------

TEST(EnforceShape, EllipsisAtStartMiddleEndAndEmpty) {
  ASSERT_OK_AND_ASSIGN(auto start, Check({2, 3, 4}, "... c"));
  EXPECT_EQ(Values(start.ellipsis_axes), (Shape{2, 3}));
  ASSERT_OK_AND_ASSIGN(auto middle, Check({2, 3, 4, 5}, "b ... c"));
  EXPECT_EQ(Values(middle.ellipsis_axes), (Shape{3, 4}));
  EXPECT_EQ(Values(middle.dims), (Shape{2, 12, 5}));
  ASSERT_OK_AND_ASSIGN(auto end, Check({2, 3, 4}, "b ..."));
  EXPECT_EQ(Values(end.ellipsis_axes), (Shape{3, 4}));
  ASSERT_OK_AND_ASSIGN(auto zero, Check({2, 5}, "b ... c"));
  EXPECT_TRUE(zero.ellipsis_axes.empty());
  EXPECT_EQ(Values(zero.dims), (Shape{2, 1, 5}));
  ASSERT_OK_AND_ASSIGN(auto scalar, Check({}, "..."));
  EXPECT_EQ(scalar.dims[0].value, 1);
  ASSERT_OK(Check({}, "").status());
  EXPECT_ERROR(kInvalid, "expected 0 axes, got 1; pattern [] vs shape (4,)", Check({4}, ""));
  EXPECT_ERROR(kInvalid, "expected 1 axis, got 0; pattern [n] vs shape ()", Check({}, "n"));
}

TEST(EnforceShape, SkipAndRepeatedSymbols) {
  ASSERT_OK_AND_ASSIGN(auto match, Check({7, 5, 3}, "_ n 3"));
  EXPECT_EQ(Values(match.dims), (Shape{7, 5, 3}));
  ASSERT_OK(Check({4, 4}, "n n").status());
  EXPECT_ERROR(kInvalid,
               "axis 1 ('n'): expected 3, got 4; pattern [n, n] vs shape (3, 4); symbol 'n' is 3 from "
               "axis 0 of shape (3, 4) but 4 from axis 1 of shape (3, 4)",
               Check({3, 4}, "n n"));
}

TEST(EnforceShape, NamedEllipsisAgreesWhereverItRecurs) {
  ShapeBindings bindings;
  ASSERT_OK_AND_ASSIGN(auto match, Check({8, 3, 4, 2}, "b *rest 2", &bindings, "argument 'x'"));
  EXPECT_EQ(Values(match.ellipsis_axes), (Shape{3, 4}));
  EXPECT_EQ(match.dims[1].value, 12);
  const ShapeBinding* rest = bindings.Find("rest");
  ASSERT_NE(rest, nullptr);
  EXPECT_TRUE(rest->is_axes);
  EXPECT_EQ(Values(rest->axes), (Shape{3, 4}));
  ASSERT_OK(Check({3, 4}, "*rest", &bindings, "argument 'y'").status());
  EXPECT_EQ(Message(Check({3, 5}, "*rest", &bindings, "argument 'y'")),
            "argument 'y': axes 0 to 1 ('*rest'): expected (3, 4), got (3, 5); pattern [*rest] vs "
            "shape (3, 5); symbol '*rest' is (3, 4) from argument 'x' axes 1 to 2 but (3, 5) from "
            "argument 'y' axes 0 to 1");
  EXPECT_ERROR(kInvalid, "expected (3, 4), got (3,)", Check({8, 3}, "b *rest", &bindings));
  // Twice in one pattern is two ellipses.
  EXPECT_ERROR(kInvalid, "at most one ellipsis", ShapePattern::Parse("*s 7 *s"));
  // Zero axes bind to an empty tuple.
  ShapeBindings empty;
  ASSERT_OK(Check({5}, "*lead n", &empty).status());
  EXPECT_TRUE(empty.Find("lead")->axes.empty());
  EXPECT_ERROR(kInvalid, "expected (), got (2,)", Check({2, 5}, "*lead n", &empty));
  // A name bound as one kind cannot be used as the other.
  EXPECT_ERROR(kInvalid, "'n' is bound as a symbol from axis 0 of shape (5,)", Check({2}, "*n", &empty));
}

TEST(EnforceShape, SharedBindingsAcrossArrays) {
  ShapeBindings bindings;
  ASSERT_OK(Check({8, 32, 32, 3}, "b h w 3", &bindings, "argument 'images'").status());
  ASSERT_OK_AND_ASSIGN(auto labels, Check({8}, "b", &bindings, "argument 'labels'"));
  EXPECT_EQ(labels.dims[0].value, 8);
  EXPECT_EQ(bindings.size(), 3);
  EXPECT_EQ(bindings.Find("h")->size.value, 32);
  EXPECT_EQ(bindings.Find("b")->origin, "argument 'images' axis 0");
  EXPECT_EQ(Message(Check({4}, "b", &bindings, "argument 'labels'")),
            "argument 'labels': axis 0 ('b'): expected 8, got 4; pattern [b] vs shape (4,); symbol 'b' "
            "is 8 from argument 'images' axis 0 but 4 from argument 'labels' axis 0");
  // A failed check binds nothing.
  EXPECT_FALSE(Check({4, 5}, "k b", &bindings).ok());
  EXPECT_EQ(bindings.Find("k"), nullptr);
}

TEST(EnforceShape, ErrorMessagesForEachEntryKind) {
  EXPECT_EQ(Message(Check({8, 32, 32, 4}, "b h w 3")),
            "axis 3 (3): expected 3, got 4; pattern [b, h, w, 3] vs shape (8, 32, 32, 4)");
  ShapeBindings bindings;
  ASSERT_OK(Check({3}, "c", &bindings).status());
  EXPECT_EQ(Message(Check({8, 32, 32, 4}, "b h w c", &bindings)),
            "axis 3 ('c'): expected 3, got 4; pattern [b, h, w, c] vs shape (8, 32, 32, 4); symbol 'c' "
            "is 3 from axis 0 of shape (3,) but 4 from axis 3 of shape (8, 32, 32, 4)");
  EXPECT_EQ(Message(Check({8, 32}, "b h w 3")), "expected 4 axes, got 2; pattern [b, h, w, 3] vs shape (8, 32)");
}

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
  ASSERT_OK_AND_ASSIGN(auto match, EnforceShape(column, P("n 3 h w"), {&bindings, "argument 'images'"}));
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
            "argument 'masks': row 3: axis 2 ('w'): expected 5, got 7; pattern [n, h, w] vs shape (4, 2, 7); "
            "symbol 'w' is 5 from argument 'images' axis 3 but 7 from argument 'masks' axis 2");
  auto short_column = Ragged({Shape{4, 6}, Shape{8, 9}});
  EXPECT_ERROR(kInvalid, "symbol 'h' has per-row sizes for 4 rows from argument 'images' axis 2 but 2 rows",
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

}  // namespace quiver
