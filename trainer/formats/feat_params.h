// `feat.params`: the front-end and feature settings a model was trained with, one `-name value`
// pair per line, as pocketsphinx reads them. Order and spelling are preserved, so reading and
// writing a file gives the same bytes.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pstrain {

class FeatParams {
 public:
  static FeatParams Parse(const std::string& text, const std::string& path);
  static FeatParams Load(const std::string& path);
  std::string Serialize() const;

  std::optional<std::string> Get(const std::string& name) const;  // name without the leading '-'
  // Replaces the value of an existing setting or appends a new one at the end.
  void Set(const std::string& name, const std::string& value);
  const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }
  // The line of the file entry `i` came from (0 for a setting added by Set).
  std::size_t line_of(std::size_t i) const { return lines_[i]; }

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
  std::vector<std::size_t> lines_;  // parallel to entries_
};

// Refuses (InputError naming the file, the line, the setting and its value) a setting that says
// the model's features are other than what pstrain computes from 13 cepstra (1s_c_d_dd, one
// stream, no transform): -feat other than 1s_c_d_dd, -ceplen or -ncep other than 13, and any -lda,
// -ldadim or -svspec. Training would otherwise proceed with 1s_c_d_dd while the output feat.params
// still claimed the other features. Front-end settings (-nfilt, -lowerf, ...) describe how the
// cepstra were made and are copied; -cmn, -varnorm and -agc are rewritten to what was computed.
void CheckFeatParamsSupported(const FeatParams& params, const std::string& path);

}  // namespace pstrain
