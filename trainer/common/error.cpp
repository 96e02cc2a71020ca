// Making untrusted text safe for error messages: Printable, Quoted and SanitizedMessage.
#include "common/error.h"

#include <cstdint>
#include <cstdio>

namespace pstrain {

namespace {

// Length of the valid UTF-8 sequence starting at text[pos] (no overlongs, no surrogates, at most
// U+10FFFF) and its code point; 0 when the byte there does not start one.
std::size_t Utf8Sequence(std::string_view text, std::size_t pos, std::uint32_t* code_point) {
  const auto lead = static_cast<unsigned char>(text[pos]);
  std::size_t length = 0;
  unsigned min_second = 0x80, max_second = 0xbf;
  std::uint32_t value = 0;
  if (lead < 0x80) {
    *code_point = lead;
    return 1;
  } else if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
    value = lead & 0x1fu;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    value = lead & 0x0fu;
    if (lead == 0xe0) min_second = 0xa0;  // overlong
    if (lead == 0xed) max_second = 0x9f;  // surrogates
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    value = lead & 0x07u;
    if (lead == 0xf0) min_second = 0x90;  // overlong
    if (lead == 0xf4) max_second = 0x8f;  // above U+10FFFF
  } else {
    return 0;
  }
  if (pos + length > text.size()) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    const auto byte = static_cast<unsigned char>(text[pos + i]);
    if (byte < (i == 1 ? min_second : 0x80u) || byte > (i == 1 ? max_second : 0xbfu)) return 0;
    value = (value << 6) | (byte & 0x3fu);
  }
  *code_point = value;
  return length;
}

// Code points that print as nothing or reorder the text around them.
bool IsInvisible(std::uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
         (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff;
}

std::string Hex(const char* format, unsigned value) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

// The escaping shared by Printable and SanitizedMessage (`message`: keep \t, \n, \ and ").
std::string Escape(std::string_view text, bool message, bool quote) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size();) {
    std::uint32_t cp = 0;
    const std::size_t length = Utf8Sequence(text, pos, &cp);
    if (length == 0) {  // not UTF-8: the byte itself
      out += Hex("\\x%02x", static_cast<unsigned char>(text[pos]));
      ++pos;
      continue;
    }
    if (length == 1) {
      const char c = text[pos];
      if (message && (c == '\n' || c == '\t')) out += c;
      else if (c == '\n') out += "\\n";
      else if (c == '\t') out += "\\t";
      else if (c == '\r') out += "\\r";
      else if (cp < 0x20 || cp == 0x7f) out += Hex("\\x%02x", cp);
      else if (c == '\\' && !message) out += "\\\\";
      else if (c == '"' && quote) out += "\\\"";
      else out += c;
    } else if (IsInvisible(cp)) {
      out += Hex("\\u%04x", cp);
    } else {
      out.append(text.substr(pos, length));
    }
    pos += length;
  }
  return out;
}

}  // namespace

std::string Printable(std::string_view text) { return Escape(text, false, false); }

std::string Quoted(std::string_view text, std::size_t max_bytes) {
  std::size_t cut = text.size();
  if (cut > max_bytes) {
    cut = max_bytes;
    // Back up to a character boundary (at most 3 continuation bytes).
    for (std::size_t i = 0; i < 3 && cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0u) == 0x80u; ++i) --cut;
  }
  // Built by appending: GCC 12 warns (-Wrestrict, a known false positive) on "\"" + string&&.
  std::string out = "\"";
  out += Escape(text.substr(0, cut), false, true);
  out += '"';
  if (cut < text.size()) {
    out += " (+";
    out += std::to_string(text.size() - cut);
    out += " more bytes)";
  }
  return out;
}

std::string SanitizedMessage(std::string_view message) { return Escape(message, true, false); }

}  // namespace pstrain
