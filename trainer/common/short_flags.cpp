// ShortFlags: the extra parser that maps a short flag token to its long option.
#include "common/short_flags.h"

namespace pstrain {

std::pair<std::string, std::string> ShortFlags::operator()(const std::string& token) const {
  const auto it = long_names_.find(token);
  if (it == long_names_.end()) return {};
  return {it->second, ""};
}

}  // namespace pstrain
