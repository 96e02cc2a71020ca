// `audit compare` of tied models whose mdefs number the senones differently (issue #15, item 3):
// small tied mdefs and parameter files written with the trainer's writers, model B being model A
// with its senones and transition matrices renumbered (and its triphone rows reordered): the verdict
// "same state tying, N of M senones renumbered" and a senone-by-senone comparison; a genuinely
// different tying (two groups merged, one triphone state moved) with the exact count of triphone
// states whose group differs and no element comparison; identical numbering unchanged; a bad mdef
// is exit 2 naming the file and line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "compare/compare_command.h"
#include "report/command_runner.h"
#include "compare/state_tying.h"
#include "formats/mdef.h"
#include "formats/param_files.h"

namespace pstrain::audit {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

// One mdef row: base left right position tmat and three senones.
struct Row {
  std::string base, left, right, posn;
  std::uint32_t tmat;
  std::uint32_t s[3];
};

constexpr std::uint32_t kSenones = 17, kCiSenones = 9, kTmats = 3;

// Model A: 3 CI phones (9 CI senones), 4 triphones sharing some of the 8 tied CD senones.
std::vector<Row> RowsA() {
  return {{"A", "-", "-", "-", 0, {0, 1, 2}},          {"B", "-", "-", "-", 1, {3, 4, 5}},
          {"SIL", "-", "-", "-", 2, {6, 7, 8}},        {"A", "B", "SIL", "e", 0, {9, 10, 11}},
          {"A", "SIL", "B", "b", 0, {9, 12, 11}},      {"B", "A", "A", "i", 1, {13, 14, 15}},
          {"B", "A", "SIL", "e", 1, {13, 14, 16}}};
}

// Writes `rows` as an mdef with the trainer's writer (parsed first: the reader checks it).
void WriteMdef(const fs::path& path, const std::vector<Row>& rows, const std::string& comment = "") {
  std::ostringstream text;
  if (!comment.empty()) text << comment << "\n";
  text << "0.3\n3 n_base\n" << rows.size() - 3 << " n_tri\n" << rows.size() * 4 << " n_state_map\n"
       << kSenones << " n_tied_state\n" << kCiSenones << " n_tied_ci_state\n" << kTmats << " n_tied_tmat\n";
  for (const Row& r : rows) {
    text << r.base << " " << r.left << " " << r.right << " " << r.posn << " n/a " << r.tmat << " " << r.s[0] << " "
         << r.s[1] << " " << r.s[2] << " N\n";
  }
  std::ofstream(path, std::ios::binary) << Mdef::Parse(text.str(), path.string()).Serialize();
}

// Per-senone parameters, distinct for every senone; `senone_of[s]` is where A's senone s goes.
GaussianParams Gaussians(float base, const std::vector<std::uint32_t>& senone_of) {
  GaussianParams p = GaussianParams::OneStream(kSenones, 2, 3);
  for (std::uint32_t s = 0; s < kSenones; ++s) {
    for (std::uint32_t i = 0; i < 6; ++i) p.data[senone_of[s] * 6 + i] = base + 0.5f * float(s) + 0.0625f * float(i);
  }
  return p;
}

Array3D MixtureWeights(const std::vector<std::uint32_t>& senone_of) {
  Array3D a;
  a.d1 = kSenones, a.d2 = 1, a.d3 = 2;
  a.data.resize(std::size_t(kSenones) * 2);
  for (std::uint32_t s = 0; s < kSenones; ++s) {
    a.data[senone_of[s] * 2] = 0.25f + 0.01f * float(s);
    a.data[senone_of[s] * 2 + 1] = 0.75f - 0.01f * float(s);
  }
  return a;
}

Array3D Transitions(const std::vector<std::uint32_t>& tmat_of) {
  Array3D a;
  a.d1 = kTmats, a.d2 = 3, a.d3 = 4;
  a.data.resize(std::size_t(kTmats) * 12);
  for (std::uint32_t t = 0; t < kTmats; ++t) {
    for (std::uint32_t i = 0; i < 12; ++i) a.data[tmat_of[t] * 12 + i] = 0.1f * float(t + 1) + 0.01f * float(i);
  }
  return a;
}

std::vector<std::uint32_t> Identity(std::uint32_t n) {
  std::vector<std::uint32_t> v(n);
  for (std::uint32_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

// B's numbering: CI senones 0 <-> 3, CD senones 9 <-> 13 and 10 <-> 14 (6 renumbered), tmats 0 <-> 1.
std::vector<std::uint32_t> SenonePermutation() {
  std::vector<std::uint32_t> p = Identity(kSenones);
  std::swap(p[0], p[3]);
  std::swap(p[9], p[13]);
  std::swap(p[10], p[14]);
  return p;
}
std::vector<std::uint32_t> TmatPermutation() { return {1, 0, 2}; }

std::vector<Row> Renumbered(std::vector<Row> rows, const std::vector<std::uint32_t>& senone_of,
                            const std::vector<std::uint32_t>& tmat_of) {
  for (Row& r : rows) {
    r.tmat = tmat_of[r.tmat];
    for (std::uint32_t& s : r.s) s = senone_of[s];
  }
  std::reverse(rows.begin() + 3, rows.end());  // the triphone rows in another order too
  return rows;
}

class AuditCompareTyingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / ("audit_compare_tying_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    WriteModel(a(), RowsA(), Identity(kSenones), Identity(kTmats));
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path a() const { return dir_ / "a"; }
  fs::path b() const { return dir_ / "b"; }

  static void WriteModel(const fs::path& dir, const std::vector<Row>& rows, const std::vector<std::uint32_t>& senone_of,
                         const std::vector<std::uint32_t>& tmat_of, const std::string& comment = "") {
    fs::create_directories(dir);
    WriteMdef(dir / "mdef", rows, comment);
    WriteGaussianFile((dir / "means").string(), Gaussians(1.0f, senone_of));
    WriteGaussianFile((dir / "variances").string(), Gaussians(2.0f, senone_of));
    WriteArray3DFile((dir / "mixture_weights").string(), MixtureWeights(senone_of));
    WriteArray3DFile((dir / "transition_matrices").string(), Transitions(tmat_of));
  }
  // B = A renumbered.
  void WriteRenumberedB() {
    WriteModel(b(), Renumbered(RowsA(), SenonePermutation(), TmatPermutation()), SenonePermutation(),
               TmatPermutation());
  }

  int Run(std::vector<std::string> extra) {
    std::vector<std::string> args = {a().string(), b().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    std::ostringstream out, err;
    const int code = RunReportingErrors("compare", RunCompareCommand, args, out, err);
    out_ = out.str();
    err_ = err.str();
    return code;
  }
  json::value RunJson() {
    EXPECT_EQ(Run({"--format", "json"}), 1) << out_ << err_;
    return json::parse(out_);
  }
  static const json::value& Param(const json::value& report, const std::string& path) {
    for (const json::value& p : report.at("parameters").as_array()) {
      if (p.at("path").as_string() == path) return p;
    }
    ADD_FAILURE() << "no parameter file " << path;
    static const json::value none;
    return none;
  }
  static bool HasCode(const json::value& report, const char* list, const std::string& code) {
    for (const json::value& f : report.at(list).as_array()) {
      if (f.at("code").as_string() == code) return true;
    }
    return false;
  }

  fs::path dir_;
  std::string out_, err_;
};

TEST_F(AuditCompareTyingTest, RenumberedSenonesAreAlignedByTriphoneMembership) {
  WriteRenumberedB();
  const json::value report = RunJson();
  // Position by position the files differ: the alignment is what makes them equal.
  EXPECT_FALSE(report.at("parameters_identical").as_bool());
  const json::value& tying = report.at("state_tying");
  EXPECT_EQ(tying.at("senones").at("verdict").as_string(), "same state tying, 6 of 17 senones renumbered") << tying;
  EXPECT_EQ(tying.at("senones").at("renumbered").to_number<int>(), 6);
  EXPECT_EQ(tying.at("senones").at("members").to_number<int>(), 21);
  EXPECT_EQ(tying.at("senones").at("in_different_group").to_number<int>(), 0);
  EXPECT_EQ(tying.at("transition_matrices").at("verdict").as_string(),
            "same transition matrix tying, 2 of 3 transition matrices renumbered");
  EXPECT_TRUE(tying.at("parameters_identical_after_alignment").as_bool());
  EXPECT_TRUE(HasCode(report, "explanations", "same-state-tying")) << report;
  for (const char* path : {"means", "variances", "mixture_weights", "transition_matrices"}) {
    const json::value& p = Param(report, path);
    EXPECT_EQ(p.at("aligned_by").as_string(), std::string(path) == "transition_matrices" ? "tmat" : "senone") << path;
    EXPECT_EQ(p.at("differing").to_number<int>(), 0) << path;
    EXPECT_GT(p.at("elements").to_number<int>(), 0) << path;
  }
  EXPECT_TRUE(HasCode(report, "differences", "identical-after-alignment")) << report;
  EXPECT_EQ(Run({}), 1);
  EXPECT_NE(out_.find("same state tying, 6 of 17 senones renumbered"), std::string::npos) << out_;
  EXPECT_EQ(Run({"--format", "html"}), 1);
  EXPECT_NE(out_.find("same state tying, 6 of 17 senones renumbered"), std::string::npos) << out_;

  // One mean of B changed: A's senone 10 is B's senone 14 (A(B,SIL,e), emitting state 1).
  GaussianParams means = ReadGaussianFile((b() / "means").string());
  means.data[means.Offset(14, 0, 1) + 2] += 0.5f;
  WriteGaussianFile((b() / "means").string(), means);
  const json::value changed = RunJson();
  EXPECT_FALSE(changed.at("state_tying").at("parameters_identical_after_alignment").as_bool());
  const json::value& p = Param(changed, "means");
  EXPECT_EQ(p.at("differing").to_number<int>(), 1);
  EXPECT_EQ(p.at("max_abs").at("index").at("state").to_number<int>(), 10);
  EXPECT_EQ(p.at("max_abs").at("b_state").to_number<int>(), 14);
  EXPECT_EQ(p.at("max_abs").at("index").at("density").to_number<int>(), 1);
  EXPECT_EQ(p.at("max_abs").at("index").at("dimension").to_number<int>(), 2);
  EXPECT_DOUBLE_EQ(p.at("max_abs").at("abs_diff").to_number<double>(), 0.5);
  EXPECT_EQ(p.at("max_abs").at("state_label").as_string(), "A(B,SIL,e), emitting state 1");
  EXPECT_EQ(p.at("top_states").at(0).at("b_state").to_number<int>(), 14);
  EXPECT_EQ(Param(changed, "variances").at("differing").to_number<int>(), 0);
  EXPECT_EQ(Run({}), 1);
  EXPECT_NE(out_.find("means (senone by senone through the state tying, numbered by A): 1 of 102 elements differ"),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find("at state 10 (A(B,SIL,e), emitting state 1; state 14 in B), stream 0, density 1, dimension 2"),
            std::string::npos)
      << out_;
  // The HTML page: the verdict, the heat map's cell for A's senone 10 naming B's 14, well-formed.
  const fs::path page = dir_ / "compare.html";
  EXPECT_EQ(Run({"--format", "html", "--out", page.string()}), 1) << err_;
  std::ifstream in(page);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("same state tying, 6 of 17 senones renumbered"), std::string::npos);
  EXPECT_NE(html.find("<title>state 10 (A(B,SIL,e), emitting state 1; state 14 in B): max |A-B| 0.5"), std::string::npos)
      << html;
  const std::string command = "xmllint --noout " + page.string() + " 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << "xmllint rejects " << page;
}

// The groups are the sets of triphone states: two groups merged, or one state moved, is another
// tying, counted exactly; the parameters of the tied states are then not compared element by element.
TEST_F(AuditCompareTyingTest, DifferentTyingCountsTheTriphoneStatesInAnotherGroup) {
  // Merge: B's senone 13 becomes 9, so {A(B,SIL,e)0, A(SIL,B,b)0} and {B(A,A,i)0, B(A,SIL,e)0} are one group.
  std::vector<Row> merged = RowsA();
  for (Row& r : merged) {
    for (std::uint32_t& s : r.s) s = s == 13 ? 9 : s;
  }
  WriteModel(b(), merged, Identity(kSenones), Identity(kTmats));
  WriteGaussianFile((b() / "means").string(), Gaussians(1.5f, Identity(kSenones)));  // retrained: other values
  const json::value report = RunJson();
  const json::value& senones = report.at("state_tying").at("senones");
  EXPECT_FALSE(senones.at("same").as_bool());
  EXPECT_EQ(senones.at("in_different_group").to_number<int>(), 4) << senones;
  EXPECT_EQ(senones.at("members").to_number<int>(), 21);
  EXPECT_EQ(senones.at("same_groups").to_number<int>(), 15);  // 17 but 9 and 13
  EXPECT_EQ(senones.at("unused_b").to_number<int>(), 1);
  EXPECT_TRUE(senones.at("renumbered").is_null());
  EXPECT_EQ(senones.at("verdict").as_string(),
            "different state tying: 4 of 21 triphone states are in a different group (0 senones of A and 1 of B used "
            "by no triphone state)");
  EXPECT_TRUE(report.at("state_tying").at("parameters_identical_after_alignment").is_null());
  EXPECT_TRUE(HasCode(report, "explanations", "different-state-tying")) << report;
  EXPECT_TRUE(HasCode(report, "differences", "not-compared")) << report;
  for (const char* path : {"means", "variances", "mixture_weights"}) {
    const json::value& p = Param(report, path);
    EXPECT_FALSE(p.at("not_compared").is_null()) << path;
    EXPECT_EQ(p.at("elements").to_number<int>(), 0) << path;
  }
  // The transition matrices are tied as before (0 renumbered): compared position by position.
  EXPECT_TRUE(Param(report, "transition_matrices").at("aligned_by").is_null());
  EXPECT_EQ(Param(report, "transition_matrices").at("elements").to_number<int>(), 36);
  EXPECT_EQ(report.at("state_tying").at("transition_matrices").at("verdict").as_string(),
            "same transition matrix tying, 0 of 3 transition matrices renumbered");
  EXPECT_EQ(Run({}), 1);
  EXPECT_NE(out_.find("different state tying: 4 of 21 triphone states are in a different group"), std::string::npos)
      << out_;
  EXPECT_NE(out_.find("so the parameters of the tied states (means, variances, mixture weights) are not compared "
                      "element by element"),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find("means: 17 state x 1 stream x 2 density x 3 dimension; not compared element by element: the "
                      "state tying differs"),
            std::string::npos)
      << out_;
  EXPECT_EQ(out_.find("means (senone by senone"), std::string::npos) << out_;

  // Move one triphone state: A(SIL,B,b) state 1 from senone 12 (its own) to 15 (B(A,A,i)'s third):
  // both groups change, 2 triphone states (B's triphone rows in another order).
  std::vector<Row> moved = RowsA();
  moved[4].s[1] = 15;
  WriteModel(b(), Renumbered(moved, Identity(kSenones), Identity(kTmats)), Identity(kSenones), Identity(kTmats));
  const json::value report2 = RunJson();
  EXPECT_EQ(report2.at("state_tying").at("senones").at("verdict").as_string(),
            "different state tying: 2 of 21 triphone states are in a different group (0 senones of A and 1 of B used "
            "by no triphone state)");
}

// A phone of one side missing from the other: its states count as in a different group; tmats too.
TEST(StateTyingTest, MembersOnOneSideOnlyCount) {
  PhoneNames names;
  const auto parse = [](const std::vector<Row>& rows) {
    std::ostringstream text;
    text << "0.3\n3 n_base\n" << rows.size() - 3 << " n_tri\n" << rows.size() * 4 << " n_state_map\n" << kSenones
         << " n_tied_state\n" << kCiSenones << " n_tied_ci_state\n" << kTmats << " n_tied_tmat\n";
    for (const Row& r : rows) {
      text << r.base << " " << r.left << " " << r.right << " " << r.posn << " n/a " << r.tmat << " " << r.s[0] << " "
           << r.s[1] << " " << r.s[2] << " N\n";
    }
    return Mdef::Parse(text.str(), "mdef");
  };
  std::vector<Row> fewer = RowsA();
  fewer.pop_back();  // B(A,SIL,e): 13 and 14 keep B(A,A,i), 16 is unused
  const TyingRecords ra = TyingRecordsOf(parse(RowsA()), names);
  const TyingRecords rb = TyingRecordsOf(parse(fewer), names);
  const StateTying t = CompareStateTying(ra, rb);
  EXPECT_FALSE(t.senones.same);
  EXPECT_EQ(t.senones.members, 21u);
  EXPECT_EQ(t.senones.in_different_group, 5u);  // groups 13 and 14 (4 states) and 16 (1)
  EXPECT_EQ(t.senones.unused_b, 1u);
  EXPECT_FALSE(t.tmats.same);
  EXPECT_EQ(t.tmats.members, 7u);
  EXPECT_EQ(t.tmats.in_different_group, 3u);  // tmat 1's phones B, B(A,A,i), B(A,SIL,e)
  EXPECT_EQ(TmatVerdict(t.tmats), "different transition matrix tying: 3 of 7 phones are in a different group");
  const StateTying same = CompareStateTying(ra, ra);
  EXPECT_TRUE(same.senones.same);
  EXPECT_EQ(same.senones.renumbered, 0u);
  EXPECT_EQ(same.senones.b_of_a, Identity(kSenones));
}

// The same numbering: a byte-identical mdef keeps today's report (no tying finding, labels, state
// by state); an mdef that differs only in its comment line is the same tying with 0 renumbered.
TEST_F(AuditCompareTyingTest, IdenticalNumberingKeepsThePositionByPositionReport) {
  WriteModel(b(), RowsA(), Identity(kSenones), Identity(kTmats));
  GaussianParams means = ReadGaussianFile((b() / "means").string());
  means.data[means.Offset(10, 0, 1) + 2] += 0.5f;
  WriteGaussianFile((b() / "means").string(), means);
  const json::value report = RunJson();
  EXPECT_TRUE(report.at("state_tying").is_null());
  EXPECT_FALSE(HasCode(report, "explanations", "same-state-tying"));
  EXPECT_TRUE(Param(report, "means").at("aligned_by").is_null());
  EXPECT_TRUE(Param(report, "means").at("max_abs").at("b_state").is_null());
  EXPECT_EQ(Run({}), 1);
  EXPECT_EQ(out_.find("state tying"), std::string::npos) << out_;
  EXPECT_NE(out_.find("means: 1 of 102 elements differ; 1 outside rtol 0, atol 0; largest absolute difference 0.5 at "
                      "state 10 (A(B,SIL,e), emitting state 1), stream 0, density 1, dimension 2"),
            std::string::npos)
      << out_;

  WriteMdef(b() / "mdef", RowsA(), "# Generated by mk_mdef_gen on some other day");
  const json::value commented = RunJson();
  EXPECT_EQ(commented.at("state_tying").at("senones").at("verdict").as_string(),
            "same state tying, 0 of 17 senones renumbered");
  // Nothing renumbered: compared position by position as before, now labelled from A's mdef.
  EXPECT_TRUE(Param(commented, "means").at("aligned_by").is_null());
  EXPECT_EQ(Param(commented, "means").at("max_abs").at("index").at("state").to_number<int>(), 10);
  EXPECT_TRUE(Param(commented, "means").at("max_abs").at("b_state").is_null());
  EXPECT_EQ(Param(commented, "means").at("max_abs").at("state_label").as_string(), "A(B,SIL,e), emitting state 1");
  EXPECT_FALSE(commented.at("state_tying").at("parameters_identical_after_alignment").as_bool());
}

// A malformed mdef on either side is trouble naming the file and the line, whether or not the
// other side's mdef is the same.
TEST_F(AuditCompareTyingTest, BadMdefIsExitTwoNamingFileAndLine) {
  WriteRenumberedB();
  // Line 12 (the fifth phone row after the version line and six count lines) uses senone 99.
  std::ofstream(b() / "mdef", std::ios::binary)
      << "0.3\n3 n_base\n4 n_tri\n28 n_state_map\n17 n_tied_state\n9 n_tied_ci_state\n3 n_tied_tmat\n"
         "A - - - n/a 0 0 1 2 N\nB - - - n/a 1 3 4 5 N\nSIL - - - n/a 2 6 7 8 N\nA B SIL e n/a 0 9 10 11 N\n"
         "A SIL B b n/a 0 9 99 11 N\nB A A i n/a 1 13 14 15 N\nB A SIL e n/a 1 13 14 16 N\n";
  EXPECT_EQ(Run({}), 2) << out_;
  EXPECT_TRUE(out_.empty()) << out_;
  EXPECT_NE(err_.find((b() / "mdef").string() + ":12: senone id 99 is out of range"), std::string::npos) << err_;
  // On A's side too.
  fs::copy_file(b() / "mdef", a() / "mdef", fs::copy_options::overwrite_existing);
  WriteRenumberedB();
  EXPECT_EQ(Run({}), 2) << out_;
  EXPECT_NE(err_.find((a() / "mdef").string() + ":12: senone id 99 is out of range"), std::string::npos) << err_;
}

}  // namespace
}  // namespace pstrain::audit
