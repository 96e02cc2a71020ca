// Parsing and checking feat.params files.
#include "formats/feat_params.h"

#include <sstream>

#include "common/error.h"
#include "common/file_io.h"

namespace pstrain {

FeatParams FeatParams::Parse(const std::string& text, const std::string& path) {
  FeatParams params;
  std::istringstream in(text);
  std::string line;
  std::size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::istringstream tokens(line);
    std::string name, value, extra;
    if (!(tokens >> name)) continue;
    if (name[0] == '#') continue;
    if (name.size() < 2 || name[0] != '-') throw RecordError(path, line_no, "expected \"-name value\", found " + Quoted(line));
    if (!(tokens >> value)) throw RecordError(path, line_no, "setting " + Printable(name) + " has no value");
    if (tokens >> extra) throw RecordError(path, line_no, "setting " + Printable(name) + " has more than one value");
    if (params.Get(name.substr(1))) throw RecordError(path, line_no, "setting " + Printable(name) + " appears twice");
    params.entries_.emplace_back(name.substr(1), value);
    params.lines_.push_back(line_no);
  }
  return params;
}

void CheckFeatParamsSupported(const FeatParams& params, const std::string& path) {
  const auto& entries = params.entries();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& [name, value] = entries[i];
    std::string problem;
    if (name == "feat" && value != "1s_c_d_dd") {
      problem = "is not supported: pstrain computes 1s_c_d_dd features only (13 cepstra, their deltas and double deltas, one stream)";
    } else if ((name == "ceplen" || name == "ncep") && value != "13") {
      problem = "is not supported: pstrain's features are computed from 13 cepstral coefficients";
    } else if (name == "lda" || name == "ldadim") {
      problem = "is not supported: pstrain applies no feature transform (LDA/MLLT)";
    } else if (name == "svspec") {
      problem = "is not supported: pstrain trains one feature stream (no subvector split)";
    }
    if (problem.empty()) continue;
    const std::string what = "setting -" + Printable(name) + " " + Printable(value) + " " + problem +
                             "; training would proceed with other features than this file declares";
    if (params.line_of(i) == 0) throw FileError(path, what);
    throw RecordError(path, params.line_of(i), what);
  }
}

FeatParams FeatParams::Load(const std::string& path) { return Parse(ReadFileText(path), path); }

std::string FeatParams::Serialize() const {
  std::string out;
  for (const auto& [name, value] : entries_) out += "-" + name + " " + value + "\n";
  return out;
}

std::optional<std::string> FeatParams::Get(const std::string& name) const {
  for (const auto& [key, value] : entries_) {
    if (key == name) return value;
  }
  return std::nullopt;
}

void FeatParams::Set(const std::string& name, const std::string& value) {
  for (auto& [key, current] : entries_) {
    if (key == name) {
      current = value;
      return;
    }
  }
  entries_.emplace_back(name, value);
  lines_.push_back(0);
}

}  // namespace pstrain
