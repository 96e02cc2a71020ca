// The report of `audit mutate`: text for people, JSON for machines (Boost.JSON, fixed key order).
// Layouts in docs/audit.md.
#pragma once

#include <string>

#include "mutate/mutate_engine.h"

namespace pstrain::audit {

std::string RenderMutateText(const MutateReport& report);
std::string RenderMutateJson(const MutateReport& report);

}  // namespace pstrain::audit
