// Checks that the auditor's HTML pages are well-formed polyglot HTML5 (XML-parseable).
#include "support/html_check_util.h"

#include <sstream>

#include "support/test_util.h"

namespace pstrain::testing {

namespace fs = std::filesystem;

std::string XmlWellFormednessErrors(const fs::path& page) {
  if (!fs::is_regular_file(page)) return "no page at " + page.string();
  const CommandResult r = RunCommand("xmllint --noout " + ShellQuote(page.string()));
  if (r.exit_code != 0) return "xmllint exit " + std::to_string(r.exit_code) + ":\n" + r.output;
  return "";
}

std::string ChromiumRenderErrors(const fs::path& page, const fs::path& screenshot) {
  constexpr const char* kChromium = "/usr/bin/chromium";
  if (!fs::exists(kChromium)) return "Chromium is not installed (scripts/bootstrap.sh installs it)";
  const fs::path absolute = fs::absolute(page);
  const fs::path profile = screenshot.parent_path() / (screenshot.filename().string() + ".profile");
  fs::remove_all(profile);
  fs::remove(screenshot);
  const std::string common = std::string("timeout 120 ") + kChromium +
                             " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage"
                             " --no-first-run --user-data-dir=" +
                             ShellQuote(profile.string()) + " --enable-logging=stderr --v=0 ";
  const CommandResult dom = RunCommand(common + "--dump-dom " + ShellQuote("file://" + absolute.string()));
  if (dom.exit_code != 0) return "chromium --dump-dom exit " + std::to_string(dom.exit_code) + ":\n" + dom.output;
  if (dom.output.find("</html>") == std::string::npos) return "chromium dumped no DOM:\n" + dom.output;
  std::istringstream lines(dom.output);
  for (std::string line; std::getline(lines, line);) {
    // Chromium logs page console messages as "...:CONSOLE(n)] ..." or "CONSOLE:..."; any is a fault
    // for pages that carry no script.
    if (line.find("CONSOLE") != std::string::npos) return "console message while rendering: " + line;
  }
  const CommandResult shot = RunCommand(common + "--window-size=1280,2000 --screenshot=" +
                                        ShellQuote(screenshot.string()) + " " +
                                        ShellQuote("file://" + absolute.string()));
  if (shot.exit_code != 0) return "chromium --screenshot exit " + std::to_string(shot.exit_code) + ":\n" + shot.output;
  if (!fs::is_regular_file(screenshot) || fs::file_size(screenshot) < 1000) {
    return "chromium wrote no screenshot at " + screenshot.string() + ":\n" + shot.output;
  }
  fs::remove_all(profile);
  return "";
}

}  // namespace pstrain::testing
