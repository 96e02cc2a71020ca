// `audit mutate`: applying each mutation to a scratch copy of a pass and recording the verdict.
#include "mutate/mutate_engine.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "common/error.h"
#include "coordinator/finished_pass.h"
#include "coordinator/pass_file.h"
#include "report/audit_error.h"
#include "shards/run_layout.h"

namespace pstrain::audit {

namespace fs = std::filesystem;

PassValidator RealPassValidator() {
  return [](const fs::path& pass_dir) {
    Verdict v;
    try {
      const FinishedPass pass = ReadFinishedPass(pass_dir);
      ValidateFinishedPass(pass_dir, pass);
      return v;
    } catch (const ArtifactRejected& e) {
      v = {true, e.check(), e.shard(), e.file(), e.what()};
    } catch (const PassRejected& e) {
      v = {true, e.check(), std::nullopt, e.file(), e.what()};
    } catch (const InputError& e) {  // ReadFinishedPass's (the trainer's) on pass.json
      v = {true, "pass-json", std::nullopt, (pass_dir / "pass.json").string(), e.what()};
    } catch (const std::exception& e) {
      v = {true, "error", std::nullopt, "", e.what()};
    }
    return v;
  };
}

const char* OutcomeName(MutationOutcome outcome) {
  switch (outcome) {
    case MutationOutcome::kKilled: return "killed";
    case MutationOutcome::kSurvived: return "survived";
    case MutationOutcome::kNotApplicable: return "not-applicable";
  }
  return "?";
}

bool MutationResult::ExpectedCheck() const {
  return expected_checks.empty() || std::find(expected_checks.begin(), expected_checks.end(), verdict.check) != expected_checks.end();
}

std::size_t MutateReport::Count(MutationOutcome outcome) const {
  return static_cast<std::size_t>(std::count_if(results.begin(), results.end(), [&](const MutationResult& r) { return r.outcome == outcome; }));
}

std::size_t MutateReport::KilledByUnexpectedCheck() const {
  return static_cast<std::size_t>(std::count_if(results.begin(), results.end(), [](const MutationResult& r) {
    return r.outcome == MutationOutcome::kKilled && !r.ExpectedCheck();
  }));
}

std::vector<std::string> MutateReport::Survivors() const {
  std::vector<std::string> names;
  for (const MutationResult& r : results) {
    if (r.outcome == MutationOutcome::kSurvived) names.push_back(r.name);
  }
  return names;
}

int MutateExitCode(const MutateReport& report) {
  if (report.Count(MutationOutcome::kSurvived) > 0) return 1;
  return report.Applicable() == 0 ? 2 : 0;
}

namespace {

// `text` with every occurrence of `from` replaced by `to` (scratch paths made relative to the pass).
std::string Replace(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) text.replace(at, from.size(), to);
  return text;
}
std::string StripPrefix(const std::string& text, const std::string& prefix) { return Replace(text, prefix, ""); }

void CopyPass(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
}

}  // namespace

std::uint32_t LastCompletePass(const fs::path& run_dir) {
  const fs::path passes = PassesDir(run_dir);
  std::error_code ec;
  if (!fs::is_directory(passes, ec)) throw AuditErrorIn(passes.string(), "not a directory (is " + run_dir.string() + " a pstrain run directory?)");
  std::uint32_t last = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(passes)) {
    const std::optional<std::uint32_t> pass = PassNumberOf(entry.path().filename().string());
    if (!pass || !fs::is_regular_file(entry.path() / kPassFileName)) continue;
    last = std::max(last, *pass);
  }
  if (last == 0) throw AuditErrorIn(passes.string(), "no complete pass (no NNN/pass.json)");
  return last;
}

MutateReport RunMutations(const fs::path& run_dir, std::uint32_t pass, const std::vector<Mutation>& mutations,
                          const PassValidator& validator, const fs::path& work_dir, bool keep, const fs::path& foreign_run) {
  const fs::path original = PassDir(run_dir, pass);
  if (!fs::is_directory(original)) throw AuditErrorIn(original.string(), "no such pass directory");
  const FinishedPass finished = ReadFinishedPass(original);  // the trainer's InputError names pass.json
  if (finished.expected.pass != pass) {
    throw AuditErrorIn((original / "pass.json").string(), "says pass " + std::to_string(finished.expected.pass) + ", expected " + std::to_string(pass));
  }
  fs::create_directories(work_dir);

  MutationContext ctx;
  ctx.run_dir = run_dir;
  ctx.foreign_run = foreign_run;
  ctx.original_pass = original;
  ctx.pass = pass;
  ctx.shard_count = finished.expected.shard_count;
  ctx.reduction = finished.reduction;

  MutateReport report;
  report.run_dir = run_dir.string();
  report.foreign_run = foreign_run.string();
  report.pass = pass;
  report.shard_count = ctx.shard_count;
  report.reduction = ReductionModeName(ctx.reduction);
  report.target_shard = ctx.TargetShard();

  // The baseline: an unmodified copy must be accepted by the validator, or no kill means anything.
  {
    const fs::path copy = work_dir / "000-unmodified" / "pass";
    fs::remove_all(copy.parent_path());
    CopyPass(original, copy);
    const Verdict v = validator(copy);
    if (v.rejected) {
      throw AuditError("the unmodified copy of " + original.string() + " is rejected, so no mutation can be judged: " +
                       StripPrefix(v.message, copy.string() + "/"));
    }
    // The real artifacts, for mutations that look at them (parsed by the real validator's code).
    ctx.artifacts = ValidatePass(copy, finished.expected);
    if (!keep) fs::remove_all(copy.parent_path());
  }

  std::size_t index = 0;
  for (const Mutation& m : mutations) {
    ++index;
    MutationResult r;
    r.name = m.name;
    r.category = m.category;
    r.description = m.description;
    r.expected_checks = m.expected_checks;
    if (std::string reason = m.not_applicable(ctx); !reason.empty()) {
      r.outcome = MutationOutcome::kNotApplicable;
      r.not_applicable_reason = std::move(reason);
      report.results.push_back(std::move(r));
      continue;
    }
    char number[16];
    std::snprintf(number, sizeof(number), "%03zu", index);
    const fs::path scratch = work_dir / (std::string(number) + "-" + m.name);
    fs::remove_all(scratch);
    ctx.copy = scratch / "pass";
    ctx.outside = scratch / "outside";
    CopyPass(original, ctx.copy);
    fs::create_directories(ctx.outside);
    try {
      r.applied = m.apply(ctx);
    } catch (const MutationNotApplicable& e) {
      r.outcome = MutationOutcome::kNotApplicable;
      r.not_applicable_reason = e.what();
      if (!keep) fs::remove_all(scratch);
      report.results.push_back(std::move(r));
      continue;
    } catch (const std::exception& e) {
      throw AuditError("mutation " + m.name + " could not be applied to " + ctx.copy.string() + ": " + e.what());
    }
    r.verdict = validator(ctx.copy);
    r.outcome = r.verdict.rejected ? MutationOutcome::kKilled : MutationOutcome::kSurvived;
    // Report paths relative to the pass (the scratch directory is not part of the result).
    const std::string prefix = ctx.copy.string() + "/";
    r.verdict.file = r.verdict.file == ctx.copy.string() ? "." : StripPrefix(r.verdict.file, prefix);
    // Files outside the pass (symlink targets) are shown as OUTSIDE/NAME.
    const std::string outside = ctx.outside.string() + "/";
    r.verdict.message = Replace(StripPrefix(r.verdict.message, prefix), outside, "OUTSIDE/");
    r.applied = Replace(StripPrefix(r.applied, prefix), outside, "OUTSIDE/");
    if (!keep) fs::remove_all(scratch);
    report.results.push_back(std::move(r));
  }
  return report;
}

}  // namespace pstrain::audit
