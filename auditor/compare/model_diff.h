// `audit compare`: the element-wise comparison of two Sphinx parameter files (means, variances,
// mixture_weights, transition_matrices and the accumulator files mixw_counts, tmat_counts,
// gauden_counts). The files are parsed with the trainer's readers (formats/param_files.h), never
// byte-diffed: dimensions, number of differing elements, largest absolute and relative difference
// and where (state, stream, density, dimension), elements outside a tolerance, and per-state figures
// (for "the states that differ most" and the HTML heat map).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pstrain::audit {

// The parameter file kinds, by file name; nullopt for any other name.
enum class ParamKind { kGaussian, kMixtureWeights, kTransitions, kGaudenCounts };
std::optional<ParamKind> ParamKindOfName(const std::string& file_name);

// An element is outside the tolerance when |a - b| > atol + rtol * max(|a|, |b|) (symmetric in A
// and B), or when either value is not finite and their bits differ. The default (0, 0) counts every
// element whose value differs.
struct Tolerance {
  double rtol = 0.0;
  double atol = 0.0;
};

// One axis of a parameter array ("state", "stream", "density", "dimension", "tmat", "from", "to")
// and its size; for ragged streams (veclen differing by stream) the dimension size is the largest.
struct Axis {
  std::string name;
  std::uint64_t size = 0;
};

// Where one element sits: `array` ("" for files holding one array; "mean", "var" or "dnom" in
// gauden_counts) and one index per axis.
struct ElementDiff {
  std::string array;
  std::vector<std::pair<std::string, std::uint32_t>> index;
  // The state of B compared with index[0] of A, when the states are paired through the state
  // tying (ParamDiff::aligned_by); nullopt when they are compared position by position.
  std::optional<std::uint32_t> b_state;
  float a = 0.0f, b = 0.0f;
  double abs_diff = 0.0;
  double rel_diff = 0.0;  // |a - b| / max(|a|, |b|)
};

// Figures for one state (the first axis: senone / codebook, or tmat in transition files).
struct StateDiff {
  std::uint32_t state = 0;
  std::optional<std::uint32_t> b_state;  // B's state paired with it (aligned files only)
  std::uint64_t differing = 0;
  std::uint64_t outside = 0;
  double max_abs = 0.0;
  double max_rel = 0.0;
};

struct ParamDiff {
  std::string path;       // relative to the compared directories
  ParamKind kind = ParamKind::kGaussian;
  std::string state_axis;  // "state" or "tmat"
  std::vector<Axis> shape_a, shape_b;
  std::string shape_text_a, shape_text_b;  // "102 state x 1 stream x 1 density x 39 dimension"
  bool same_shape = false;
  std::uint64_t elements = 0;   // compared elements (0 when the shapes differ)
  std::uint64_t differing = 0;  // elements whose float32 bits differ
  std::uint64_t outside = 0;    // elements outside the tolerance
  std::optional<ElementDiff> max_abs, max_rel;  // largest differences (first in storage order on ties)
  std::vector<StateDiff> states;                 // every state, in order (same shape only)
  // "" when state i of A is compared with state i of B; "senone" or "tmat" when A's states are
  // paired with B's through the state tying (state_tying.h), states then numbered by A.
  std::string aligned_by;
  // Not compared element by element (the files are parsed, shapes only): why; "" otherwise.
  std::string not_compared;

  // The states with the largest absolute difference (ties: lower state first), at most `n`, only
  // states with a difference.
  std::vector<StateDiff> TopStates(std::size_t n) const;
};

// How DiffParamFiles pairs the states (the first axis) of A and B.
struct StatePairing {
  // State s of A is compared with state b_of_a[s] of B, when the file's first axis has
  // b_of_a.size() entries on both sides (otherwise position by position); nullptr: position by
  // position.
  const std::vector<std::uint32_t>* b_of_a = nullptr;
  std::string aligned_by;  // "senone" or "tmat", for ParamDiff::aligned_by
  // Non-empty: no element comparison (ParamDiff::not_compared gets this reason).
  std::string not_compared;
};

// Parses both files (the readers throw pstrain::InputError naming the file) and compares them.
ParamDiff DiffParamFiles(const std::string& path_a, const std::string& path_b, const std::string& relative_path,
                         ParamKind kind, const Tolerance& tolerance, const StatePairing& pairing = {});

// Parses one file only (for a parameter file present on one side), so that a malformed file is an
// error whichever side it is on. Throws pstrain::InputError naming the file.
void CheckParamFile(const std::string& path, ParamKind kind);

// "senone by senone through the state tying" for a file compared through the pairing, else "".
std::string PairingText(const ParamDiff& diff);

// `%.*g` of `value` with `digits` significant digits ("inf", "nan" as printf writes them).
std::string FormatNumber(double value, int digits = 9);

// "state 12, stream 0, density 0, dimension 5" (with "mean: " etc. in front for gauden_counts).
std::string LocationText(const ElementDiff& element);

}  // namespace pstrain::audit
