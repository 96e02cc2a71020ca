// The auditor's XML/HTML escaper: strict UTF-8 (Unicode's table of well-formed byte sequences) and
// XML 1.0's character range.
#include "report/xml_text.h"

namespace pstrain::audit {
namespace {

bool InRange(unsigned char c, unsigned lo, unsigned hi) { return c >= lo && c <= hi; }

void AppendHexByte(unsigned char c, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[c >> 4];
  out += kHex[c & 15];
}

std::string Escape(std::string_view text, bool attribute) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t len = XmlCharLength(text, i);
    if (len == 0) {
      AppendHexByte(static_cast<unsigned char>(text[i]), out);
      ++i;
      continue;
    }
    if (len > 1) {
      out.append(text.substr(i, len));
      i += len;
      continue;
    }
    switch (const char c = text[i++]) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\t': out += attribute ? "&#9;" : "\t"; break;
      case '\n': out += attribute ? "&#10;" : "\n"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::size_t XmlCharLength(std::string_view text, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char c = at(0);
  if (c < 0x80) return (c >= 0x20 && c != 0x7F) || c == '\t' || c == '\n' ? 1 : 0;
  const std::size_t left = text.size() - i;
  std::size_t len = 0;
  unsigned lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (InRange(c, 0xC2, 0xDF)) {
    len = 2;
  } else if (c == 0xE0) {
    len = 3, lo = 0xA0;
  } else if (InRange(c, 0xE1, 0xEC) || c == 0xEE || c == 0xEF) {
    len = 3;
  } else if (c == 0xED) {
    len = 3, hi = 0x9F;  // U+D800..U+DFFF are surrogates
  } else if (c == 0xF0) {
    len = 4, lo = 0x90;
  } else if (InRange(c, 0xF1, 0xF3)) {
    len = 4;
  } else if (c == 0xF4) {
    len = 4, hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;  // a continuation byte, C0/C1 (overlong) or F5..FF
  }
  if (left < len || !InRange(at(1), lo, hi)) return 0;
  for (std::size_t k = 2; k < len; ++k) {
    if (!InRange(at(k), 0x80, 0xBF)) return 0;
  }
  if (c == 0xEF && at(1) == 0xBF && (at(2) == 0xBE || at(2) == 0xBF)) return 0;  // U+FFFE, U+FFFF
  return len;
}

std::string XmlEscape(std::string_view text) { return Escape(text, false); }

std::string XmlAttributeEscape(std::string_view text) { return Escape(text, true); }

}  // namespace pstrain::audit
