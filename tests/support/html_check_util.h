// Checks for the auditor's HTML pages (issue #6): each page is polyglot HTML5, i.e. also
// well-formed XML, so `xmllint` can check it strictly, and it must render in headless Chromium
// without console errors.
#pragma once

#include <filesystem>
#include <string>

namespace pstrain::testing {

// "" when `page` is well-formed XML (xmllint --noout); otherwise xmllint's messages.
std::string XmlWellFormednessErrors(const std::filesystem::path& page);

// Renders `page` in headless Chromium (Debian's /usr/bin/chromium), dumping the DOM and taking a
// screenshot into `screenshot`. Returns "" on success; otherwise what went wrong (non-zero exit,
// no DOM, a console error, an empty screenshot). Fails rather than skips when Chromium is missing.
std::string ChromiumRenderErrors(const std::filesystem::path& page, const std::filesystem::path& screenshot);

}  // namespace pstrain::testing
