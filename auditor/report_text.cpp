#include "report_text.h"

namespace pstrain::audit {

std::string Plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Escapes for HTML and XML; control characters and invalid UTF-8 bytes become "\xNN" so that the
// page stays well-formed XML whatever a text file holds.
std::string HtmlEscape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const std::size_t len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
      bool valid = len > 0 && i + len <= s.size();
      for (std::size_t k = 1; valid && k < len; ++k) valid = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
      if (valid) {
        out.append(s, i, len);
        i += len - 1;
        continue;
      }
    }
    if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F || c >= 0x80) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
      continue;
    }
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += static_cast<char>(c);
    }
  }
  return out;
}

std::string LastLines(const std::string& text, std::size_t count) {
  std::size_t pos = text.size();
  if (pos > 0 && text[pos - 1] == '\n') --pos;
  for (std::size_t lines = 0; pos > 0 && lines < count; ++lines) {
    const std::size_t nl = text.rfind('\n', pos - 1);
    pos = nl == std::string::npos ? 0 : nl;
  }
  return text.substr(pos == 0 ? 0 : pos + 1);
}

boost::json::array JsonStrings(const std::vector<std::string>& items) {
  boost::json::array a;
  for (const std::string& s : items) a.emplace_back(s);
  return a;
}

}  // namespace pstrain::audit
