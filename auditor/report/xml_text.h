// The auditor's one escaper for text placed in its HTML pages, SVG charts and JUnit reports: the
// output is well-formed XML 1.0 for any input bytes.
#pragma once

#include <string>
#include <string_view>

namespace pstrain::audit {

// Text content: & < > " ' become references. A byte that does not start a well-formed UTF-8
// sequence (a stray continuation byte, a truncated sequence, an overlong form, an encoded UTF-16
// surrogate, a code point above U+10FFFF), a control character other than tab and newline, DEL,
// and the non-characters U+FFFE and U+FFFF (not XML characters) are written as "\xNN", one per
// byte, so the reader sees which bytes were there.
std::string XmlEscape(std::string_view text);

// An attribute value: as XmlEscape, and tab and newline as character references, so that an XML
// parser's attribute-value normalization keeps them.
std::string XmlAttributeEscape(std::string_view text);

// The length of the well-formed UTF-8 sequence that starts at `text[i]` and encodes an XML
// character, or 0 when the byte there does not start one (see XmlEscape). ASCII gives 1.
std::size_t XmlCharLength(std::string_view text, std::size_t i);

}  // namespace pstrain::audit
