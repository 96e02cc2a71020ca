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

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

}  // namespace pstrain
