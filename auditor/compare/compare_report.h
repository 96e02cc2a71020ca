// `audit compare`: the three renderings of a CompareReport — text for people, JSON for machines
// (fixed key order, docs/audit.md), and one self-contained polyglot HTML5 page (well-formed XML, no
// scripts, no external resources) with a per-state difference heat map for each differing parameter
// file and the two likelihood trajectories, both as inline SVG.
#pragma once

#include <cstddef>
#include <string>

#include "compare/model_compare.h"

namespace pstrain::audit {

// Lines of one text diff shown in any rendering; the rest is counted ("N more lines").
inline constexpr std::size_t kMaxDiffLinesShown = 400;
// States listed as "the states that differ most".
inline constexpr std::size_t kTopStates = 10;

std::string RenderCompareText(const CompareReport& report);
std::string RenderCompareJson(const CompareReport& report);
std::string RenderCompareHtml(const CompareReport& report);

}  // namespace pstrain::audit
