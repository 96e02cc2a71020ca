// `pstrain sphinxtrain-bindir DIR`: a directory to set as SphinxTrain's $CFG_BIN_DIR, in which bw
// and norm are this pstrain binary and every other SphinxTrain tool is the stock one.
#include <filesystem>
#include <iostream>
#include <system_error>

#include "cli/commands.h"
#include "cli/options.h"
#include "common/error.h"

namespace pstrain::cli {

namespace fs = std::filesystem;

namespace {

// Creates or replaces the symbolic link `link` -> `target` (atomically: a temporary link renamed
// over it). Refuses to replace anything that is not a symbolic link.
void PlaceLink(const fs::path& target, const fs::path& link) {
  if (fs::exists(fs::symlink_status(link)) && !fs::is_symlink(fs::symlink_status(link))) {
    throw FileError(link.string(), "exists and is not a symbolic link; not replaced");
  }
  std::string temporary_name = link.filename().string();
  temporary_name.insert(0, 1, '.');
  temporary_name.append(".link");
  const fs::path temporary = link.parent_path() / temporary_name;
  fs::remove(temporary);
  fs::create_symlink(target, temporary);
  fs::rename(temporary, link);
}

}  // namespace

int RunSphinxtrainBindir(int argc, char** argv) {
  std::string dir, stock = "/usr/lib/sphinxtrain";
  po::options_description desc("pstrain sphinxtrain-bindir options");
  desc.add_options()
      ("dir", po::value(&dir)->required(), "directory to create or update (set $CFG_BIN_DIR to it)")
      ("stock", po::value(&stock)->default_value(stock), "the stock SphinxTrain tool directory");
  po::positional_options_description positional;
  positional.add("dir", 1);
  if (!ParseCommandLine(argc, argv, desc,
                        "usage: pstrain sphinxtrain-bindir DIR [--stock DIR]\n"
                        "Makes DIR a SphinxTrain $CFG_BIN_DIR: bw and norm are this pstrain, every other tool\n"
                        "(each executable file of --stock) a symbolic link to the stock one.\n",
                        &positional)) {
    return 0;
  }
  std::error_code ec;
  const fs::path self = fs::canonical("/proc/self/exe", ec);
  if (ec) throw TrainingError("cannot resolve the running pstrain binary (/proc/self/exe): " + ec.message());
  if (!fs::is_directory(stock)) throw FileError(stock, "stock SphinxTrain directory does not exist");
  if (!fs::is_regular_file(fs::path(stock) / "bw") || !fs::is_regular_file(fs::path(stock) / "norm")) {
    throw FileError(stock, "holds no SphinxTrain bw and norm (pass --stock DIR)");
  }
  const fs::path stock_dir = fs::canonical(stock);
  fs::create_directories(dir);
  std::size_t stock_tools = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(stock_dir)) {
    const std::string name = entry.path().filename().string();
    if (name == "bw" || name == "norm") continue;
    if (!entry.is_regular_file()) continue;  // scripts/, etc/, python/: not tools
    if ((entry.status().permissions() & fs::perms::owner_exec) == fs::perms::none) continue;
    PlaceLink(entry.path(), fs::path(dir) / name);
    ++stock_tools;
  }
  PlaceLink(self, fs::path(dir) / "bw");
  PlaceLink(self, fs::path(dir) / "norm");
  // pstrain's norm hands init_gau's accumulators (flat start) over to the stock norm.
  PlaceLink(stock_dir / "norm", fs::path(dir) / "norm.stock");
  std::cout << "pstrain sphinxtrain-bindir: " << dir << ": bw, norm -> " << self.string() << "; norm.stock and " << stock_tools << " other tools -> "
            << stock_dir.string() << "\nset in etc/sphinx_train.cfg: $CFG_BIN_DIR = \"" << fs::absolute(dir).lexically_normal().string()
            << "\";\n";
  return 0;
}

}  // namespace pstrain::cli
