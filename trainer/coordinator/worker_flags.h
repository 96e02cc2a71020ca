// The flag names of `pstrain worker`, spelled once: WorkerArguments (coordinator/launcher.h) and
// the Slurm launcher write them, and the CLI registers each under this name (cli/options.cpp,
// cli/options/*.cpp, cli/cmd_worker.cpp), for the worker and for every other command that shares
// it. Names are without the leading "--"; Dashed() adds it.
#pragma once

#include <string>

namespace pstrain::worker_flag {

// The corpus inputs (cli/options.h CorpusInputs).
inline constexpr const char kModel[] = "model";
inline constexpr const char kManifest[] = "manifest";
inline constexpr const char kCorpusRoot[] = "corpus-root";
inline constexpr const char kDict[] = "dict";
inline constexpr const char kFiller[] = "filler";
// The shard task.
inline constexpr const char kPass[] = "pass";
inline constexpr const char kShard[] = "shard";
inline constexpr const char kShards[] = "shards";
inline constexpr const char kOut[] = "out";
inline constexpr const char kCoordinatorPid[] = "coordinator-pid";
inline constexpr const char kCoordinatorSyncs[] = "coordinator-syncs";
// PassInputs' options: --reduction and the E-step's (AccumulateOptions).
inline constexpr const char kReduction[] = "reduction";
inline constexpr const char kCmn[] = "cmn";
inline constexpr const char kVarnorm[] = "varnorm";
inline constexpr const char kTopn[] = "topn";
inline constexpr const char kAbeam[] = "abeam";
inline constexpr const char kBbeam[] = "bbeam";
inline constexpr const char kPass2var[] = "2passvar";
inline constexpr const char kVarfloor[] = "varfloor";
inline constexpr const char kMwfloor[] = "mwfloor";
inline constexpr const char kTpfloor[] = "tpfloor";
inline constexpr const char kSpthresh[] = "spthresh";
inline constexpr const char kRetryBeams[] = "retry-beams";
inline constexpr const char kMultipron[] = "multipron";

// "--NAME": the flag as it appears on a command line.
inline std::string Dashed(const char* name) { return std::string("--") + name; }

}  // namespace pstrain::worker_flag
