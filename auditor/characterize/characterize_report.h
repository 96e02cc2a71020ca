// The report of `audit characterize`: text for people, JSON for machines (Boost.JSON, fixed key
// order), and one self-contained polyglot HTML5 page (well-formed XML, inline CSS and SVG, no
// scripts, no external resources) with the per-pass curves. Layouts in docs/audit.md.
#pragma once

#include <cstdint>
#include <string>

#include "characterize/characterize_measure.h"

namespace pstrain::audit {

struct CharacterizeReport {
  std::string manifest, model;
  std::uint32_t jobs_a = 0, jobs_b = 0;
  std::uint32_t passes = 0;
  double budget = 0.0;
  ModeComparison float32;  // the arm under study
  ModeComparison exact;    // the control: must show no difference at all
};

// Said in every rendering.
extern const char* const kConvergenceCaveat;

std::string RenderCharacterizeText(const CharacterizeReport& report);
std::string RenderCharacterizeJson(const CharacterizeReport& report);
std::string RenderCharacterizeHtml(const CharacterizeReport& report);

}  // namespace pstrain::audit
