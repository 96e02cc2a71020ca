// A time as telemetry writes it: ISO 8601 UTC with milliseconds ("2026-12-06T18:28:35.984Z").
#pragma once

#include <chrono>
#include <string>

namespace pstrain {

std::string IsoTime(std::chrono::system_clock::time_point when);

}  // namespace pstrain
