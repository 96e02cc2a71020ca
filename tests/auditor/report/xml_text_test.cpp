// Tests for the auditor's one escaper (auditor/report/xml_text.h): well-formed XML for any bytes.
#include "report/xml_text.h"

#include <gtest/gtest.h>

#include <string>

namespace pstrain::audit {
namespace {

TEST(XmlTextTest, EscapesMarkupAndControlCharacters) {
  EXPECT_EQ(XmlEscape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(XmlEscape("tab\tand\nnewline"), "tab\tand\nnewline");
  EXPECT_EQ(XmlEscape(std::string("nul\0bel\a\r", 9)), "nul\\x00bel\\x07\\x0d");
  EXPECT_EQ(XmlEscape("\x7f"), "\\x7f");
}

TEST(XmlTextTest, KeepsWellFormedUtf8) {
  EXPECT_EQ(XmlEscape("caf\xc3\xa9"), "caf\xc3\xa9");                      // U+00E9
  EXPECT_EQ(XmlEscape("\xe2\x82\xac"), "\xe2\x82\xac");                    // U+20AC
  EXPECT_EQ(XmlEscape("\xed\x9f\xbf"), "\xed\x9f\xbf");                    // U+D7FF, below the surrogates
  EXPECT_EQ(XmlEscape("\xee\x80\x80"), "\xee\x80\x80");                    // U+E000, above them
  EXPECT_EQ(XmlEscape("\xef\xbf\xbd"), "\xef\xbf\xbd");                    // U+FFFD
  EXPECT_EQ(XmlEscape("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");            // U+1F600
  EXPECT_EQ(XmlEscape("\xf4\x8f\xbf\xbf"), "\xf4\x8f\xbf\xbf");            // U+10FFFF
}

TEST(XmlTextTest, EscapesEveryByteOfIllFormedUtf8) {
  EXPECT_EQ(XmlEscape("bad \xc3 byte"), "bad \\xc3 byte");                 // truncated
  EXPECT_EQ(XmlEscape("\xc3"), "\\xc3");                                   // truncated at the end
  EXPECT_EQ(XmlEscape("\x80\xbf"), "\\x80\\xbf");                          // stray continuation bytes
  EXPECT_EQ(XmlEscape("\xc0\xaf"), "\\xc0\\xaf");                          // overlong '/'
  EXPECT_EQ(XmlEscape("\xc1\xbf"), "\\xc1\\xbf");                          // overlong U+007F
  EXPECT_EQ(XmlEscape("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");                 // overlong, 3 bytes
  EXPECT_EQ(XmlEscape("\xf0\x80\x80\xaf"), "\\xf0\\x80\\x80\\xaf");        // overlong, 4 bytes
  EXPECT_EQ(XmlEscape("\xed\xa0\x80"), "\\xed\\xa0\\x80");                 // U+D800, a surrogate
  EXPECT_EQ(XmlEscape("\xed\xbf\xbf"), "\\xed\\xbf\\xbf");                 // U+DFFF
  EXPECT_EQ(XmlEscape("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");        // U+110000
  EXPECT_EQ(XmlEscape("\xf5\x80\x80\x80"), "\\xf5\\x80\\x80\\x80");
  EXPECT_EQ(XmlEscape("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(XmlEscape("\xef\xbf\xbe\xef\xbf\xbf"), "\\xef\\xbf\\xbe\\xef\\xbf\\xbf");  // U+FFFE, U+FFFF
  // A bad byte does not swallow the well-formed character after it.
  EXPECT_EQ(XmlEscape("\xe2\x82" "\xc3\xa9"), "\\xe2\\x82\xc3\xa9");
}

TEST(XmlTextTest, AttributesKeepTabsAndNewlinesAsReferences) {
  EXPECT_EQ(XmlAttributeEscape("a\tb\nc\"<"), "a&#9;b&#10;c&quot;&lt;");
  EXPECT_EQ(XmlAttributeEscape(std::string("\0", 1)), "\\x00");
}

// Every output byte sequence of the escaper is itself made of XML characters only: escaping its
// own output changes nothing but the markup characters, for every two-byte input.
TEST(XmlTextTest, OutputIsAlwaysXmlCharacters) {
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      const std::string in{static_cast<char>(a), static_cast<char>(b)};
      const std::string out = XmlEscape(in);
      for (std::size_t i = 0; i < out.size();) {
        const std::size_t len = XmlCharLength(out, i);
        ASSERT_GT(len, 0u) << "input " << a << "," << b << " gave a non-XML byte at " << i;
        i += len;
      }
    }
  }
}

}  // namespace
}  // namespace pstrain::audit
