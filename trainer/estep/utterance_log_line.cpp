// FormatUtteranceLogLine: printf's conversions of the utt> line, through std::to_chars.
#include "estep/utterance_log_line.h"

#include <charconv>
#include <system_error>

namespace pstrain {

namespace {

// " %Ns": a space, then `text` right-aligned in `width` characters (never cut).
void AppendField(std::string& out, std::string_view text, std::size_t width) {
  out += ' ';
  if (text.size() < width) out.append(width - text.size(), ' ');
  out += text;
}

// " %Nzu" / " %Nu".
void AppendUnsigned(std::string& out, std::size_t value, std::size_t width) {
  char digits[24];
  const std::to_chars_result end = std::to_chars(digits, digits + sizeof digits, value);
  AppendField(out, std::string_view(digits, static_cast<std::size_t>(end.ptr - digits)), width);
}

// " %.Pe" / " %.Pf" (no width). 400 characters hold any double in either form: %.1f of the
// largest double is 311 characters.
void AppendDouble(std::string& out, double value, std::chars_format format, int precision) {
  char text[400];
  const std::to_chars_result end = std::to_chars(text, text + sizeof text, value, format, precision);
  out += ' ';
  out.append(text, end.ptr);
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
