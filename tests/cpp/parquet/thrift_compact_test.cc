// The Thrift compact protocol: what the writer writes the reader reads back,
// and hostile bytes (truncated, overlong, too deep, lying counts) fail with
// an error naming the byte instead of reading out of bounds.
#include "quiver/parquet/thrift_compact.h"

#include <string>

#include "test_util.h"

namespace quiver::parquet {
namespace {

// A reader over `bytes`, which must outlive it (never a temporary).
ThriftReader Reader(const std::string& bytes) {
  return ThriftReader(reinterpret_cast<const uint8_t*>(bytes.data()),
                      static_cast<int64_t>(bytes.size()), "test bytes");
}

TEST(ThriftCompactTest, WrittenFieldsReadBack) {
  ThriftWriter w;
  w.BeginStruct();
  w.I32(1, -7);
  w.I64(2, int64_t{1} << 40);
  w.Binary(3, "name");
  w.Bool(4, true);
  w.Bool(5, false);
  w.Byte(6, -3);
  w.I16(7, -300);
  w.I32(40, 123456);                       // a field id delta over 15: the long header form
  w.I64(2, -1);                            // an id below the last one: the long form too
  w.ListHeader(41, ThriftType::kI32, 20);  // 15 or more elements: the long size form
  for (int i = 0; i < 20; ++i) w.I32Element(i - 10);
  w.EndStruct();
  const std::string bytes = w.Take();

  ThriftReader r = Reader(bytes);
  std::vector<std::string> seen;
  ASSERT_OK(ReadStruct(r, [&](const ThriftField& f) -> Status {
    seen.push_back(std::to_string(f.id));
    switch (f.id) {
      case 1: EXPECT_EQ(*r.ReadI32(), -7); break;
      case 2: {
        const int64_t v = *r.ReadI64();
        EXPECT_TRUE(v == (int64_t{1} << 40) || v == -1);
        break;
      }
      case 3: EXPECT_EQ(*r.ReadBinary(), "name"); break;
      case 4: EXPECT_EQ(f.type, ThriftType::kTrue); break;
      case 5: EXPECT_EQ(f.type, ThriftType::kFalse); break;
      case 6: EXPECT_EQ(*r.ReadByte(), -3); break;
      case 7: EXPECT_EQ(*r.ReadI16(), -300); break;
      case 40: EXPECT_EQ(*r.ReadI32(), 123456); break;
      case 41:
        return ReadList(r, "values", ThriftType::kI32, [&](int64_t i) -> Status {
          QUIVER_ASSIGN_OR_RETURN(int32_t v, r.ReadI32());
          EXPECT_EQ(v, i - 10);
          return Status::OK();
        });
      default: ADD_FAILURE() << "unexpected field " << f.id;
    }
    return Status::OK();
  }));
  EXPECT_EQ(seen, (std::vector<std::string>{"1", "2", "3", "4", "5", "6", "7", "40", "2", "41"}));
  EXPECT_EQ(r.position(), static_cast<int64_t>(bytes.size()));
}

TEST(ThriftCompactTest, SkipPassesOverNestedValuesOfEveryType) {
  // struct { 1: map<i32, list<bool>> {1: [true, false]}, 2: set<binary>, 3: struct {1: double} }
  std::string bytes;
  bytes += '\x1b';                  // field 1, map
  bytes += '\x01';                  // one entry
  bytes += '\x59';                  // key i32, value list
  bytes += '\x02';                  // key 1
  bytes += '\x21';                  // list of 2 bools
  bytes += '\x01';                  // true
  bytes += '\x02';                  // false
  bytes += '\x1a';                  // field 2, set
  bytes += '\x18';                  // one binary
  bytes += "\x02hi";                // "hi"
  bytes += '\x1c';                  // field 3, struct
  bytes += '\x17';                  // field 1, double
  bytes += std::string(8, '\x00');  // 0.0
  bytes += '\x00';                  // end of the inner struct
  bytes += '\x00';                  // end of the outer struct
  ThriftReader r = Reader(bytes);
  ASSERT_OK(r.Skip(ThriftType::kStruct));
  EXPECT_EQ(r.position(), static_cast<int64_t>(bytes.size()));
}

TEST(ThriftCompactTest, TruncatedValuesAreErrorsNamingTheByte) {
  ThriftWriter w;
  w.BeginStruct();
  w.Binary(1, "a longer string");
  w.I64(2, int64_t{1} << 50);
  w.EndStruct();
  const std::string whole = w.Take();
  for (size_t cut = 0; cut < whole.size(); ++cut) {
    const std::string part = whole.substr(0, cut);
    ThriftReader r = Reader(part);
    Status status = r.Skip(ThriftType::kStruct);
    EXPECT_FALSE(status.ok()) << "cut at " << cut;
    EXPECT_NE(status.message().find("test bytes: "), std::string::npos) << status.ToString();
    EXPECT_NE(status.message().find(" at byte "), std::string::npos) << status.ToString();
  }
}

TEST(ThriftCompactTest, HostileLengthsAndCountsAreRefused) {
  // A binary claiming 1,000 bytes with 2 left.
  EXPECT_ERROR(kInvalid, "a binary of 1000 bytes runs past the 2 bytes left",
               Reader(std::string("\xe8\x07xy", 4)).ReadBinary());
  // A list claiming 2^40 elements.
  EXPECT_ERROR(kInvalid, "a list of 1099511627776 elements runs past",
               Reader(std::string("\xf5\x80\x80\x80\x80\x80\x20", 7)).BeginList());
  // A varint of 11 bytes.
  EXPECT_ERROR(kInvalid, "varint", Reader(std::string(11, '\xff')).ReadI64());
  // An i32 out of range.
  EXPECT_ERROR(kInvalid, "an i32 is out of range",
               Reader(std::string("\x80\x80\x80\x80\x20", 5)).ReadI32());
  // An unknown type nibble in a field header.
  const std::string unknown_bytes("\x1e\x00", 2);
  ThriftReader unknown = Reader(unknown_bytes);
  ASSERT_OK(unknown.BeginStruct());
  EXPECT_ERROR(kInvalid, "unknown field type 14", unknown.ReadField());
  // A field id of zero in the long form.
  const std::string zero_bytes("\x05\x00\x00", 3);
  ThriftReader zero = Reader(zero_bytes);
  ASSERT_OK(zero.BeginStruct());
  EXPECT_ERROR(kInvalid, "field id 0 is out of range", zero.ReadField());
}

TEST(ThriftCompactTest, NestingDeeperThanTheLimitIsRefusedWithoutRecursingFurther) {
  // 100,000 structs each opening the next as field 1: a naive skip would
  // recurse 100,000 deep.
  std::string bytes(100000, '\x1c');
  bytes += std::string(100001, '\x00');
  ThriftReader r = Reader(bytes);
  EXPECT_ERROR(kInvalid, "nest deeper than 64 levels", r.Skip(ThriftType::kStruct));
}

TEST(ThriftCompactTest, ListOfTheWrongElementTypeIsNamed) {
  ThriftWriter w;
  w.BeginStruct();
  w.ListHeader(1, ThriftType::kBinary, 1);
  w.BinaryElement("x");
  w.EndStruct();
  const std::string bytes = w.Take();
  ThriftReader r = Reader(bytes);
  EXPECT_ERROR(kInvalid, "encodings holds elements of type binary, expected i32",
               ReadStruct(r, [&](const ThriftField&) {
                 return ReadList(r, "encodings", ThriftType::kI32,
                                 [&](int64_t) { return r.ReadI32().status(); });
               }));
}

}  // namespace
}  // namespace quiver::parquet
