// `audit mutate`: the table of mutations, each one breaking one thing in a copied pass.
#include "mutate/mutations.h"

#include <algorithm>
#include <boost/json.hpp>
#include <fstream>

#include "common/file_io.h"
#include "common/sha256.h"
#include "formats/param_files.h"
#include "report/audit_error.h"
#include "shards/run_layout.h"

namespace pstrain::audit {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;

namespace {

// --- Files ---------------------------------------------------------------------------------------

void WriteBytes(const fs::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw AuditError(path.string() + ": cannot write");
}
void WriteText(const fs::path& path, const std::string& text) { WriteBytes(path, Bytes(text.begin(), text.end())); }

// `path` relative to the copy, lexically (a symlink is named, not followed).
std::string Rel(const MutationContext& ctx, const fs::path& path) { return path.lexically_relative(ctx.copy).generic_string(); }

std::string ShardFile(std::uint32_t shard, const std::string& name) { return ShardDirName(shard) + "/" + name; }

// Replaces directory `target` by a copy of directory `source` (symlinks copied as symlinks).
void ReplaceDir(const fs::path& target, const fs::path& source) {
  fs::remove_all(target);
  fs::copy(source, target, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
}

void SwapFiles(const fs::path& a, const fs::path& b) {
  const fs::path tmp = a.string() + ".mutate-swap";
  fs::rename(a, tmp);
  fs::rename(b, a);
  fs::rename(tmp, b);
}

// --- artifact.json, through the trainer's strict parser and canonical serializer ------------------

ShardArtifact ReadArtifact(const fs::path& path) { return ParseArtifact(ReadFileText(path), path.string()); }
void WriteArtifact(const fs::path& path, const ShardArtifact& a) { WriteText(path, SerializeArtifact(a)); }

// The pass fingerprint the artifact's own fields imply (what a forger recomputes).
void Resign(ShardArtifact& a) {
  a.fingerprints.pass = PassFingerprint(a.pass, a.shard_count, a.fingerprints.model, a.fingerprints.config, a.fingerprints.manifest);
}

// Makes the payload entry `name` describe the file as it now is, and payload_sha256 cover the entries.
void Redescribe(ShardArtifact& a, const fs::path& shard_dir, const std::string& name) {
  for (PayloadFile& file : a.payload) {
    if (file.name == name) {
      file.size = fs::file_size(shard_dir / name);
      file.sha256 = Sha256OfFile(shard_dir / name);
    }
  }
  a.payload_sha256 = PayloadDigest(a.payload);
}

void EditArtifact(const MutationContext& ctx, std::uint32_t shard, const std::function<void(ShardArtifact&)>& edit) {
  const fs::path path = ctx.ShardDir(shard) / "artifact.json";
  ShardArtifact a = ReadArtifact(path);
  const std::string before = SerializeArtifact(a);
  edit(a);
  if (SerializeArtifact(a) == before) throw AuditError(path.string() + ": the mutation changed nothing");
  WriteArtifact(path, a);
}

// Removes processed utterance `index` (its id and frame count), keeping total_frames consistent.
void DropProcessed(ShardArtifact& a, std::size_t index) {
  a.total_frames -= a.processed_frames.at(index);
  a.processed_ids.erase(a.processed_ids.begin() + static_cast<long>(index));
  a.processed_frames.erase(a.processed_frames.begin() + static_cast<long>(index));
}

// --- Predicates ----------------------------------------------------------------------------------

std::string Always(const MutationContext&) { return ""; }

std::string NeedsTwoShards(const MutationContext& ctx) {
  return ctx.shard_count >= 2 ? "" : "the pass has " + std::to_string(ctx.shard_count) + " shard; this mutation needs two";
}

std::string NeedsProcessed(const MutationContext& ctx, std::size_t n) {
  const std::size_t have = ctx.artifacts.at(ctx.TargetShard()).processed_ids.size();
  return have >= n ? "" : "shard " + std::to_string(ctx.TargetShard()) + " processed " + std::to_string(have) + " utterances; this mutation needs " + std::to_string(n);
}

fs::path EarlierShard(const MutationContext& ctx) { return PassDir(ctx.run_dir, ctx.pass - 1) / ShardDirName(ctx.TargetShard()); }

std::string NeedsEarlierPass(const MutationContext& ctx) {
  if (ctx.pass < 2) return "pass 1 has no earlier pass in the run directory";
  const fs::path shard = EarlierShard(ctx);
  if (!fs::is_regular_file(shard / "artifact.json")) return "the earlier pass has no " + (fs::relative(shard, ctx.run_dir) / "artifact.json").generic_string();
  return "";
}

fs::path ForeignShard(const MutationContext& ctx) { return PassDir(ctx.foreign_run, ctx.pass) / ShardDirName(ctx.TargetShard()); }

// The multipron sidecar: the lowest shard that has a `fallback_senones` file, or -1.
constexpr const char* kSidecar = "fallback_senones";
constexpr const char* kSidecarHeader = "PSTRAIN_FALLBACK_SENONES_V1\n";

long SidecarShard(const MutationContext& ctx) {
  for (std::uint32_t shard = 0; shard < ctx.shard_count; ++shard) {
    if (fs::is_regular_file(ctx.original_pass / ShardDirName(shard) / kSidecar)) return shard;
  }
  return -1;
}

std::string NeedsSidecar(const MutationContext& ctx) {
  return SidecarShard(ctx) >= 0 ? "" : "no shard of this pass has a fallback_senones file (the multipron sidecar)";
}

// Rewrites the sidecar with `edit`; if the artifact lists it in its payload, the entry and
// payload_sha256 are recomputed, so the sidecar's own checks must catch the fault.
std::string EditSidecar(const MutationContext& ctx, const std::function<void(Bytes&)>& edit, const std::string& what) {
  const auto shard = static_cast<std::uint32_t>(SidecarShard(ctx));
  const fs::path file = ctx.ShardDir(shard) / kSidecar;
  Bytes bytes = ReadFileBytes(file);
  edit(bytes);
  WriteBytes(file, bytes);
  const ShardArtifact a = ReadArtifact(ctx.ShardDir(shard) / "artifact.json");
  const bool listed = std::any_of(a.payload.begin(), a.payload.end(), [](const PayloadFile& f) { return f.name == kSidecar; });
  if (listed) EditArtifact(ctx, shard, [&](ShardArtifact& x) { Redescribe(x, ctx.ShardDir(shard), kSidecar); });
  return Rel(ctx, file) + ": " + what + (listed ? " (payload entry and payload_sha256 recomputed)" : "");
}

// The end of the sidecar's header lines (the offset of the first flag byte).
std::size_t SidecarFlagsOffset(const Bytes& bytes, const fs::path& file) {
  std::size_t newlines = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] == '\n' && ++newlines == 2) return i + 1;
  }
  throw MutationNotApplicable(file.string() + " has no two header lines");
}

// --- The table -----------------------------------------------------------------------------------

std::vector<Mutation> BuildTable() {
  std::vector<Mutation> t;
  const auto add = [&](std::string name, std::string category, std::string description, std::vector<std::string> checks,
                       std::function<std::string(const MutationContext&)> not_applicable,
                       std::function<std::string(const MutationContext&)> apply) {
    t.push_back({std::move(name), std::move(category), std::move(description), std::move(checks), std::move(not_applicable), std::move(apply)});
  };

  // Payload files.
  add("payload-byte-flipped", "payload", "one byte in the middle of the target shard's gauden_counts is flipped", {"payload-sha256"}, Always,
      [](const MutationContext& c) {
        const fs::path file = c.ShardDir(c.TargetShard()) / "gauden_counts";
        Bytes bytes = ReadFileBytes(file);
        const std::size_t at = bytes.size() / 2;
        bytes.at(at) ^= 0x01;
        WriteBytes(file, bytes);
        return Rel(c, file) + ": bit 0 of byte " + std::to_string(at) + " flipped";
      });
  add("payload-truncated", "payload", "the target shard's mixw_counts is cut to half its size", {"payload-size"}, Always,
      [](const MutationContext& c) {
        const fs::path file = c.ShardDir(c.TargetShard()) / "mixw_counts";
        const auto size = fs::file_size(file);
        fs::resize_file(file, size / 2);
        return Rel(c, file) + ": truncated from " + std::to_string(size) + " to " + std::to_string(size / 2) + " bytes";
      });
  add("payload-missing", "payload", "the target shard's tmat_counts is deleted", {"missing"}, Always, [](const MutationContext& c) {
    const fs::path file = c.ShardDir(c.TargetShard()) / "tmat_counts";
    fs::remove(file);
    return Rel(c, file) + ": removed";
  });
  add("payload-not-a-file", "payload", "the target shard's gauden_counts is replaced by a directory", {"not-a-file"}, Always,
      [](const MutationContext& c) {
        const fs::path file = c.ShardDir(c.TargetShard()) / "gauden_counts";
        fs::remove(file);
        fs::create_directory(file);
        return Rel(c, file) + ": replaced by an empty directory";
      });
  add("payload-header-broken", "payload",
      "the target shard's tmat_counts is overwritten with filler bytes of the same size; its payload entry and payload_sha256 are "
      "recomputed so only the header check can catch it",
      {"payload-format"}, Always, [](const MutationContext& c) {
        const fs::path dir = c.ShardDir(c.TargetShard());
        WriteBytes(dir / "tmat_counts", Bytes(fs::file_size(dir / "tmat_counts"), 0x5a));
        EditArtifact(c, c.TargetShard(), [&](ShardArtifact& a) { Redescribe(a, dir, "tmat_counts"); });
        return Rel(c, dir / "tmat_counts") + ": every byte set to 0x5a; artifact.json re-describes it";
      });
  add("payload-digest-altered", "payload", "the last hex digit of the target shard's payload_sha256 is changed", {"payload-digest"}, Always,
      [](const MutationContext& c) {
        EditArtifact(c, c.TargetShard(), [](ShardArtifact& a) { a.payload_sha256.back() = a.payload_sha256.back() == '0' ? '1' : '0'; });
        return ShardFile(c.TargetShard(), "artifact.json") + ": payload_sha256 altered";
      });
  add("payload-entries-reordered", "payload",
      "the first two payload entries of the target shard are swapped (payload_sha256 recomputed)", {"payload-names"}, Always,
      [](const MutationContext& c) {
        EditArtifact(c, c.TargetShard(), [](ShardArtifact& a) {
          std::swap(a.payload.at(0), a.payload.at(1));
          a.payload_sha256 = PayloadDigest(a.payload);
        });
        return ShardFile(c.TargetShard(), "artifact.json") + ": payload entries 0 and 1 swapped";
      });
  add("payloads-swapped-between-shards", "payload", "shard 0's and the target shard's exact_counts files are swapped", {"payload-sha256", "payload-size"},
      NeedsTwoShards, [](const MutationContext& c) {
        SwapFiles(c.ShardDir(0) / "exact_counts", c.ShardDir(c.TargetShard()) / "exact_counts");
        return ShardFile(0, "exact_counts") + " <-> " + ShardFile(c.TargetShard(), "exact_counts");
      });

  // Symlinks and paths.
  add("payload-symlink-outside", "path",
      "the target shard's exact_counts is moved out of the pass and replaced by a symlink to it (identical bytes)", {"symlink"}, Always,
      [](const MutationContext& c) {
        const fs::path file = c.ShardDir(c.TargetShard()) / "exact_counts";
        fs::rename(file, c.outside / "exact_counts");
        fs::create_symlink(c.outside / "exact_counts", file);
        return Rel(c, file) + ": symlink to an identical file outside the pass";
      });
  add("payload-symlink-inside", "path",
      "the target shard's gauden_counts is renamed inside the shard and replaced by a relative symlink to it", {"symlink"}, Always,
      [](const MutationContext& c) {
        const fs::path file = c.ShardDir(c.TargetShard()) / "gauden_counts";
        fs::rename(file, file.string() + ".real");
        fs::create_symlink("gauden_counts.real", file);
        return Rel(c, file) + ": symlink to gauden_counts.real in the same directory";
      });
  add("artifact-json-symlink", "path", "the target shard's artifact.json is replaced by a symlink to an identical file outside the pass",
      {"symlink"}, Always, [](const MutationContext& c) {
        const fs::path file = c.ShardDir(c.TargetShard()) / "artifact.json";
        fs::rename(file, c.outside / "artifact.json");
        fs::create_symlink(c.outside / "artifact.json", file);
        return Rel(c, file) + ": symlink to an identical file outside the pass";
      });
  add("shard-dir-symlink", "path", "the target shard's directory is moved out of the pass and replaced by a symlink to it", {"symlink"}, Always,
      [](const MutationContext& c) {
        const fs::path dir = c.ShardDir(c.TargetShard());
        fs::rename(dir, c.outside / "shard");
        fs::create_directory_symlink(c.outside / "shard", dir);
        return Rel(c, dir) + ": symlink to an identical directory outside the pass";
      });
  add("path-escape-parent", "path",
      "the target shard's first payload entry names ../shard-000/gauden_counts (payload_sha256 recomputed)", {"path-escape"}, Always,
      [](const MutationContext& c) {
        EditArtifact(c, c.TargetShard(), [](ShardArtifact& a) {
          a.payload.at(0).name = "../" + ShardDirName(0) + "/gauden_counts";
          a.payload_sha256 = PayloadDigest(a.payload);
        });
        return ShardFile(c.TargetShard(), "artifact.json") + ": payload[0].file = \"../" + ShardFile(0, "gauden_counts") + "\"";
      });
  add("path-escape-absolute", "path",
      "the target shard's first payload entry names an absolute path to an identical copy outside the pass (payload_sha256 recomputed)",
      {"path-escape"}, Always, [](const MutationContext& c) {
        const fs::path dir = c.ShardDir(c.TargetShard());
        fs::copy_file(dir / "gauden_counts", c.outside / "gauden_counts");
        EditArtifact(c, c.TargetShard(), [&](ShardArtifact& a) {
          a.payload.at(0).name = (c.outside / "gauden_counts").string();
          a.payload_sha256 = PayloadDigest(a.payload);
        });
        return ShardFile(c.TargetShard(), "artifact.json") + ": payload[0].file = an absolute path outside the pass";
      });

  // artifact.json itself.
  add("artifact-json-missing", "artifact-json", "the target shard's artifact.json is deleted", {"missing"}, Always, [](const MutationContext& c) {
    const fs::path file = c.ShardDir(c.TargetShard()) / "artifact.json";
    fs::remove(file);
    return Rel(c, file) + ": removed";
  });
  add("shard-dir-missing", "artifact-json", "the target shard's directory is deleted", {"missing"}, Always, [](const MutationContext& c) {
    fs::remove_all(c.ShardDir(c.TargetShard()));
    return ShardDirName(c.TargetShard()) + ": removed";
  });
  add("artifact-json-truncated", "artifact-json", "the target shard's artifact.json is cut in the middle (not JSON)", {"malformed"}, Always,
      [](const MutationContext& c) {
        const fs::path file = c.ShardDir(c.TargetShard()) / "artifact.json";
        const auto size = fs::file_size(file);
        fs::resize_file(file, size / 2);
        return Rel(c, file) + ": truncated from " + std::to_string(size) + " to " + std::to_string(size / 2) + " bytes";
      });
  add("artifact-json-duplicate-key", "artifact-json", "a second \"shard\" key is inserted into the target shard's artifact.json", {"malformed"},
      Always, [](const MutationContext& c) {
        const fs::path file = c.ShardDir(c.TargetShard()) / "artifact.json";
        std::string text = ReadFileText(file);
        const std::string key = "\"shard\":" + std::to_string(c.TargetShard()) + ",";
        const std::size_t at = text.find(key);
        if (at == std::string::npos) throw AuditError(file.string() + ": no " + key);
        text.insert(at, "\"shard\":" + std::to_string(c.TargetShard() + 1) + ",");
        WriteText(file, text);
        return Rel(c, file) + ": duplicate key \"shard\"";
      });
  add("artifact-json-unknown-key", "artifact-json", "an unknown key is added to the target shard's artifact.json", {"malformed"}, Always,
      [](const MutationContext& c) {
        const fs::path file = c.ShardDir(c.TargetShard()) / "artifact.json";
        std::string text = ReadFileText(file);
        const std::size_t at = text.rfind('}');
        if (at == std::string::npos) throw AuditError(file.string() + ": no closing brace");
        text.insert(at, ",\"trusted\":true");
        WriteText(file, text);
        return Rel(c, file) + ": key \"trusted\" added";
      });
  add("artifact-json-not-canonical", "artifact-json", "a space is inserted after the first colon of the target shard's artifact.json (same data)",
      {"malformed"}, Always, [](const MutationContext& c) {
        const fs::path file = c.ShardDir(c.TargetShard()) / "artifact.json";
        std::string text = ReadFileText(file);
        const std::size_t at = text.find(':');
        if (at == std::string::npos) throw AuditError(file.string() + ": no colon");
        WriteText(file, text.substr(0, at + 1) + ' ' + text.substr(at + 1));
        return Rel(c, file) + ": whitespace added";
      });

  // Pass, shard and fingerprints.
  add("stale-pass-number", "identity",
      "the target shard's pass number is set to the previous pass (the next one for pass 1), pass fingerprint recomputed", {"stale-pass"}, Always,
      [](const MutationContext& c) {
        const std::uint32_t to = c.pass > 1 ? c.pass - 1 : c.pass + 1;
        EditArtifact(c, c.TargetShard(), [&](ShardArtifact& a) {
          a.pass = to;
          Resign(a);
        });
        return ShardFile(c.TargetShard(), "artifact.json") + ": pass " + std::to_string(c.pass) + " -> " + std::to_string(to) + ", re-signed";
      });
  add("earlier-pass-replayed", "identity", "the target shard's directory is replaced by the same shard of the previous pass of this run",
      {"stale-pass"}, NeedsEarlierPass, [](const MutationContext& c) {
        ReplaceDir(c.ShardDir(c.TargetShard()), EarlierShard(c));
        return ShardDirName(c.TargetShard()) + ": replaced by " + fs::relative(EarlierShard(c), c.run_dir).generic_string();
      });
  add("earlier-pass-relabeled", "identity",
      "artifact from another model: the previous pass's shard (computed from that pass's input model, real payload) is relabeled as this "
      "pass and re-signed",
      {"model-fingerprint"}, NeedsEarlierPass, [](const MutationContext& c) {
        ReplaceDir(c.ShardDir(c.TargetShard()), EarlierShard(c));
        EditArtifact(c, c.TargetShard(), [&](ShardArtifact& a) {
          a.pass = c.pass;
          Resign(a);
        });
        return ShardDirName(c.TargetShard()) + ": " + fs::relative(EarlierShard(c), c.run_dir).generic_string() + " relabeled as pass " +
               std::to_string(c.pass) + ", re-signed";
      });
  add("other-model-fingerprint", "identity",
      "artifact from another model: the target shard's model fingerprint is set to that of the model this pass produced (a real model "
      "directory, fingerprinted with the trainer's ModelFingerprint), pass fingerprint recomputed",
      {"model-fingerprint"},
      [](const MutationContext& c) -> std::string {
        return fs::is_regular_file(c.original_pass / "model" / "means") ? "" : "the pass has no model/ directory";
      },
      [](const MutationContext& c) {
        const std::string other = ModelFingerprint((c.original_pass / "model").string());
        if (other == c.artifacts.at(c.TargetShard()).fingerprints.model) throw MutationNotApplicable("the pass's output model has the input model's fingerprint");
        EditArtifact(c, c.TargetShard(), [&](ShardArtifact& a) {
          a.fingerprints.model = other;
          Resign(a);
        });
        return ShardFile(c.TargetShard(), "artifact.json") + ": fingerprints.model = ModelFingerprint(model/), re-signed";
      });
  add("other-config-fingerprint", "identity",
      "artifact from another configuration: the target shard's config fingerprint is set to that of the run's canonical configuration "
      "(RUN_DIR/model/provenance.json inputs.config) with the other reduction mode, pass fingerprint recomputed",
      {"config-fingerprint"},
      [](const MutationContext& c) -> std::string {
        return fs::is_regular_file(c.run_dir / "model" / "provenance.json") ? "" : "the run has no model/provenance.json (training not finished)";
      },
      [](const MutationContext& c) {
        const fs::path provenance = c.run_dir / "model" / "provenance.json";
        const boost::json::value root = boost::json::parse(ReadFileText(provenance));
        std::string config(root.at("inputs").at("config").as_string());
        if (Sha256Hex(config) != c.artifacts.at(c.TargetShard()).fingerprints.config) {
          throw MutationNotApplicable(fs::relative(provenance, c.run_dir).generic_string() +
                                      ": inputs.config does not hash to this pass's config fingerprint");
        }
        const std::string from = std::string("reduction=") + ReductionModeName(c.reduction) + "\n";
        const std::string to = std::string("reduction=") + (c.reduction == ReductionMode::kExact ? "float32" : "exact") + "\n";
        const std::size_t at = config.find(from);
        if (at == std::string::npos) throw MutationNotApplicable("the canonical configuration has no line " + from.substr(0, from.size() - 1));
        config.replace(at, from.size(), to);
        EditArtifact(c, c.TargetShard(), [&](ShardArtifact& a) {
          a.fingerprints.config = Sha256Hex(config);
          Resign(a);
        });
        return ShardFile(c.TargetShard(), "artifact.json") + ": fingerprints.config = the " + to.substr(10, to.size() - 11) +
               " configuration's, re-signed";
      });
  add("other-manifest-fingerprint", "identity",
      "artifact from another manifest: the target shard's manifest fingerprint is rewritten to another SHA-256 value (the run directory "
      "holds no other manifest), pass fingerprint recomputed",
      {"manifest-fingerprint"}, Always, [](const MutationContext& c) {
        EditArtifact(c, c.TargetShard(), [](ShardArtifact& a) {
          a.fingerprints.manifest = Sha256Hex("another manifest than " + a.fingerprints.manifest);
          Resign(a);
        });
        return ShardFile(c.TargetShard(), "artifact.json") + ": fingerprints.manifest rewritten, re-signed";
      });
  add("foreign-run-artifact", "identity",
      "the target shard's directory is replaced by the same shard of the same pass of another run (--foreign-run: another model, "
      "configuration, manifest or shard count), real payload and all",
      {"model-fingerprint", "config-fingerprint", "manifest-fingerprint", "shard-count"},
      [](const MutationContext& c) -> std::string {
        if (c.foreign_run.empty()) return "no --foreign-run given";
        const fs::path shard = ForeignShard(c);
        if (!fs::is_regular_file(shard / "artifact.json")) return "the foreign run has no " + (shard / "artifact.json").string();
        if (ReadFileBytes(shard / "artifact.json") == ReadFileBytes(c.original_pass / ShardDirName(c.TargetShard()) / "artifact.json")) {
          return "the foreign run's artifact is identical to this one (same inputs: not foreign)";
        }
        return "";
      },
      [](const MutationContext& c) {
        ReplaceDir(c.ShardDir(c.TargetShard()), ForeignShard(c));
        return ShardDirName(c.TargetShard()) + ": replaced by the foreign run's " + fs::relative(ForeignShard(c), c.foreign_run).generic_string();
      });
  add("pass-fingerprint-of-next-pass", "identity", "the target shard's pass fingerprint is the one of the next pass", {"pass-fingerprint"}, Always,
      [](const MutationContext& c) {
        EditArtifact(c, c.TargetShard(), [](ShardArtifact& a) {
          a.fingerprints.pass = PassFingerprint(a.pass + 1, a.shard_count, a.fingerprints.model, a.fingerprints.config, a.fingerprints.manifest);
        });
        return ShardFile(c.TargetShard(), "artifact.json") + ": fingerprints.pass of pass " + std::to_string(c.pass + 1);
      });
  add("code-identity-of-another-build", "identity",
      "artifact from another build: the target shard's code_identity is rewritten to another SHA-256 value (what a worker running "
      "another pstrain binary or another shared library records; the run directory holds no other build). Neither the pass "
      "fingerprint nor payload_sha256 covers it, so nothing needs re-signing: the artifact is otherwise the real one",
      {"code-identity"}, Always, [](const MutationContext& c) {
        EditArtifact(c, c.TargetShard(), [](ShardArtifact& a) { a.code_identity = Sha256Hex("another build than " + a.code_identity); });
        return ShardFile(c.TargetShard(), "artifact.json") + ": code_identity rewritten";
      });
  add("shard-id-edited", "identity", "the target shard's artifact says it is another shard", {"shard-id"}, Always, [](const MutationContext& c) {
    const std::uint32_t to = c.TargetShard() == 0 ? 1 : 0;
    EditArtifact(c, c.TargetShard(), [&](ShardArtifact& a) { a.shard = to; });
    return ShardFile(c.TargetShard(), "artifact.json") + ": shard " + std::to_string(c.TargetShard()) + " -> " + std::to_string(to);
  });
  add("other-shard-in-directory", "identity", "shard 0's whole directory is copied over the target shard's", {"shard-id"}, NeedsTwoShards,
      [](const MutationContext& c) {
        ReplaceDir(c.ShardDir(c.TargetShard()), c.ShardDir(0));
        return ShardDirName(c.TargetShard()) + ": replaced by a copy of " + ShardDirName(0);
      });
  add("shard-count-edited", "identity", "the target shard's shard count is one more, pass fingerprint recomputed", {"shard-count"}, Always,
      [](const MutationContext& c) {
        EditArtifact(c, c.TargetShard(), [](ShardArtifact& a) {
          ++a.shard_count;
          Resign(a);
        });
        return ShardFile(c.TargetShard(), "artifact.json") + ": shard_count " + std::to_string(c.shard_count) + " -> " + std::to_string(c.shard_count + 1) + ", re-signed";
      });

  // Coverage.
  add("coverage-duplicate-across-shards", "coverage", "the target shard claims shard 0's assigned utterances", {"coverage"}, NeedsTwoShards,
      [](const MutationContext& c) {
        EditArtifact(c, c.TargetShard(), [&](ShardArtifact& a) { a.assigned_ids = c.artifacts.at(0).assigned_ids; });
        return ShardFile(c.TargetShard(), "artifact.json") + ": assigned_ids = shard 0's";
      });
  add("coverage-duplicate-within-shard", "coverage",
      "the target shard's first processed utterance is listed twice (assigned, processed, frames; total kept consistent)", {"coverage"},
      [](const MutationContext& c) { return NeedsProcessed(c, 1); },
      [](const MutationContext& c) {
        std::string id;
        EditArtifact(c, c.TargetShard(), [&](ShardArtifact& a) {
          id = a.processed_ids.at(0);
          a.assigned_ids.push_back(id);
          a.processed_ids.push_back(id);
          a.processed_frames.push_back(a.processed_frames.at(0));
          a.total_frames += a.processed_frames.at(0);
        });
        return ShardFile(c.TargetShard(), "artifact.json") + ": " + id + " appended again";
      });
  add("coverage-missing", "coverage",
      "a processed utterance is dropped from the target shard (assigned, processed, frames and retried lists kept consistent)", {"coverage"},
      [](const MutationContext& c) { return NeedsProcessed(c, 1); },
      [](const MutationContext& c) {
        std::string id;
        EditArtifact(c, c.TargetShard(), [&](ShardArtifact& a) {
          const std::size_t index = a.processed_ids.size() / 2;
          id = a.processed_ids.at(index);
          a.assigned_ids.erase(std::find(a.assigned_ids.begin(), a.assigned_ids.end(), id));
          DropProcessed(a, index);
          std::erase(a.retried_ids, id);
        });
        return ShardFile(c.TargetShard(), "artifact.json") + ": " + id + " dropped";
      });

  // Outcome lists, frames, log-likelihood.
  add("outcome-both-processed-and-skipped", "outcomes", "the target shard's first assigned utterance is also listed as skipped", {"outcomes"},
      Always, [](const MutationContext& c) {
        std::string id;
        EditArtifact(c, c.TargetShard(), [&](ShardArtifact& a) {
          id = a.assigned_ids.at(0);
          a.skipped.insert(a.skipped.begin(), {id, "injected"});
        });
        return ShardFile(c.TargetShard(), "artifact.json") + ": " + id + " added to skipped";
      });
  add("outcome-neither-processed-nor-skipped", "outcomes",
      "a processed utterance of the target shard is removed from processed_ids (frames and total kept consistent)", {"outcomes"},
      [](const MutationContext& c) { return NeedsProcessed(c, 1); },
      [](const MutationContext& c) {
        std::string id;
        EditArtifact(c, c.TargetShard(), [&](ShardArtifact& a) {
          id = a.processed_ids.at(0);
          DropProcessed(a, 0);
        });
        return ShardFile(c.TargetShard(), "artifact.json") + ": " + id + " removed from processed_ids";
      });
  add("outcome-processed-out-of-order", "outcomes", "the target shard's first two processed utterances are swapped (with their frames)",
      {"outcomes"}, [](const MutationContext& c) { return NeedsProcessed(c, 2); },
      [](const MutationContext& c) {
        EditArtifact(c, c.TargetShard(), [](ShardArtifact& a) {
          std::swap(a.processed_ids.at(0), a.processed_ids.at(1));
          std::swap(a.processed_frames.at(0), a.processed_frames.at(1));
        });
        return ShardFile(c.TargetShard(), "artifact.json") + ": processed_ids[0] <-> [1]";
      });
  add("outcome-retried-not-assigned", "outcomes", "an utterance id that is not assigned to the target shard is added to its retried_ids",
      {"outcomes"}, Always, [](const MutationContext& c) {
        const std::string id = c.TargetShard() > 0 ? c.artifacts.at(0).assigned_ids.at(0) : "mutate-unassigned-utterance";
        EditArtifact(c, c.TargetShard(), [&](ShardArtifact& a) { a.retried_ids.push_back(id); });
        return ShardFile(c.TargetShard(), "artifact.json") + ": " + id + " added to retried_ids";
      });
  add("outcome-retried-twice", "outcomes",
      "the target shard's first retried utterance is listed twice (if it retried none, its first assigned utterance is added twice)",
      {"outcomes"}, Always, [](const MutationContext& c) {
        std::string id;
        EditArtifact(c, c.TargetShard(), [&](ShardArtifact& a) {
          if (a.retried_ids.empty()) {
            id = a.assigned_ids.at(0);
            a.retried_ids.push_back(id);
          } else {
            id = a.retried_ids.at(0);
          }
          a.retried_ids.push_back(id);
        });
        return ShardFile(c.TargetShard(), "artifact.json") + ": " + id + " listed twice in retried_ids";
      });
  add("frames-total-off-by-one", "outcomes", "the target shard's total_frames is one more than the sum of processed_frames", {"frames"}, Always,
      [](const MutationContext& c) {
        EditArtifact(c, c.TargetShard(), [](ShardArtifact& a) { ++a.total_frames; });
        return ShardFile(c.TargetShard(), "artifact.json") + ": total_frames + 1";
      });
  add("frames-entry-missing", "outcomes", "the target shard's last processed_frames entry is removed (total kept consistent)", {"frames"},
      [](const MutationContext& c) { return NeedsProcessed(c, 1); },
      [](const MutationContext& c) {
        EditArtifact(c, c.TargetShard(), [](ShardArtifact& a) {
          a.total_frames -= a.processed_frames.back();
          a.processed_frames.pop_back();
        });
        return ShardFile(c.TargetShard(), "artifact.json") + ": processed_frames shortened by one";
      });
  add("log-likelihood-mismatch", "outcomes", "the target shard's decimal log_likelihood no longer matches log_likelihood_exact",
      {"log-likelihood"}, Always, [](const MutationContext& c) {
        EditArtifact(c, c.TargetShard(), [](ShardArtifact& a) { a.log_likelihood += "1"; });
        return ShardFile(c.TargetShard(), "artifact.json") + ": a digit appended to log_likelihood";
      });
  add("outcome-consistent-frames-edit", "pass",
      "the target shard's first processed utterance gains a frame and total_frames with it: the artifact is self-consistent, pass.json "
      "disagrees",
      {"pass-summary"}, [](const MutationContext& c) { return NeedsProcessed(c, 1); },
      [](const MutationContext& c) {
        EditArtifact(c, c.TargetShard(), [](ShardArtifact& a) {
          ++a.processed_frames.at(0);
          ++a.total_frames;
        });
        return ShardFile(c.TargetShard(), "artifact.json") + ": processed_frames[0] + 1, total_frames + 1";
      });
  add("outcome-processed-recorded-as-skipped", "pass",
      "the target shard's first processed utterance is recorded as skipped instead (frames consistent): the artifact is self-consistent, "
      "pass.json disagrees",
      {"pass-summary"}, [](const MutationContext& c) { return NeedsProcessed(c, 1); },
      [](const MutationContext& c) {
        std::string id;
        EditArtifact(c, c.TargetShard(), [&](ShardArtifact& a) {
          id = a.processed_ids.at(0);
          DropProcessed(a, 0);
          // Keep skipped in assignment order.
          std::vector<SkippedUtterance> skipped;
          for (const std::string& assigned : a.assigned_ids) {
            if (assigned == id) skipped.push_back({id, "injected"});
            for (const SkippedUtterance& s : a.skipped) {
              if (s.id == assigned) skipped.push_back(s);
            }
          }
          a.skipped = std::move(skipped);
        });
        return ShardFile(c.TargetShard(), "artifact.json") + ": " + id + " moved from processed to skipped";
      });
  add("accum-byte-flipped", "pass", "one byte in the middle of the pass's reduced accum/mixw_counts is flipped", {"reduction"}, Always,
      [](const MutationContext& c) {
        const fs::path file = c.copy / "accum" / "mixw_counts";
        Bytes bytes = ReadFileBytes(file);
        const std::size_t at = bytes.size() / 2;
        bytes.at(at) ^= 0x01;
        WriteBytes(file, bytes);
        return Rel(c, file) + ": bit 0 of byte " + std::to_string(at) + " flipped";
      });

  add("accum-value-changed", "pass",
      "one count of the pass's reduced accum/mixw_counts is increased by 1 and the file re-encoded (valid header and checksum)", {"reduction"},
      Always, [](const MutationContext& c) {
        const fs::path file = c.copy / "accum" / "mixw_counts";
        Array3D counts = ReadArray3DFile(file.string());
        if (counts.data.empty()) throw MutationNotApplicable("accum/mixw_counts holds no counts");
        const std::size_t at = counts.data.size() / 2;
        counts.data[at] += 1.0f;
        WriteArray3DFile(file.string(), counts);
        return Rel(c, file) + ": element " + std::to_string(at) + " + 1, re-encoded";
      });
  // The multipron sidecar (PSTRAIN_FALLBACK_SENONES_V1\n, decimal tied-state count\n, one byte 0/1 per tied state).
  add("sidecar-header-wrong", "sidecar", "the fallback_senones header line names another version", {"sidecar-header"}, NeedsSidecar, [](const MutationContext& c) {
    return EditSidecar(
        c,
        [](Bytes& b) {
          const std::string header = kSidecarHeader;
          if (b.size() < header.size() || !std::equal(header.begin(), header.end(), b.begin())) throw MutationNotApplicable("fallback_senones does not start with " + header.substr(0, header.size() - 1));
          b[header.size() - 2] = '2';  // ..._V1 -> ..._V2
        },
        "header version 1 -> 2");
  });
  add("sidecar-count-wrong", "sidecar", "the fallback_senones tied-state count is one more than the flags that follow", {"sidecar-count"}, NeedsSidecar,
      [](const MutationContext& c) {
        return EditSidecar(
            c,
            [&](Bytes& b) {
              const std::size_t flags = SidecarFlagsOffset(b, c.copy);
              const std::string header = kSidecarHeader;
              const std::string count(b.begin() + static_cast<long>(header.size()), b.begin() + static_cast<long>(flags) - 1);
              const std::string next = std::to_string(std::stoull(count) + 1);
              Bytes out(b.begin(), b.begin() + static_cast<long>(header.size()));
              out.insert(out.end(), next.begin(), next.end());
              out.insert(out.end(), b.begin() + static_cast<long>(flags) - 1, b.end());
              b = std::move(out);
            },
            "count + 1");
      });
  add("sidecar-flag-two", "sidecar", "the first fallback_senones flag byte is 2", {"sidecar-byte"}, NeedsSidecar, [](const MutationContext& c) {
    return EditSidecar(
        c,
        [&](Bytes& b) {
          const std::size_t flags = SidecarFlagsOffset(b, c.copy);
          if (flags >= b.size()) throw MutationNotApplicable("fallback_senones has no flag bytes");
          b[flags] = 2;
        },
        "first flag byte = 2");
  });
  add("sidecar-truncated", "sidecar", "the last byte of fallback_senones is removed", {"sidecar-size"}, NeedsSidecar, [](const MutationContext& c) {
    return EditSidecar(
        c,
        [](Bytes& b) {
          if (b.empty()) throw MutationNotApplicable("fallback_senones is empty");
          b.pop_back();
        },
        "last byte removed");
  });
  add("sidecar-missing", "sidecar", "fallback_senones is deleted", {"missing"}, NeedsSidecar, [](const MutationContext& c) {
    const fs::path file = c.ShardDir(static_cast<std::uint32_t>(SidecarShard(c))) / kSidecar;
    fs::remove(file);
    return Rel(c, file) + ": removed";
  });
  return t;
}

}  // namespace

const std::vector<Mutation>& Mutations() {
  static const std::vector<Mutation> table = BuildTable();
  return table;
}

}  // namespace pstrain::audit
