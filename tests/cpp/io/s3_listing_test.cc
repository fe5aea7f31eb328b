// The S3 XML reader: ListObjectsV2 pages (entities, truncation, tokens),
// error codes, and malformed documents.
#include "quiver/io/s3_listing.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace quiver::io::internal {
namespace {

constexpr const char* kPage = R"(<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Name>bucket</Name><Prefix>data/</Prefix><KeyCount>3</KeyCount>
  <IsTruncated>true</IsTruncated>
  <NextContinuationToken>1a/b+c=&amp;</NextContinuationToken>
  <Contents><Key>data/a&amp;b.arrow</Key><Size>10</Size>
    <Owner><ID>x</ID></Owner></Contents>
  <Contents><Key>data/&lt;odd&gt; &#233;&#x4E2D;.arrow</Key></Contents>
  <Contents><Key><![CDATA[data/c<d>.arrow]]></Key></Contents>
  <CommonPrefixes><Prefix>data/sub/</Prefix></CommonPrefixes>
  <Empty/>
</ListBucketResult>)";

TEST(S3ListingTest, ReadsKeysTruncationAndToken) {
  ASSERT_OK_AND_ASSIGN(ListPage page, ParseListObjectsV2(kPage));
  ASSERT_EQ(page.keys.size(), 3u);
  EXPECT_EQ(page.keys[0], "data/a&b.arrow");
  EXPECT_EQ(page.keys[1], "data/<odd> \xc3\xa9\xe4\xb8\xad.arrow");
  EXPECT_EQ(page.keys[2], "data/c<d>.arrow");
  EXPECT_TRUE(page.truncated);
  EXPECT_EQ(page.next_token, "1a/b+c=&");
}

TEST(S3ListingTest, LastPage) {
  ASSERT_OK_AND_ASSIGN(ListPage page,
                       ParseListObjectsV2("<ListBucketResult><IsTruncated>false</IsTruncated>"
                                          "</ListBucketResult>"));
  EXPECT_TRUE(page.keys.empty());
  EXPECT_FALSE(page.truncated);
}

TEST(S3ListingTest, RefusesMalformedXml) {
  for (const char* bad :
       {"", "<Error></Error>", "<ListBucketResult>", "<ListBucketResult></Other>",
        "<ListBucketResult><Key>a</ListBucketResult></Key>",
        "<ListBucketResult>&bogus;</ListBucketResult>", "<ListBucketResult>&#0;</ListBucketResult>",
        "<ListBucketResult>&#xD800;</ListBucketResult>",
        "<ListBucketResult>&#x110000;</ListBucketResult>", "<ListBucketResult><!-- open",
        "<ListBucketResult><![CDATA[x</ListBucketResult>", "<ListBucketResult><", "<>"}) {
    EXPECT_EQ(ParseListObjectsV2(bad).status().code(), StatusCode::kInvalid) << bad;
  }
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += "<a>";
  EXPECT_ERROR(kInvalid, "nesting too deep", ParseListObjectsV2(deep));
}

TEST(S3ListingTest, ErrorCodes) {
  EXPECT_EQ(S3ErrorCode("<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code>"
                        "<Message>The specified key does not exist.</Message></Error>"),
            "NoSuchKey");
  EXPECT_EQ(S3ErrorCode("<html>nginx</html>"), "");
  EXPECT_EQ(S3ErrorCode("not xml <"), "");
  // Only a word is repeated in messages, never arbitrary text.
  EXPECT_EQ(S3ErrorCode("<Error><Code>a b</Code></Error>"), "");
}

TEST(S3ListingTest, Unescape) {
  ASSERT_OK_AND_ASSIGN(std::string text, XmlUnescape("&quot;&apos;&#65;&#x42;&amp;amp;"));
  EXPECT_EQ(text, "\"'AB&amp;");
  EXPECT_ERROR(kInvalid, "unknown entity", XmlUnescape("a & b"));
  EXPECT_ERROR(kInvalid, "unknown entity", XmlUnescape("&#x;"));
  EXPECT_ERROR(kInvalid, "unknown entity", XmlUnescape("&#99999999999;"));
}

}  // namespace
}  // namespace quiver::io::internal
