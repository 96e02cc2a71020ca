// `pstrain manifest import|check`.
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "manifest/manifest.h"

namespace pstrain::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* kManifestUsage =
    "usage: pstrain manifest import --fileids F --transcription T --cepdir DIR [--cepext mfc] --out MANIFEST\n"
    "       pstrain manifest check MANIFEST [--corpus-root DIR] [--dict DICT --filler FILLERDICT]\n"
    "\n"
    "A manifest lists utterance ids, feature files, their SHA-256 and transcripts in training order.\n"
    "Feature paths are relative to the corpus root: by default the directory holding the manifest\n"
    "(import writes them relative to --out's directory, which must contain --cepdir).\n";

// Feature paths are stored relative to the directory the manifest is written to (the corpus
// root), so `pstrain manifest check MANIFEST` finds them without further options and the
// fingerprint does not depend on where the corpus lives. --cepdir must therefore be that directory
// or inside it.
Manifest RebaseOntoManifestDir(const Manifest& manifest, const fs::path& cepdir, const fs::path& out) {
  const fs::path out_dir = fs::weakly_canonical(fs::absolute(out).parent_path());
  const fs::path root = fs::weakly_canonical(fs::absolute(cepdir));
  const fs::path relative = root.lexically_relative(out_dir);
  if (relative.empty() || *relative.begin() == "..") {
    throw UsageError("--cepdir " + cepdir.string() + " is not inside the manifest's directory " + out_dir.string() +
                     ": write the manifest into the corpus directory (feature paths are stored relative to it)");
  }
  if (relative == ".") return manifest;
  std::vector<ManifestEntry> entries = manifest.entries();
  for (ManifestEntry& entry : entries) entry.feature_path = (relative / entry.feature_path).generic_string();
  return Manifest(std::move(entries), manifest.source());
}

int Import(int argc, char** argv) {
  std::string fileids, transcription, cepdir, cepext = "mfc", out;
  po::options_description desc("pstrain manifest import options");
  desc.add_options()
      ("fileids", po::value(&fileids)->required(), "SphinxTrain control file (.fileids)")
      ("transcription", po::value(&transcription)->required(), "SphinxTrain transcript (.transcription), same order")
      ("cepdir", po::value(&cepdir)->required(), "directory the control file's paths are relative to")
      ("cepext", po::value(&cepext)->default_value(cepext), "feature file extension")
      ("out", po::value(&out)->required(), "manifest file to write");
  if (!ParseCommandLine(argc, argv, desc, kManifestUsage)) return 0;
  Manifest manifest = RebaseOntoManifestDir(ImportSphinx(fileids, transcription, cepdir, cepext), cepdir, out);
  manifest.Save(out);
  std::cout << "wrote " << out << ": " << manifest.size() << " utterances, fingerprint " << manifest.Fingerprint() << "\n";
  return 0;
}

int Check(int argc, char** argv) {
  std::string manifest_path, corpus_root, dict, filler;
  po::options_description desc("pstrain manifest check options");
  desc.add_options()
      ("manifest", po::value(&manifest_path)->required(), "the manifest (also accepted as the first argument)")
      ("corpus-root", po::value(&corpus_root), "directory the feature paths are relative to (default: the manifest's directory)")
      ("dict", po::value(&dict), "also check every transcript word against this dictionary...")
      ("filler", po::value(&filler), "...merged with this filler dictionary");
  po::positional_options_description positional;
  positional.add("manifest", 1);
  if (!ParseCommandLine(argc, argv, desc, kManifestUsage, &positional)) return 0;
  if (dict.empty() != filler.empty()) throw UsageError("--dict and --filler go together");
  const Manifest manifest = Manifest::Load(manifest_path);
  CorpusInputs inputs{"", manifest_path, dict, filler, corpus_root};
  CheckManifest(manifest, CorpusRoot(inputs));
  if (!dict.empty()) CheckWords(manifest, LoadMergedDictionary(inputs));
  std::cout << manifest_path << ": OK, " << manifest.size() << " utterances, fingerprint " << manifest.Fingerprint() << "\n";
  return 0;
}

}  // namespace

int RunManifest(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cout << kManifestUsage;
    return argc < 2 ? 2 : 0;
  }
  const std::string sub = argv[1];
  if (sub == "import") return Import(argc - 1, argv + 1);
  if (sub == "check") return Check(argc - 1, argv + 1);
  throw UsageError("unknown manifest command '" + sub + "' (expected import or check)");
}

}  // namespace pstrain::cli
