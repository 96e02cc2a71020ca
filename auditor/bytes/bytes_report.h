// `audit bytes`: the three renderings of a BytesReport — text for people, JSON for machines (fixed
// key order), and a single self-contained HTML page (inline CSS, no scripts, no external resources).
#pragma once

#include <string>

#include "bytes/bytes_compare.h"

namespace pstrain::audit {

std::string RenderBytesText(const BytesReport& report);
std::string RenderBytesJson(const BytesReport& report);
std::string RenderBytesHtml(const BytesReport& report);

}  // namespace pstrain::audit
