// The engine of `audit mutate`: for each mutation of a table (auditor/mutate/mutations.h), copy a finished
// pass into a scratch directory, apply the mutation, run a validator on the copy and record whether
// the mutation was killed (rejected: which check, which file, the validator's message), survived
// (accepted), or was not applicable to this pass (with the reason). An unmodified copy is
// validated first: if the validator rejects it, nothing can be concluded and the engine throws.
//
// The validator is a callable so that tests can weaken it (a fixture that ignores one check);
// production uses RealPassValidator(), the validation `pstrain validate` runs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mutate/mutations.h"

namespace pstrain::audit {

struct Verdict {
  bool rejected = false;
  std::string check;                   // the check code, e.g. "payload-sha256" (rejected only)
  std::optional<std::uint32_t> shard;  // the shard, for a shard-level check
  std::string file;                    // the file the validator names (absolute as the validator gives it)
  std::string message;                 // the validator's message
};

// Validates the finished pass in the given directory.
using PassValidator = std::function<Verdict(const std::filesystem::path& pass_dir)>;

// The real validation of a finished pass (coordinator/finished_pass.h): expectations from the
// directory's pass.json, every shard artifact, the reduction and the summary. An unreadable pass.json
// is a rejection with check "pass-json"; any other error a rejection with check "error".
PassValidator RealPassValidator();

enum class MutationOutcome { kKilled, kSurvived, kNotApplicable };
const char* OutcomeName(MutationOutcome outcome);  // "killed", "survived", "not-applicable"

struct MutationResult {
  std::string name, category, description;
  std::vector<std::string> expected_checks;
  MutationOutcome outcome = MutationOutcome::kNotApplicable;
  std::string not_applicable_reason;  // kNotApplicable
  std::string applied;                // what the mutation did (paths relative to the pass)
  Verdict verdict;                    // kKilled / kSurvived; file and message relative to the pass
  // Killed by one of the expected checks (always true when no check is expected).
  bool ExpectedCheck() const;
};

struct MutateReport {
  std::string run_dir;  // as given
  std::string foreign_run;  // as given, or empty
  std::uint32_t pass = 0;
  std::uint32_t shard_count = 0;
  std::string reduction;
  std::uint32_t target_shard = 0;
  std::vector<MutationResult> results;

  std::size_t Count(MutationOutcome outcome) const;
  std::size_t Applicable() const { return results.size() - Count(MutationOutcome::kNotApplicable); }
  std::size_t KilledByUnexpectedCheck() const;
  std::vector<std::string> Survivors() const;
};

// The exit status of `audit mutate` for a report: 0 every applied mutation killed, 1 at least one
// survived, 2 no mutation applied (nothing was tested).
int MutateExitCode(const MutateReport& report);

// The last complete pass of a run directory: the highest RUN_DIR/passes/NNN with a pass.json.
// Throws AuditError when there is none.
std::uint32_t LastCompletePass(const std::filesystem::path& run_dir);

// Runs every mutation on pass `pass` of `run_dir`, in scratch directories under `work_dir` (created
// if needed; each mutation's scratch directory is removed afterwards unless `keep`). `foreign_run`
// (optional) is another run directory whose artifacts the foreign-run mutation transplants. Throws
// AuditError when the pass directory is missing, its pass.json names another pass, the unmodified
// copy is rejected or a mutation fails to apply; pstrain::InputError (the trainer's pass reader)
// when its pass.json cannot be read.
MutateReport RunMutations(const std::filesystem::path& run_dir, std::uint32_t pass, const std::vector<Mutation>& mutations,
                          const PassValidator& validator, const std::filesystem::path& work_dir, bool keep = false,
                          const std::filesystem::path& foreign_run = {});

}  // namespace pstrain::audit
