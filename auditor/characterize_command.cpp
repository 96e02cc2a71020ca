#include "characterize_command.h"

#include <ostream>

namespace pstrain::audit {

const char* const kCharacterizeUsage = "usage: audit characterize (not implemented yet)\n";

int RunCharacterizeCommand(const std::vector<std::string>&, std::ostream&, std::ostream& err) {
  err << "audit characterize: not implemented yet\n";
  return 2;
}

}  // namespace pstrain::audit
