// The one place an audit command's trouble becomes exit 2 (report/command_runner.h).
#include "report/command_runner.h"

#include <exception>
#include <ostream>

#include "report/audit_error.h"

namespace pstrain::audit {

int RunReportingErrors(const char* name, CommandFunction run, const std::vector<std::string>& args, std::ostream& out,
                       std::ostream& err) {
  try {
    return run(args, out, err);
  } catch (const UsageError& error) {
    err << "audit " << name << ": " << error.what() << "\n(see audit " << name << " --help)\n";
  } catch (const std::exception& error) {
    err << "audit " << name << ": " << error.what() << "\n";
  }
  return 2;
}

}  // namespace pstrain::audit
