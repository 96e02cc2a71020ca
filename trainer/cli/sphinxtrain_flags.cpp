// SphinxTrain-style flags of the `bw` and `norm` front ends (see sphinxtrain_flags.h).
#include "cli/sphinxtrain_flags.h"

#include <charconv>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include <sstream>

namespace pstrain::cli {

namespace {

// Every flag SphinxTrain's stages 20.ci_hmm, 30.cd_hmm_untied and 50.cd_hmm_tied pass to bw
// (baum_welch.pl), plus the partition and floor flags bw has. nullptr = the feature is not in
// pstrain: giving the flag at all is an error.
constexpr SphinxFlagSpec kBwFlags[] = {
    {"-moddeffn", "", "model definition file (text mdef 0.3)"},
    {"-ts2cbfn", ".cont.", "state-to-codebook map: continuous models only (.semi./.ptm. are not supported)"},
    {"-meanfn", "", "means file"},
    {"-varfn", "", "variances file"},
    {"-mixwfn", "", "mixture weights file"},
    {"-tmatfn", "", "transition matrices file"},
    {"-mwfloor", "", "mixture weight floor applied on load (bw's default 1e-5)"},
    {"-tpfloor", "", "transition probability floor applied on load (default 1e-4; stage 50 passes 1e-5)"},
    {"-varfloor", "", "variance floor applied on load (bw's default 1e-5)"},
    {"-dictfn", "", "dictionary"},
    {"-fdictfn", "", "filler dictionary"},
    {"-ctlfn", "", "control file (.fileids)"},
    {"-lsnfn", "", "transcript file (.transcription), one line per control-file line"},
    {"-part", "", "part number, 1..npart"},
    {"-npart", "", "number of parts: floor((lines-1)/npart) control lines per part (as Debian's bw counts), the rest to the last"},
    {"-nskip", "", "control lines to skip (with -runlen; wins over -part/-npart)"},
    {"-runlen", "", "control lines to process after -nskip (-1: to the end)"},
    {"-cepdir", "", "feature directory"},
    {"-cepext", "", "feature file extension"},
    {"-accumdir", "", "accumulator directory to write"},
    {"-topn", "", "Gaussians per frame and state that receive counts (0 or >= densities: all)"},
    {"-abeam", "", "forward beam"},
    {"-bbeam", "", "backward beam"},
    {"-spthresh", "", "state posterior threshold"},
    {"-agc", "none", "automatic gain control: none only"},
    {"-cmn", "batch|current|none", "cepstral mean normalization (live/prior depend on utterance order: not supported)"},
    {"-varnorm", "yes|no", "variance normalization"},
    {"-feat", "1s_c_d_dd", "feature type: 1s_c_d_dd only"},
    {"-ceplen", "13", "cepstrum length: 13 only"},
    {"-meanreest", "yes", "re-estimate means (always)"},
    {"-varreest", "yes", "re-estimate variances (always)"},
    {"-tmatreest", "yes", "re-estimate transition matrices (always)"},
    {"-mixwreest", "yes", "re-estimate mixture weights (always)"},
    {"-2passvar", "yes|no", "two-pass variance: accumulate around the input means"},
    {"-fullvar", "no", "full covariance: not supported"},
    {"-diagfull", "no", "diagonal of full covariance: not supported"},
    {"-timing", "yes|no", "timing output (ignored)"},
    {"-viterbi", "no", "Viterbi training (stage 50 with $CFG_CD_VITERBI = 'yes'): not supported"},
    {"-outputfullpath", "no", "full paths in phone segmentation output: not supported"},
    {"-svspec", nullptr, "subvector specification (stage 20 with $CFG_SVSPEC): not supported"},
    {"-lda", nullptr, "LDA/MLLT transform (stages 20/30/50 with an MLLT file): not supported"},
    {"-ldadim", nullptr, "LDA dimension: not supported"},
    {"-outphsegdir", nullptr, "phone segmentation output (stage 20 with $CFG_PHSEG_DIR): not supported"},
    {"-phsegdir", nullptr, "phone segmentation input (stage 50 with $CFG_PHSEG_DIR): not supported"},
    {"-mllrmat", nullptr, "MLLR transform of the input means: not supported"},
    {"-ckptintv", nullptr, "checkpointing: not supported"},
};

// Every flag the stages' norm.pl pass, plus norm's fallback means/variances.
constexpr SphinxFlagSpec kNormFlags[] = {
    {"-accumdir", "", "accumulator directories, comma-separated"},
    {"-meanfn", "", "means file to write"},
    {"-varfn", "", "variances file to write"},
    {"-mixwfn", "", "mixture weights file to write (raw counts, as norm writes them)"},
    {"-tmatfn", "", "transition matrices file to write (raw counts, as norm writes them)"},
    {"-inmeanfn", "", "means for densities without counts (else 0, as norm)"},
    {"-invarfn", "", "variances for densities without counts (else 0, as norm)"},
    {"-fullvar", "no", "full covariance: not supported"},
    {"-tiedvar", "no", "one pooled variance: not supported"},
    {"-feat", "1s_c_d_dd", "feature type: 1s_c_d_dd only"},
    {"-ceplen", "13", "cepstrum length: 13 only"},
    {"-dcountfn", nullptr, "density count output: not supported"},
    {"-oaccumdir", nullptr, "summed accumulator output: not supported"},
    {"-regmatfn", nullptr, "MLLR regression matrices: not supported"},
};

bool ValueSupported(const char* supported, const std::string& value) {
  if (*supported == '\0') return true;
  std::stringstream list(supported);
  for (std::string item; std::getline(list, item, '|');) {
    if (item == value) return true;
  }
  return false;
}

}  // namespace

std::span<const SphinxFlagSpec> BwFlagTable() { return kBwFlags; }
std::span<const SphinxFlagSpec> NormFlagTable() { return kNormFlags; }

SphinxFlags SphinxFlags::Parse(int argc, char** argv, std::span<const SphinxFlagSpec> table, const std::string& tool) {
  SphinxFlags flags;
  flags.tool_ = tool;
  for (int i = 1; i < argc; ++i) {
    const std::string name = argv[i];
    const SphinxFlagSpec* spec = nullptr;
    for (const SphinxFlagSpec& entry : table) {
      if (name == entry.name) spec = &entry;
    }
    if (spec == nullptr) throw SphinxFlagError("unknown flag " + Printable(name) + " (argument " + std::to_string(i) + ")");
    if (i + 1 >= argc) throw SphinxFlagError("flag " + name + " has no value");
    const std::string value = argv[++i];
    if (spec->supported == nullptr) {
      throw SphinxFlagError("flag " + name + " is not supported by pstrain " + tool + " (" + spec->meaning + ")");
    }
    if (!ValueSupported(spec->supported, value)) {
      throw SphinxFlagError("flag " + name + " " + Printable(value) + " is not supported by pstrain " + tool + " (supported: " +
                            spec->supported + "; " + spec->meaning + ")");
    }
    if (!flags.values_.emplace(name, value).second) throw SphinxFlagError("flag " + name + " is given twice");
  }
  return flags;
}

std::optional<std::string> SphinxFlags::Get(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string SphinxFlags::GetOr(const std::string& name, const std::string& fallback) const { return Get(name).value_or(fallback); }

std::string SphinxFlags::Require(const std::string& name) const {
  const std::optional<std::string> value = Get(name);
  if (!value || value->empty()) throw SphinxFlagError("flag " + name + " is required");
  return *value;
}

double SphinxFlags::Number(const std::string& name, double fallback) const {
  const std::optional<std::string> value = Get(name);
  if (!value) return fallback;
  char* end = nullptr;
  const double number = std::strtod(value->c_str(), &end);
  if (value->empty() || end != value->c_str() + value->size()) throw SphinxFlagError("flag " + name + " " + Printable(*value) + " is not a number");
  return number;
}

std::optional<std::uint64_t> SphinxFlags::Count(const std::string& name) const {
  const std::optional<std::string> value = Get(name);
  if (!value) return std::nullopt;
  std::uint64_t number = 0;
  const auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), number);
  if (value->empty() || ec != std::errc() || end != value->data() + value->size()) {
    throw SphinxFlagError("flag " + name + " " + Printable(*value) + " is not a whole number");
  }
  return number;
}

std::string DescribeFlags(std::span<const SphinxFlagSpec> table) {
  std::string out;
  for (const SphinxFlagSpec& spec : table) {
    std::string values = spec.supported == nullptr ? "(refused)" : *spec.supported == '\0' ? "any" : spec.supported;
    out += "  " + std::string(spec.name);
    out.append(spec.name[0] && std::string(spec.name).size() < 16 ? 16 - std::string(spec.name).size() : 1, ' ');
    out += values;
    out.append(values.size() < 20 ? 20 - values.size() : 1, ' ');
    out += std::string(spec.meaning) + "\n";
  }
  return out;
}

std::string FatalLine(const char* file, int line, const std::string& tool, const std::string& message) {
  return "FATAL: \"" + std::filesystem::path(file).filename().string() + "\", line " + std::to_string(line) + ": pstrain " + tool + ": " + message;
}

int RunSphinxTool(const std::string& tool, const std::function<int()>& body) {
  auto report = [&](const char* file, int line, const std::string& message) {
    std::cout.flush();
    std::fflush(stdout);
    std::cerr << FatalLine(file, line, tool, message) << std::endl;
  };
  try {
    return body();
  } catch (const SphinxFlagError& error) {
    report(__FILE__, __LINE__, error.what());
    return 2;
  } catch (const UsageError& error) {
    report(__FILE__, __LINE__, error.what());
    return 2;
  } catch (const InputError& error) {
    report(__FILE__, __LINE__, error.what());
    return 2;
  } catch (const std::exception& error) {
    report(__FILE__, __LINE__, error.what());
    return 1;
  }
}

}  // namespace pstrain::cli
