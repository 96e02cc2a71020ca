// The auditor's child-process runner on Boost.Process.
#include "report/child_process.h"

#include <sys/wait.h>

#include <cstring>
#include <fstream>
#include <ostream>
#include <system_error>

#include <boost/process.hpp>

namespace pstrain::audit {

namespace bp = boost::process;

std::string ChildOutcome::Describe() const {
  if (!started) return "could not start: " + error;
  if (signalled) return "was killed by signal " + std::to_string(signal) + " (" + ::strsignal(signal) + ")";
  return "exited with status " + std::to_string(exit_code);
}

ChildOutcome RunChild(const ChildCommand& command) {
  ChildOutcome outcome;
  if (command.argv.empty()) {
    outcome.error = "no command";
    return outcome;
  }
  boost::filesystem::path exe = command.argv[0];
  if (command.argv[0].find('/') == std::string::npos) {
    exe = bp::search_path(command.argv[0]);
    if (exe.empty()) {
      outcome.error = command.argv[0] + " is not on PATH";
      return outcome;
    }
  }
  std::ofstream log(command.log, std::ios::binary | std::ios::trunc);
  if (!log) {
    outcome.error = "cannot write the log " + command.log.string() + ": " + std::strerror(errno);
    return outcome;
  }
  bp::environment env = boost::this_process::environment();
  for (const std::string& name : command.unset_env) env.erase(name);
  for (const auto& [name, value] : command.set_env) env[name] = value;
  const std::vector<std::string> args(command.argv.begin() + 1, command.argv.end());
  std::error_code ec;
  bp::ipstream output;
  bp::child child(exe, bp::args = args, env, (bp::std_out & bp::std_err) > output, bp::std_in < bp::null, ec);
  if (ec) {
    outcome.error = "cannot execute " + command.argv[0] + ": " + ec.message();
    return outcome;
  }
  outcome.started = true;
  char buffer[4096];
  while (output.read(buffer, sizeof buffer), output.gcount() > 0) {
    log.write(buffer, output.gcount());
    if (command.echo != nullptr) command.echo->write(buffer, output.gcount()).flush();
  }
  child.wait(ec);
  const int status = child.native_exit_code();
  if (WIFSIGNALED(status)) {
    outcome.signalled = true;
    outcome.signal = WTERMSIG(status);
  } else {
    outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : status;
  }
  return outcome;
}

}  // namespace pstrain::audit
