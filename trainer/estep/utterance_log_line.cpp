// FormatUtteranceLogLine: printf's conversions of the utt> line, through std::to_chars.
#include "estep/utterance_log_line.h"

#include <charconv>
#include <stdexcept>
#include <system_error>

namespace pstrain {

namespace {

// " %Ns": a space, then `text` right-aligned in `width` characters (never cut).
void AppendField(std::string& out, std::string_view text, std::size_t width) {
  out += ' ';
  if (text.size() < width) out.append(width - text.size(), ' ');
  out += text;
}

// The characters to_chars wrote; a buffer too small (which the sizes below rule out) is a bug.
std::string_view Written(const char* first, const std::to_chars_result& end) {
  if (end.ec != std::errc()) throw std::logic_error("FormatUtteranceLogLine: a number did not fit its buffer");
  return std::string_view(first, static_cast<std::size_t>(end.ptr - first));
}

// " %Nzu" / " %Nu".
void AppendUnsigned(std::string& out, std::size_t value, std::size_t width) {
  char digits[24];
  AppendField(out, Written(digits, std::to_chars(digits, digits + sizeof digits, value)), width);
}

// " %.Pe" / " %.Pf" (no width). 400 characters hold any double in either form with the precisions
// used here: %.1f of -DBL_MAX is 312 characters, %e at most 14.
void AppendDouble(std::string& out, double value, std::chars_format format, int precision) {
  char text[400];
  out += ' ';
  out += Written(text, std::to_chars(text, text + sizeof text, value, format, precision));
}

}  // namespace

void FormatUtteranceLogLine(const UtteranceLogFields& fields, std::string& out) {
  out.assign("utt>");
  AppendUnsigned(out, fields.number, 5);
  AppendField(out, fields.utt_id, 25);
  AppendUnsigned(out, fields.n_frames, 4);
  if (fields.skipped) {
    out += " skipped ";
    out += fields.reason;
    return;
  }
  AppendUnsigned(out, fields.n_states, 5);
  AppendDouble(out, fields.avg_alpha_states, std::chars_format::fixed, 1);
  AppendDouble(out, fields.avg_beta_states, std::chars_format::fixed, 1);
  AppendDouble(out, fields.avg_pruned_posterior, std::chars_format::scientific, 6);
  AppendDouble(out, fields.log_likelihood / fields.n_frames, std::chars_format::scientific, 6);
  AppendDouble(out, fields.log_likelihood, std::chars_format::scientific, 6);
  if (fields.retried) out += " (retried)";
}

}  // namespace pstrain
