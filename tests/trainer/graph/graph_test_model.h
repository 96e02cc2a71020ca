// A hand-made triphone model for graph tests (tests/trainer/graph/sentence_hmm_test.cpp,
// pronunciation_graph_test.cpp): six CI phones (two fillers), any triphone table, tmats with and
// without skip arcs, one 2-dim Gaussian per senone, and a small dictionary.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "formats/dictionary.h"
#include "formats/mdef.h"
#include "graph/sentence_hmm.h"
#include "model/acoustic_model.h"

namespace pstrain::test {

constexpr std::uint32_t kEmit = 3;

struct CiRow {
  const char* name;
  bool filler;
};
// CI phone i has tmat i and senones 3i, 3i+1, 3i+2.
constexpr CiRow kCiPhones[] = {{"+BR+", true}, {"A", false}, {"B", false}, {"C", false}, {"D", false}, {"SIL", true}};
constexpr std::uint32_t kNumCi = sizeof(kCiPhones) / sizeof(kCiPhones[0]);

inline std::uint32_t CiIndex(const std::string& name) {
  for (std::uint32_t phone_idx = 0; phone_idx < kNumCi; ++phone_idx) {
    if (name == kCiPhones[phone_idx].name) return phone_idx;
  }
  ADD_FAILURE() << "test bug: unknown CI phone " << name;
  return 0;
}

struct TriRow {
  std::string base, left, right;
  char posn;
  int tmat = -1;  // -1: the base phone's tmat
};

// The four word positions of one context, for tables where the exact triphone must always exist.
inline std::vector<TriRow> AllPositions(const std::string& base, const std::string& left, const std::string& right) {
  std::vector<TriRow> rows;
  for (char posn : {'b', 'e', 's', 'i'}) rows.push_back({base, left, right, posn});
  return rows;
}

// mdef text: the CI phones of kCiPhones, then `triphones`, each with three fresh senones.
inline std::string MdefText(const std::vector<TriRow>& triphones) {
  const std::size_t n_phones = kNumCi + triphones.size();
  std::string text = "# hand-made test mdef\n0.3\n";
  text += std::to_string(kNumCi) + " n_base\n";
  text += std::to_string(triphones.size()) + " n_tri\n";
  text += std::to_string(n_phones * (kEmit + 1)) + " n_state_map\n";
  text += std::to_string(n_phones * kEmit) + " n_tied_state\n";
  text += std::to_string(kNumCi * kEmit) + " n_tied_ci_state\n";
  text += std::to_string(kNumCi) + " n_tied_tmat\n";
  std::uint32_t next_senone = 0;
  auto senones = [&] {
    std::string out;
    for (std::uint32_t state = 0; state < kEmit; ++state) {
      out += ' ';
      out += std::to_string(next_senone++);
    }
    return out;
  };
  for (std::uint32_t phone_idx = 0; phone_idx < kNumCi; ++phone_idx) {
    text += std::string(kCiPhones[phone_idx].name) + " - - - " + (kCiPhones[phone_idx].filler ? "filler " : "n/a ") +
            std::to_string(phone_idx) + senones() + " N\n";
  }
  for (const TriRow& row : triphones) {
    const std::uint32_t tmat = row.tmat >= 0 ? static_cast<std::uint32_t>(row.tmat) : CiIndex(row.base);
    text += row.base + " " + row.left + " " + row.right + " " + row.posn + " n/a " + std::to_string(tmat) + senones() + " N\n";
  }
  return text;
}

// Transition matrices: even ids have skip arcs (0->2 and 1->exit), odd ids are strictly left-to-right.
inline Array3D MakeTmats(std::uint32_t n_tmat) {
  Array3D tmats{n_tmat, kEmit, kEmit + 1, std::vector<float>(std::size_t(n_tmat) * kEmit * (kEmit + 1), 0.0f)};
  const float skip[kEmit][kEmit + 1] = {{0.5f, 0.25f, 0.25f, 0.0f}, {0.0f, 0.5f, 0.25f, 0.25f}, {0.0f, 0.0f, 0.5f, 0.5f}};
  const float linear[kEmit][kEmit + 1] = {{0.5f, 0.5f, 0.0f, 0.0f}, {0.0f, 0.5f, 0.5f, 0.0f}, {0.0f, 0.0f, 0.5f, 0.5f}};
  for (std::uint32_t tmat_id = 0; tmat_id < n_tmat; ++tmat_id) {
    const auto& rows = tmat_id % 2 == 0 ? skip : linear;
    for (std::uint32_t from = 0; from < kEmit; ++from) {
      for (std::uint32_t to = 0; to <= kEmit; ++to) tmats.at(tmat_id, from, to) = rows[from][to];
    }
  }
  return tmats;
}

inline ModelFiles MakeModelFiles(const Mdef& mdef) {
  ModelFiles files;
  files.mdef = mdef;
  const std::uint32_t n_senones = mdef.n_tied_state();
  files.means = GaussianParams::OneStream(n_senones, 1, 2, 0.0f);
  files.variances = GaussianParams::OneStream(n_senones, 1, 2, 1.0f);
  files.mixture_weights = Array3D{n_senones, 1, 1, std::vector<float>(n_senones, 1.0f)};
  files.transition_matrices = MakeTmats(mdef.n_tied_tmat());
  return files;
}

inline Dictionary TestDictionary() {
  Dictionary dict = Dictionary::Parse(
      "A1 A\nB1 B\nAB A B\nABC A B C\nAD A D\nAXB A X B\n", "test.dic", false);
  dict.Merge(Dictionary::Parse("<sil> SIL\n++BREATH++ +BR+\n", "test.filler", true));
  return dict;
}

// An mdef, its model and the test dictionary.
struct TestGraph {
  explicit TestGraph(const std::string& mdef_text, Dictionary dict = TestDictionary())
      : mdef(Mdef::Parse(mdef_text, "test.mdef")), files(MakeModelFiles(mdef)), model(files, ModelOptions{}),
        dictionary(std::move(dict)) {}
  SentenceHmm Build(const std::vector<std::string>& words) const { return BuildSentenceHmm(words, dictionary, mdef, model); }

  // "A" for a CI row, "A(SIL,B,b)" for a triphone row.
  std::string Describe(std::uint32_t phone_id) const {
    const MdefPhone& row = mdef.phones()[phone_id];
    const std::string base(mdef.Name(row.base));
    if (row.left == MdefPhone::kNoContext) return base;
    return base + "(" + std::string(mdef.Name(row.left)) + "," + std::string(mdef.Name(row.right)) + "," +
           WordPositionLetter(row.posn) + ")";
  }
  std::vector<std::string> DescribePhones(const SentenceHmm& hmm) const {
    std::vector<std::string> out;
    for (const PhoneInstance& phone : hmm.phones) out.push_back(Describe(phone.phone_id));
    return out;
  }

  Mdef mdef;
  ModelFiles files;
  AcousticModel model;
  Dictionary dictionary;
};

}  // namespace pstrain::test
