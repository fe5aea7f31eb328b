// Matching a pattern against observed axes (the matcher behind every
// EnforceShape overload): sizes, symbols, ellipses, shared bindings and the
// messages of each mismatch.
#include "quiver/shape_pattern.h"

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "quiver/shape/shape_match.h"
#include "shape_test_util.h"

namespace quiver {

using test::Check;
using test::Message;
using test::P;
using test::Shape;
using test::Values;

// --- The proposal's examples (docs/formats.md, "enforce_shape") ---------

TEST(EnforceShape, ProposalFixesTheDimensionality) {
  // x, [d1, d2, d3] = enforce_shape(x, [None, None, None])
  ASSERT_OK_AND_ASSIGN(
      auto pattern, ShapePattern::Make({ShapeEntry::Any(), ShapeEntry::Any(), ShapeEntry::Any()}));
  ASSERT_OK_AND_ASSIGN(auto match, EnforceShape(Shape{2, 5, 7}, pattern));
  EXPECT_EQ(Values(match.dims), (Shape{2, 5, 7}));
  EXPECT_ERROR(kInvalid, "expected 3 axes, got 2; pattern [None, None, None] vs shape (2, 5)",
               EnforceShape(Shape{2, 5}, pattern));
}

TEST(EnforceShape, ProposalSymbolAndSize) {
  // x, [d1, d2, d3] = enforce_shape(x, [d1, None, 4])
  ShapeBindings bindings;
  ASSERT_OK(Check({6}, "d1", &bindings).status());
  ASSERT_OK_AND_ASSIGN(auto pattern, ShapePattern::Make({ShapeEntry::Symbol("d1"),
                                                         ShapeEntry::Any(), ShapeEntry::Size(4)}));
  ASSERT_OK_AND_ASSIGN(auto match, EnforceShape(Shape{6, 9, 4}, pattern, {&bindings, {}}));
  EXPECT_EQ(Values(match.dims), (Shape{6, 9, 4}));
  EXPECT_ERROR(kInvalid, "axis 2 (4): expected 4, got 5; pattern [d1, None, 4] vs shape (6, 9, 5)",
               EnforceShape(Shape{6, 9, 5}, pattern, {&bindings, {}}));
  EXPECT_ERROR(kInvalid, "axis 0 ('d1'): expected 6, got 7",
               EnforceShape(Shape{7, 9, 4}, pattern, {&bindings, {}}));
}

TEST(EnforceShape, ProposalEllipsisInTheMiddle) {
  // x, [d1, d2, (axes, n_elements), d3] = enforce_shape(x, [1, None, ..., 3])
  ASSERT_OK_AND_ASSIGN(auto pattern,
                       ShapePattern::Make({ShapeEntry::Size(1), ShapeEntry::Any(),
                                           ShapeEntry::Ellipsis(), ShapeEntry::Size(3)}));
  ASSERT_OK_AND_ASSIGN(auto match, EnforceShape(Shape{1, 2, 4, 5, 3}, pattern));
  EXPECT_EQ(Values(match.ellipsis_axes), (Shape{4, 5}));
  EXPECT_EQ(Values(match.dims), (Shape{1, 2, 20, 3}));
  ASSERT_OK_AND_ASSIGN(auto none, EnforceShape(Shape{1, 2, 3}, pattern));
  EXPECT_TRUE(none.ellipsis_axes.empty());
  EXPECT_EQ(none.dims[2].value, 1);  // the product of zero axes
  EXPECT_ERROR(kInvalid,
               "expected at least 3 axes, got 2; pattern [1, None, ..., 3] vs shape (1, 3)",
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
  EXPECT_ERROR(
      kInvalid,
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
  EXPECT_ERROR(kInvalid, "'n' is bound as a symbol from axis 0 of shape (5,)",
               Check({2}, "*n", &empty));
}

TEST(EnforceShape, SharedBindingsAcrossArrays) {
  ShapeBindings bindings;
  ASSERT_OK(Check({8, 32, 32, 3}, "b h w 3", &bindings, "argument 'images'").status());
  ASSERT_OK_AND_ASSIGN(auto labels, Check({8}, "b", &bindings, "argument 'labels'"));
  EXPECT_EQ(labels.dims[0].value, 8);
  EXPECT_EQ(bindings.size(), 3);
  EXPECT_EQ(bindings.Find("h")->size.value, 32);
  EXPECT_EQ(bindings.Find("b")->origin, "argument 'images' axis 0");
  EXPECT_EQ(
      Message(Check({4}, "b", &bindings, "argument 'labels'")),
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
  EXPECT_EQ(
      Message(Check({8, 32, 32, 4}, "b h w c", &bindings)),
      "axis 3 ('c'): expected 3, got 4; pattern [b, h, w, c] vs shape (8, 32, 32, 4); symbol 'c' "
      "is 3 from axis 0 of shape (3,) but 4 from axis 3 of shape (8, 32, 32, 4)");
  EXPECT_EQ(Message(Check({8, 32}, "b h w 3")),
            "expected 4 axes, got 2; pattern [b, h, w, 3] vs shape (8, 32)");
}

// --- The matcher itself ----------------------------------------------------

TEST(ShapeMatch, MatchShapeReportsWhatItProved) {
  std::vector<DimSize> axes(2);
  axes[0].value = 4;
  axes[1].per_row = std::make_shared<const PerRowSizes>(std::vector<int64_t>{3, 3, 3, 3});
  std::vector<std::optional<int64_t>> proved;
  ASSERT_OK_AND_ASSIGN(ShapeMatch match, shape::MatchShape({axes, 4}, P("n 3"), {}, &proved));
  EXPECT_EQ(match.dims[0].value, 4);
  EXPECT_EQ(match.dims[1].value, 3);
  ASSERT_EQ(proved.size(), 2u);
  EXPECT_EQ(proved[1], std::optional<int64_t>(3));
  EXPECT_ERROR(kInvalid, "expected 3 axes, got 2", shape::MatchShape({axes, 4}, P("n 3 c"), {}));
}

TEST(ShapeMatch, FormatShapeTuple) {
  std::vector<DimSize> axes(3);
  axes[0].value = 8;
  axes[1].per_row = std::make_shared<const PerRowSizes>(std::vector<int64_t>{5, 6});
  axes[2].value = 3;
  EXPECT_EQ(shape::FormatShapeTuple(axes), "(8, None, 3)");
  EXPECT_EQ(shape::FormatShapeTuple(axes, 1), "(8, 6, 3)");
  EXPECT_EQ(shape::FormatShapeTuple(std::span<const DimSize>(axes).first(1)), "(8,)");
  EXPECT_EQ(shape::FormatShapeTuple({}), "()");
}

}  // namespace quiver
