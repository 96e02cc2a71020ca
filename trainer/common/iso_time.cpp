// IsoTime: strftime of the UTC time, then the milliseconds.
#include "common/iso_time.h"

#include <cstdio>
#include <ctime>

namespace pstrain {

std::string IsoTime(std::chrono::system_clock::time_point when) {
  const std::time_t t = std::chrono::system_clock::to_time_t(when);
  const long millis = static_cast<long>(
      std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch()).count() % 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[32], out[40];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(out, sizeof(out), "%s.%03ldZ", buffer, millis);
  return out;
}

}  // namespace pstrain
