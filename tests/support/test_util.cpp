// Helpers of the integration tests and gates: running commands, temp dirs, the default corpus, peers.
#include "support/test_util.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <stdexcept>

namespace pstrain::testing {

namespace fs = std::filesystem;

CommandResult RunCommand(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer;
  std::size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.output.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return result;
}

std::string ShellQuote(const std::string& arg) {
  std::string out = "'";
  for (char c : arg) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

fs::path FreshDir(const std::string& name) {
  const fs::path dir = fs::path(PSTRAIN_BUILD_DIR) / "test-scratch" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

fs::path CorpusDir() {
  const fs::path dir(PSTRAIN_CORPUS_DIR);
  if (!fs::exists(dir / ".stamp")) {
    throw std::runtime_error("default corpus missing at " + dir.string() + " (the prepare_default_corpus test fixture builds it)");
  }
  return dir;
}

Dictionary CorpusDictionary() {
  Dictionary dictionary = Dictionary::Load((CorpusDir() / "corpus.dic").string(), false);
  dictionary.Merge(Dictionary::Load((CorpusDir() / "corpus.filler").string(), true));
  return dictionary;
}

namespace {

fs::path ImportedManifest(const std::string& set) {
  const fs::path corpus = CorpusDir();
  const fs::path manifest = corpus / (set + ".manifest");
  if (!fs::exists(manifest)) {
    const fs::path tmp = corpus / (set + ".manifest.tmp." + std::to_string(::getpid()));
    CommandResult r = RunCommand(std::string(PSTRAIN_BINARY) + " manifest import --fileids " + ShellQuote((corpus / (set + ".fileids")).string()) +
                                 " --transcription " + ShellQuote((corpus / (set + ".transcription")).string()) + " --cepdir " +
                                 ShellQuote((corpus / "feat").string()) + " --out " + ShellQuote(tmp.string()));
    if (r.exit_code != 0) throw std::runtime_error("manifest import failed: " + r.output);
    fs::rename(tmp, manifest);
  }
  return manifest;
}

}  // namespace

fs::path TrainManifest() { return ImportedManifest("train"); }
fs::path HeldoutManifest() { return ImportedManifest("heldout"); }

fs::path An4Model() { return "/usr/share/pocketsphinx/test/data/an4_ci_cont"; }

std::string Pstrain(const std::string& args) { return std::string(PSTRAIN_BINARY) + " " + args; }

std::filesystem::path AuditBinary() { return std::filesystem::path(PSTRAIN_BUILD_DIR) / "auditor" / "audit"; }

}  // namespace pstrain::testing
