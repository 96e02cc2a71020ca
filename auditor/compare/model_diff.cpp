// `audit compare`: the element-wise comparison of two Sphinx parameter files.
#include "compare/model_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "formats/param_files.h"

namespace pstrain::audit {

std::optional<ParamKind> ParamKindOfName(const std::string& file_name) {
  if (file_name == "means" || file_name == "variances") return ParamKind::kGaussian;
  if (file_name == "mixture_weights" || file_name == "mixw_counts") return ParamKind::kMixtureWeights;
  if (file_name == "transition_matrices" || file_name == "tmat_counts") return ParamKind::kTransitions;
  if (file_name == "gauden_counts") return ParamKind::kGaudenCounts;
  return std::nullopt;
}

std::vector<StateDiff> ParamDiff::TopStates(std::size_t n) const {
  std::vector<StateDiff> top;
  for (const StateDiff& s : states) {
    if (s.differing > 0) top.push_back(s);
  }
  std::stable_sort(top.begin(), top.end(), [](const StateDiff& x, const StateDiff& y) {
    if (x.max_abs != y.max_abs) return x.max_abs > y.max_abs;
    return x.state < y.state;
  });
  if (top.size() > n) top.resize(n);
  return top;
}

std::string PairingText(const ParamDiff& diff) {
  return diff.aligned_by.empty() ? "" : diff.aligned_by + " by " + diff.aligned_by + " through the state tying";
}

std::string FormatNumber(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*g", digits, value);
  return buffer;
}

std::string LocationText(const ElementDiff& element) {
  std::string out = element.array.empty() ? "" : element.array + ": ";
  for (std::size_t i = 0; i < element.index.size(); ++i) {
    if (i > 0) out += ", ";
    out += element.index[i].first + " " + std::to_string(element.index[i].second);
  }
  return out;
}

namespace {

// Accumulates the comparison of aligned elements.
class Comparer {
 public:
  // `b_of_a`: B's state for each of A's (nullptr: the same number).
  Comparer(ParamDiff& diff, const Tolerance& tolerance, std::uint64_t n_states,
           const std::vector<std::uint32_t>* b_of_a)
      : diff_(diff), tolerance_(tolerance), b_of_a_(b_of_a) {
    diff_.states.resize(n_states);
    for (std::uint64_t s = 0; s < n_states; ++s) {
      diff_.states[s].state = static_cast<std::uint32_t>(s);
      if (b_of_a_) diff_.states[s].b_state = (*b_of_a_)[s];
    }
  }

  // B's state compared with A's state `a_state`.
  std::uint32_t BState(std::uint32_t a_state) const { return b_of_a_ ? (*b_of_a_)[a_state] : a_state; }

  // `names` and `index` describe the element; index[0] is the state.
  void Add(const std::string& array, const std::vector<std::string>& names, const std::uint32_t* index, float a,
           float b) {
    ++diff_.elements;
    std::uint32_t bits_a, bits_b;
    std::memcpy(&bits_a, &a, sizeof(a));
    std::memcpy(&bits_b, &b, sizeof(b));
    if (bits_a == bits_b) return;
    const double da = a, db = b;
    double abs_diff, rel_diff;
    if (!std::isfinite(da) || !std::isfinite(db)) {
      abs_diff = std::numeric_limits<double>::infinity();
      rel_diff = std::numeric_limits<double>::infinity();
    } else {
      abs_diff = std::fabs(da - db);
      const double scale = std::max(std::fabs(da), std::fabs(db));
      rel_diff = scale > 0.0 ? abs_diff / scale : 0.0;
    }
    const bool outside = !std::isfinite(abs_diff) ||
                         abs_diff > tolerance_.atol + tolerance_.rtol * std::max(std::fabs(da), std::fabs(db));
    ++diff_.differing;
    if (outside) ++diff_.outside;
    StateDiff& state = diff_.states[index[0]];
    ++state.differing;
    if (outside) ++state.outside;
    state.max_abs = std::max(state.max_abs, abs_diff);
    state.max_rel = std::max(state.max_rel, rel_diff);
    auto element = [&] {
      ElementDiff e;
      e.array = array;
      for (std::size_t i = 0; i < names.size(); ++i) e.index.emplace_back(names[i], index[i]);
      if (b_of_a_) e.b_state = (*b_of_a_)[index[0]];
      e.a = a;
      e.b = b;
      e.abs_diff = abs_diff;
      e.rel_diff = rel_diff;
      return e;
    };
    if (!diff_.max_abs || abs_diff > diff_.max_abs->abs_diff) diff_.max_abs = element();
    if (!diff_.max_rel || rel_diff > diff_.max_rel->rel_diff) diff_.max_rel = element();
  }

 private:
  ParamDiff& diff_;
  const Tolerance& tolerance_;
  const std::vector<std::uint32_t>* b_of_a_;
};

std::string ShapeText(const std::vector<Axis>& axes, const std::vector<std::uint32_t>& veclen) {
  std::string out;
  for (const Axis& axis : axes) {
    if (!out.empty()) out += " x ";
    out += std::to_string(axis.size) + " " + axis.name;
  }
  if (veclen.size() > 1) {
    out += " (veclen";
    for (std::uint32_t v : veclen) {
      out += ' ';
      out += std::to_string(v);
    }
    out += ")";
  }
  return out;
}

std::vector<Axis> GaussianAxes(std::uint32_t n, std::uint32_t n_feat, std::uint32_t n_density,
                               const std::vector<std::uint32_t>& veclen) {
  const std::uint32_t max_veclen = veclen.empty() ? 0 : *std::max_element(veclen.begin(), veclen.end());
  return {{"state", n}, {"stream", n_feat}, {"density", n_density}, {"dimension", max_veclen}};
}

// Visits [n][veclen.size()][n_density][veclen[feat]] in storage order (GaussianParams::Offset's layout);
// A's state m is compared with B's state cmp.BState(m).
void CompareGaussianLayout(Comparer& cmp, const std::string& array, std::uint32_t n, std::uint32_t n_density,
                           const std::vector<std::uint32_t>& veclen, const std::vector<float>& a,
                           const std::vector<float>& b) {
  static const std::vector<std::string> names = {"state", "stream", "density", "dimension"};
  std::size_t per_state = 0;
  for (std::uint32_t v : veclen) per_state += std::size_t(n_density) * v;
  std::size_t flat = 0;
  std::uint32_t index[4];
  for (std::uint32_t m = 0; m < n; ++m) {
    std::size_t flat_b = std::size_t(cmp.BState(m)) * per_state;
    for (std::uint32_t f = 0; f < veclen.size(); ++f) {
      for (std::uint32_t d = 0; d < n_density; ++d) {
        for (std::uint32_t k = 0; k < veclen[f]; ++k, ++flat, ++flat_b) {
          index[0] = m, index[1] = f, index[2] = d, index[3] = k;
          cmp.Add(array, names, index, a[flat], b[flat_b]);
        }
      }
    }
  }
}

void Compare3D(Comparer& cmp, const std::vector<std::string>& names, const Array3D& a, const Array3D& b) {
  const std::size_t per_state = std::size_t(a.d2) * a.d3;
  std::size_t flat = 0;
  std::uint32_t index[3];
  for (std::uint32_t i = 0; i < a.d1; ++i) {
    std::size_t flat_b = std::size_t(cmp.BState(i)) * per_state;
    for (std::uint32_t j = 0; j < a.d2; ++j) {
      for (std::uint32_t k = 0; k < a.d3; ++k, ++flat, ++flat_b) {
        index[0] = i, index[1] = j, index[2] = k;
        cmp.Add("", names, index, a.data[flat], b.data[flat_b]);
      }
    }
  }
}

std::vector<std::string> Array3DNames(ParamKind kind) {
  if (kind == ParamKind::kTransitions) return {"tmat", "from", "to"};
  return {"state", "stream", "density"};
}

std::vector<Axis> Array3DAxes(ParamKind kind, const Array3D& a) {
  const std::vector<std::string> names = Array3DNames(kind);
  return {{names[0], a.d1}, {names[1], a.d2}, {names[2], a.d3}};
}

std::string GaudenShapeText(const GaudenCounts& c) {
  std::string out = ShapeText(GaussianAxes(c.n_cb, c.n_feat(), c.n_density, c.veclen), c.veclen);
  out += std::string("; arrays:") + (c.has_means ? " mean" : "") + (c.has_vars ? " var" : "") + " dnom";
  if (c.pass2var) out += "; pass2var";
  return out;
}

}  // namespace

ParamDiff DiffParamFiles(const std::string& path_a, const std::string& path_b, const std::string& relative_path,
                         ParamKind kind, const Tolerance& tolerance, const StatePairing& pairing) {
  ParamDiff diff;
  diff.not_compared = pairing.not_compared;
  // The pairing applies when the first axis has one entry per paired state on both sides.
  const auto paired = [&](std::uint64_t n_states) -> const std::vector<std::uint32_t>* {
    if (pairing.b_of_a == nullptr || pairing.b_of_a->size() != n_states) return nullptr;
    diff.aligned_by = pairing.aligned_by;
    return pairing.b_of_a;
  };
  diff.path = relative_path;
  diff.kind = kind;
  diff.state_axis = kind == ParamKind::kTransitions ? "tmat" : "state";
  switch (kind) {
    case ParamKind::kGaussian: {
      const GaussianParams a = ReadGaussianFile(path_a);
      const GaussianParams b = ReadGaussianFile(path_b);
      diff.shape_a = GaussianAxes(a.n_mgau, a.n_feat, a.n_density, a.veclen);
      diff.shape_b = GaussianAxes(b.n_mgau, b.n_feat, b.n_density, b.veclen);
      diff.shape_text_a = ShapeText(diff.shape_a, a.veclen);
      diff.shape_text_b = ShapeText(diff.shape_b, b.veclen);
      diff.same_shape = a.SameShape(b);
      if (!diff.same_shape || !diff.not_compared.empty()) break;
      Comparer cmp(diff, tolerance, a.n_mgau, paired(a.n_mgau));
      CompareGaussianLayout(cmp, "", a.n_mgau, a.n_density, a.veclen, a.data, b.data);
      break;
    }
    case ParamKind::kMixtureWeights:
    case ParamKind::kTransitions: {
      const Array3D a = ReadArray3DFile(path_a);
      const Array3D b = ReadArray3DFile(path_b);
      diff.shape_a = Array3DAxes(kind, a);
      diff.shape_b = Array3DAxes(kind, b);
      diff.shape_text_a = ShapeText(diff.shape_a, {});
      diff.shape_text_b = ShapeText(diff.shape_b, {});
      diff.same_shape = a.d1 == b.d1 && a.d2 == b.d2 && a.d3 == b.d3;
      if (!diff.same_shape || !diff.not_compared.empty()) break;
      Comparer cmp(diff, tolerance, a.d1, paired(a.d1));
      Compare3D(cmp, Array3DNames(kind), a, b);
      break;
    }
    case ParamKind::kGaudenCounts: {
      const GaudenCounts a = ReadGaudenCountsFile(path_a);
      const GaudenCounts b = ReadGaudenCountsFile(path_b);
      diff.shape_a = GaussianAxes(a.n_cb, a.n_feat(), a.n_density, a.veclen);
      diff.shape_b = GaussianAxes(b.n_cb, b.n_feat(), b.n_density, b.veclen);
      diff.shape_text_a = GaudenShapeText(a);
      diff.shape_text_b = GaudenShapeText(b);
      diff.same_shape = diff.shape_text_a == diff.shape_text_b;
      if (!diff.same_shape || !diff.not_compared.empty()) break;
      Comparer cmp(diff, tolerance, a.n_cb, paired(a.n_cb));
      if (a.has_means) CompareGaussianLayout(cmp, "mean", a.n_cb, a.n_density, a.veclen, a.mean, b.mean);
      if (a.has_vars) CompareGaussianLayout(cmp, "var", a.n_cb, a.n_density, a.veclen, a.var, b.var);
      // dnom is [n_cb][n_feat][n_density]: the Gaussian layout with one "dimension".
      static const std::vector<std::string> names = {"state", "stream", "density"};
      const std::size_t per_state = std::size_t(a.n_feat()) * a.n_density;
      std::size_t flat = 0;
      std::uint32_t index[3];
      for (std::uint32_t m = 0; m < a.n_cb; ++m) {
        std::size_t flat_b = std::size_t(cmp.BState(m)) * per_state;
        for (std::uint32_t f = 0; f < a.n_feat(); ++f) {
          for (std::uint32_t d = 0; d < a.n_density; ++d, ++flat, ++flat_b) {
            index[0] = m, index[1] = f, index[2] = d;
            cmp.Add("dnom", names, index, a.dnom[flat], b.dnom[flat_b]);
          }
        }
      }
      break;
    }
  }
  if (!diff.same_shape) diff.states.clear();
  return diff;
}

void CheckParamFile(const std::string& path, ParamKind kind) {
  switch (kind) {
    case ParamKind::kGaussian: ReadGaussianFile(path); break;
    case ParamKind::kMixtureWeights:
    case ParamKind::kTransitions: ReadArray3DFile(path); break;
    case ParamKind::kGaudenCounts: ReadGaudenCountsFile(path); break;
  }
}

}  // namespace pstrain::audit
