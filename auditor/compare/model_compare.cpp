// `audit compare`: comparing two model directories file by file and explaining the differences.
#include "compare/model_compare.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <set>
#include <system_error>

#include "bytes/bytes_compare.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "formats/mdef.h"

namespace pstrain::audit {

namespace fs = std::filesystem;

const char* FileClassName(FileClass c) {
  switch (c) {
    case FileClass::kParameters: return "parameters";
    case FileClass::kText: return "text";
    case FileClass::kProvenance: return "provenance";
    case FileClass::kBinary: return "binary";
  }
  return "binary";
}

bool CompareReport::Different() const {
  return std::any_of(files.begin(), files.end(), [](const FileEntry& f) { return f.status != "identical"; });
}

std::size_t CompareReport::CountStatus(const std::string& status) const {
  return static_cast<std::size_t>(
      std::count_if(files.begin(), files.end(), [&](const FileEntry& f) { return f.status == status; }));
}

bool CompareReport::ParametersIdentical() const {
  return std::all_of(files.begin(), files.end(), [](const FileEntry& f) {
    return f.file_class != FileClass::kParameters || f.status == "identical";
  });
}

std::string CompareReport::StateLabel(const ParamDiff& diff, std::uint32_t state) const {
  const std::size_t slash = diff.path.rfind('/');
  if ((slash == std::string::npos ? std::string() : diff.path.substr(0, slash + 1)) != model_dir) return "";
  const auto& labels = diff.state_axis == "tmat" ? tmat_labels : state_labels;
  const auto found = labels.find(state);
  return found == labels.end() ? "" : found->second;
}

std::string CompareReport::StateSuffix(const ParamDiff& diff, std::uint32_t state,
                                       const std::optional<std::uint32_t>& b_state) const {
  std::string inside = StateLabel(diff, state);
  if (b_state) inside += (inside.empty() ? "" : "; ") + diff.state_axis + " " + std::to_string(*b_state) + " in B";
  return inside.empty() ? "" : " (" + inside + ")";
}

std::string CompareReport::Where(const ParamDiff& diff, const ElementDiff& element) const {
  std::string out = LocationText(element);
  if (element.index.empty()) return out;
  const std::string suffix = StateSuffix(diff, element.index[0].second, element.b_state);
  if (suffix.empty()) return out;
  // "state 5 (AE, emitting state 2), ..." — the label goes right after the first index.
  const std::string first = element.index[0].first + " " + std::to_string(element.index[0].second);
  const std::size_t at = out.find(first);
  if (at != std::string::npos) out.insert(at + first.size(), suffix);
  return out;
}

bool CompareReport::IsModelFile(const std::string& path) const {
  return path.rfind(model_dir, 0) == 0 && path.find('/', model_dir.size()) == std::string::npos;
}

std::optional<bool> CompareReport::ParametersIdenticalAfterAlignment() const {
  if (!state_tying || !state_tying->senones.same || !state_tying->tmats.same) return std::nullopt;
  return std::all_of(parameters.begin(), parameters.end(), [&](const ParamDiff& p) {
    return !IsModelFile(p.path) || (p.same_shape && p.not_compared.empty() && p.differing == 0);
  });
}

namespace {

std::string BaseName(const std::string& relative) {
  const std::size_t slash = relative.rfind('/');
  return slash == std::string::npos ? relative : relative.substr(slash + 1);
}

FileSide SideOf(const fs::path& path) {
  FileSide side;
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (ec) throw AuditError(path.string() + ": cannot examine (" + ec.message() + ")");
  switch (status.type()) {
    case fs::file_type::regular: {
      side.kind = "file";
      side.size = fs::file_size(path, ec);
      if (ec) throw AuditError(path.string() + ": cannot read size (" + ec.message() + ")");
      try {
        side.sha256 = Sha256OfFile(path);
      } catch (const std::exception& e) {
        throw AuditError(e.what());
      }
      break;
    }
    case fs::file_type::directory: side.kind = "directory"; break;
    case fs::file_type::symlink:
      side.kind = "symlink";
      side.link_target = fs::read_symlink(path, ec).string();
      break;
    default: side.kind = "other";
  }
  return side;
}

FileSide SideFromBytes(const BytesSide& s, const fs::path& path) {
  if (s.kind == EntryKind::kFile) return SideOf(path);  // with the SHA-256 of every file
  FileSide side;
  side.kind = KindName(s.kind);
  side.link_target = s.link_target;
  return side;
}

// The offset of the first NUL byte of a file, or nullopt; read in blocks (a file of any size, a
// sparse 1 GB file included, is examined in constant memory).
std::optional<std::uint64_t> FirstNul(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw AuditError(path.string() + ": cannot open for reading");
  std::vector<char> buffer(1 << 16);
  std::uint64_t offset = 0;
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const std::size_t n = static_cast<std::size_t>(in.gcount());
    const auto nul = std::find(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(n), '\0');
    if (nul != buffer.begin() + static_cast<std::ptrdiff_t>(n)) return offset + static_cast<std::uint64_t>(nul - buffer.begin());
    offset += n;
  }
  if (in.bad()) throw AuditError(path.string() + ": read error");
  return std::nullopt;
}

bool LooksLikeText(const fs::path& path) { return !FirstNul(path); }

// Every mdef must parse; one that is too large or not text is trouble before the reader loads it.
void CheckMdefSize(const fs::path& path, std::uint64_t size) {
  if (size > kMaxMdefBytes) {
    throw AuditError(path.string() + ": " + std::to_string(size) + " bytes, larger than the " +
                         std::to_string(kMaxMdefBytes >> 20) + " MiB the auditor reads as an mdef; not an mdef");
  }
  if (const std::optional<std::uint64_t> nul = FirstNul(path)) {
    throw AuditError(path.string() + ": not an mdef (a text file): a NUL byte at offset " + std::to_string(*nul));
  }
}

FileClass ClassOf(const std::string& relative, const FileEntry& entry, const fs::path& a, const fs::path& b,
                  const std::string& model_dir) {
  if (ParamKindOfName(BaseName(relative))) return FileClass::kParameters;
  if (relative == model_dir + "provenance.json") return FileClass::kProvenance;
  for (const auto& [side, root] : {std::pair{&entry.a, &a}, std::pair{&entry.b, &b}}) {
    if (*side && (*side)->kind == "file" && !LooksLikeText(*root / relative)) return FileClass::kBinary;
  }
  return FileClass::kText;
}

bool IsFile(const std::optional<FileSide>& side) { return side && side->kind == "file"; }

std::string Join(const std::vector<std::string>& items, const std::string& separator = ", ") {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : separator) + s;
  return out;
}

std::string ShardText(const std::optional<std::uint64_t>& v) { return v ? std::to_string(*v) : "absent"; }

// Labels of senones and tmats from an mdef: the first row (in file order) that uses each.
struct StateLabels {
  std::map<std::uint32_t, std::string> state_labels, tmat_labels;
};
void LabelStates(const Mdef& mdef, StateLabels& report) {
  for (const MdefPhone& phone : mdef.phones()) {
    std::string name(mdef.Name(phone.base));
    if (phone.left != MdefPhone::kNoContext) {
      name += "(" + std::string(mdef.Name(phone.left)) + "," + std::string(mdef.Name(phone.right)) + "," +
              std::string(1, WordPositionLetter(phone.posn)) + ")";
    }
    report.tmat_labels.emplace(phone.tmat, name);
    const std::span<const std::uint32_t> senones = mdef.Senones(phone);
    for (std::size_t k = 0; k < senones.size(); ++k) {
      report.state_labels.emplace(senones[k], name + ", emitting state " + std::to_string(k));
    }
  }
}

std::string ParamSentence(const CompareReport& r, const ParamDiff& p) {
  const std::string paired = p.aligned_by.empty() ? "" : " (" + PairingText(p) + ", numbered by A)";
  std::string s = p.path + paired + ": " + std::to_string(p.differing) + " of " + std::to_string(p.elements) +
                  " elements differ; " + std::to_string(p.outside) + " outside rtol " +
                  FormatNumber(r.tolerance.rtol, 6) + ", atol " + FormatNumber(r.tolerance.atol, 6);
  if (p.max_abs) {
    s += "; largest absolute difference " + FormatNumber(p.max_abs->abs_diff, 6) + " at " + r.Where(p, *p.max_abs) +
         " (A " + FormatNumber(p.max_abs->a) + ", B " + FormatNumber(p.max_abs->b) + ")";
  }
  if (p.max_rel) {
    s += "; largest relative difference " + FormatNumber(p.max_rel->rel_diff, 6) + " at " + r.Where(p, *p.max_rel);
  }
  return s + ".";
}

// The explanation of two mdefs whose bytes differ: the same tying (parameters paired) or not.
Finding TyingFinding(const StateTying& t) {
  const GroupAlignment& s = t.senones;
  std::string text = SenoneVerdict(s);
  if (s.same) {
    text += ": each senone of A is paired with the senone of B that the same triphone states use (" +
            std::to_string(s.members) + " triphone states in all)";
    text += s.b_of_a.empty()      ? "; the two mdefs declare different numbers of senones, so the parameter files are "
                                    "compared by shape only."
            : s.renumbered == 0 ? ", and every senone has the same number in both, so the parameters of the tied states "
                                  "are compared state by state as numbered."
                                : ", and the parameters of the tied states are compared senone by senone through that "
                                  "pairing, numbered by A (B's number in parentheses).";
  } else {
    text += " (" + std::to_string(s.same_groups) + " of A's " + std::to_string(s.ids_a) +
            " senones hold the same triphone states as one of B's " + std::to_string(s.ids_b) +
            "): senone i of A and senone i of B are not the same triphone states, so the parameters of the tied "
            "states (means, variances, mixture weights) are not compared element by element; a position-by-position "
            "comparison would pair unrelated states.";
  }
  const GroupAlignment& m = t.tmats;
  text += " Transition matrices: " + TmatVerdict(m);
  if (m.same) {
    text += m.b_of_a.empty() || m.renumbered == 0 ? "." : "; compared through that pairing.";
  } else {
    text += "; transition matrix i of A and i of B are not used by the same phones, so they are not compared element "
            "by element.";
  }
  return {s.same ? "same-state-tying" : "different-state-tying", text};
}

void Explain(CompareReport& r) {
  // The model: the files directly in MODEL_DIR but provenance.json; everything else is "other".
  std::vector<std::string> only_a, only_b, model_files_differing, other_differing;
  for (const FileEntry& f : r.files) {
    if (f.status == "only in A") only_a.push_back(f.path);
    if (f.status == "only in B") only_b.push_back(f.path);
    if (f.status == "identical" || f.file_class == FileClass::kProvenance) continue;
    const bool in_model = f.path.rfind(r.model_dir, 0) == 0 &&
                          f.path.find('/', r.model_dir.size()) == std::string::npos;
    (in_model ? model_files_differing : other_differing).push_back(f.path);
  }

  // What differs.
  if (!r.Different()) {
    r.differences.push_back({"identical", "The two directories are byte-identical: " + std::to_string(r.files.size()) +
                                              " entries with the same names and the same SHA-256."});
  }
  if (!only_a.empty()) r.differences.push_back({"only-in-a", "Only in A: " + Join(only_a) + "."});
  if (!only_b.empty()) r.differences.push_back({"only-in-b", "Only in B: " + Join(only_b) + "."});
  for (const FileEntry& f : r.files) {
    if (f.status == "different" && (!IsFile(f.a) || !IsFile(f.b))) {
      r.differences.push_back({"kind-differs", f.path + ": " + f.reason + "."});
    }
  }
  for (const ParamDiff& p : r.parameters) {
    const auto file =
        std::find_if(r.files.begin(), r.files.end(), [&](const FileEntry& e) { return e.path == p.path; });
    const bool bytes_differ = file != r.files.end() && file->status != "identical";
    if (!p.not_compared.empty() && p.same_shape) {
      if (bytes_differ) r.differences.push_back({"not-compared", p.path + ": " + p.not_compared + "."});
    } else if (!p.same_shape) {
      r.differences.push_back({"shape-differs", p.path + ": the shapes differ (A: " + p.shape_text_a + "; B: " +
                                                    p.shape_text_b + "); elements are not compared."});
    } else if (p.differing > 0) {
      r.differences.push_back({"parameters-differ", ParamSentence(r, p)});
    } else {
      const bool renumbered = !p.aligned_by.empty() && r.state_tying &&
                              (p.aligned_by == "tmat" ? r.state_tying->tmats : r.state_tying->senones).renumbered > 0;
      if (bytes_differ && renumbered) {
        r.differences.push_back({"identical-after-alignment",
                                 p.path + ": the bytes differ but every element has the same float32 bits once A's " +
                                     p.aligned_by + "s are paired with B's: the files differ by the numbering."});
      } else if (bytes_differ) {
        r.differences.push_back({"encoding-differs", p.path + ": the bytes differ but every element has the same "
                                                              "float32 bits (header, byte order or checksum)."});
      }
    }
  }
  for (const TextDiffEntry& t : r.text_diffs) {
    r.differences.push_back({"lines-differ", t.path + ": " + std::to_string(t.diff.removed) + " lines only in A, " +
                                                 std::to_string(t.diff.added) + " lines only in B."});
  }
  for (const FileEntry& f : r.files) {
    if (f.status == "different" && f.file_class == FileClass::kBinary && IsFile(f.a) && IsFile(f.b)) {
      r.differences.push_back({"bytes-differ", f.path + ": " + f.reason + " (compared as bytes only)."});
    }
  }
  if (r.provenance && !r.provenance->Identical()) {
    std::vector<std::string> fields;
    for (const FieldDiff& f : r.provenance->fields) {
      if (!f.equal) fields.push_back(f.field);
    }
    r.differences.push_back({"provenance-differs", "provenance.json differs in: " + Join(fields) + "."});
  }

  // Why.
  if (r.state_tying) r.explanations.push_back(TyingFinding(*r.state_tying));
  for (const DigestMismatch& m : r.digest_mismatches) {
    r.explanations.push_back(
        {"modified-after-training",
         std::string(1, m.side) + "/" + r.model_dir + m.file + " does not match the SHA-256 that " +
             std::string(1, m.side) + "/" + r.model_dir + "provenance.json records for it (recorded " + m.recorded + ", " +
             (m.actual.empty() ? std::string("file missing") : "actual " + m.actual) +
             "): the file was changed after training, or provenance.json belongs to another model."});
  }
  if (!r.provenance_in_a || !r.provenance_in_b) {
    if (!model_files_differing.empty()) {
      const std::string where = !r.provenance_in_a && !r.provenance_in_b ? "in neither directory"
                                : r.provenance_in_a                       ? "only in A"
                                                                          : "only in B";
      r.explanations.push_back({"no-provenance", r.model_dir + "provenance.json is " + where +
                                                     ", so the differences cannot be explained from provenance."});
    }
    return;
  }
  const ProvenanceDiff& p = *r.provenance;
  const bool fingerprints_equal = p.a.training_fingerprint && p.b.training_fingerprint &&
                                  *p.a.training_fingerprint == *p.b.training_fingerprint;
  const FieldDiff* recorded = p.Find("model_files");
  const bool recorded_digests_differ = recorded != nullptr && !recorded->equal;
  const bool shard_counts_differ = p.a.effective_shard_count != p.b.effective_shard_count;
  const std::string shards = "(A " + ShardText(p.a.effective_shard_count) + ", B " +
                             ShardText(p.b.effective_shard_count) + ")";
  const std::vector<std::string> other = p.OtherNumericDifferences();

  if (model_files_differing.empty()) {
    if (!p.Identical()) {
      std::string text =
          other_differing.empty()
              ? "Every model file is byte-identical; only provenance.json differs."
              : "Every model file " + (r.model_dir.empty() ? std::string("at the top level") : "in " + r.model_dir) +
                    " is byte-identical; of the model only " + r.model_dir + "provenance.json differs (" +
                    std::to_string(other_differing.size()) + " other files differ too, listed below).";
      if (shard_counts_differ && p.a.reduction == std::optional<std::string>("exact") &&
          p.b.reduction == std::optional<std::string>("exact")) {
        text += " Both models were trained with exact reduction and different effective shard counts " + shards +
                ": identical model bytes are what docs/contract.md promises for exact reduction.";
      }
      r.explanations.push_back({"provenance-only", text});
    }
    return;
  }

  if (fingerprints_equal) {
    if (recorded_digests_differ) {
      r.explanations.push_back(
          {"reproducibility-failure",
           "Reproducibility failure: both provenance.json files record the same training fingerprint (" +
               *p.a.training_fingerprint +
               "), which covers version, architecture, compiler, binary and libraries, configuration, manifest, "
               "input model, requested and effective shard counts, reduction and stop rule "
               "(trainer/provenance/provenance.cpp), yet they record different model file digests (" +
               Join(recorded->details, "; ") + "): the same training produced different bytes."});
    } else if (r.digest_mismatches.empty()) {
      r.explanations.push_back(
          {"unrecorded-files-differ",
           "The training fingerprints and the recorded model file digests are equal, and every recorded file matches "
           "them; the files that differ (" + Join(model_files_differing) +
               ") are not among those provenance.json records, so provenance cannot say where the difference "
               "comes from."});
    } else {
      r.explanations.push_back(
          {"not-from-training",
           "The training fingerprints are equal and both provenance.json files record the same model file digests, "
           "yet the model files differ: the difference was made after training (see the digest mismatches), not by "
           "training; this is not evidence of a reproducibility failure."});
    }
    return;
  }
  if (shard_counts_differ && p.a.reduction == std::optional<std::string>("float32") &&
      p.b.reduction == std::optional<std::string>("float32")) {
    std::string text = "Expected cause: both models were trained with float32 reduction and different effective "
                       "shard counts " + shards +
                       "; float32 partial sums are added in a different grouping for each shard count "
                       "(docs/contract.md), so the floating-point parameters are expected to differ.";
    if (other.empty()) {
      text += " No other field hashed into the training fingerprint differs.";
    } else {
      text += " Other fields that can change the numbers also differ: " + Join(other) + ".";
    }
    r.explanations.push_back({"float32-shard-count", text});
    return;
  }
  if (shard_counts_differ && p.a.reduction == std::optional<std::string>("exact") &&
      p.b.reduction == std::optional<std::string>("exact") && other.empty() && r.digest_mismatches.empty()) {
    r.explanations.push_back(
        {"exact-contract-violation",
         "Unexpected: both models were trained with exact reduction, which docs/contract.md promises gives the same "
         "bytes for every shard count " + shards +
             ", no other field hashed into the training fingerprint differs, and each model matches the digests its "
             "provenance.json records; yet the model files differ."});
    return;
  }
  if (!other.empty()) {
    std::string text = "The provenance records differences that can change the numbers: " + Join(other) + ".";
    const FieldDiff* config = p.Find("inputs.config");
    if (config != nullptr && !config->equal && !config->details.empty()) {
      text += " Configuration lines: " + Join(config->details, "; ") + ".";
    }
    r.explanations.push_back({"inputs-differ", text});
    return;
  }
  if (r.digest_mismatches.empty()) {
    std::vector<std::string> fingerprinted;
    for (const FieldDiff& f : p.fields) {
      if (!f.equal && f.affects_numbers) fingerprinted.push_back(f.field);
    }
    r.explanations.push_back(
        {"unexplained", "No recorded difference explains the model differences: of the fields hashed into the "
                        "training fingerprint, " +
                            (fingerprinted.empty() ? std::string("none differs") : "only " + Join(fingerprinted) + " differ") +
                            ", and each model matches the digests its provenance.json records."});
  }
}

}  // namespace

CompareReport CompareModels(const fs::path& a, const fs::path& b, const Tolerance& tolerance) {
  for (const fs::path& root : {a, b}) {
    std::error_code ec;
    const fs::file_status status = fs::status(root, ec);
    if (status.type() == fs::file_type::not_found) throw AuditError(root.string() + ": no such directory");
    if (ec) throw AuditError(root.string() + ": cannot examine (" + ec.message() + ")");
    if (status.type() != fs::file_type::directory) throw AuditError(root.string() + ": not a directory");
  }
  CompareReport r;
  r.a = a.string();
  r.b = b.string();
  r.tolerance = tolerance;
  const BytesReport bytes = CompareBytes(a, b, /*ignore_telemetry=*/false);
  for (const std::string& path : bytes.identical) {
    FileEntry f;
    f.path = path;
    f.status = "identical";
    f.a = SideOf(a / path);
    f.b = f.a;
    r.files.push_back(std::move(f));
  }
  for (const BytesEntry& e : bytes.entries) {
    FileEntry f;
    f.path = e.path;
    f.status = StatusName(e.status);
    f.reason = e.reason;
    if (e.a.kind != EntryKind::kMissing) f.a = SideFromBytes(e.a, a / e.path);
    if (e.b.kind != EntryKind::kMissing) f.b = SideFromBytes(e.b, b / e.path);
    r.files.push_back(std::move(f));
  }
  std::sort(r.files.begin(), r.files.end(), [](const FileEntry& x, const FileEntry& y) { return x.path < y.path; });

  const auto has = [&](const std::string& path) {
    return std::any_of(r.files.begin(), r.files.end(), [&](const FileEntry& f) { return f.path == path; });
  };
  r.model_dir = !has("provenance.json") && has("model/provenance.json") ? "model/" : "";
  try {
    for (FileEntry& f : r.files) f.file_class = ClassOf(f.path, f, a, b, r.model_dir);

    // mdef: every mdef must parse; labels when the model's is the same on both sides, its state
    // tying when it differs. One parsed mdef at a time: the tying is compared on compact records.
    for (const FileEntry& f : r.files) {
      if (BaseName(f.path) != "mdef") continue;
      if (IsFile(f.a)) CheckMdefSize(a / f.path, f.a->size);
      if (IsFile(f.b)) CheckMdefSize(b / f.path, f.b->size);
      const bool model_mdef = f.path == r.model_dir + "mdef" && IsFile(f.a) && IsFile(f.b);
      if (model_mdef && f.status == "identical") {
        StateLabels labels;
        LabelStates(Mdef::Load((a / f.path).string()), labels);
        r.state_labels = std::move(labels.state_labels);
        r.tmat_labels = std::move(labels.tmat_labels);
      } else if (model_mdef) {
        PhoneNames names;
        StateLabels labels;
        TyingRecords records_a;
        {
          const Mdef mdef = Mdef::Load((a / f.path).string());
          records_a = TyingRecordsOf(mdef, names);
          LabelStates(mdef, labels);
        }
        const TyingRecords records_b = TyingRecordsOf(Mdef::Load((b / f.path).string()), names);
        r.state_tying = CompareStateTying(records_a, records_b);
        if (r.state_tying->senones.same) r.state_labels = std::move(labels.state_labels);
        if (r.state_tying->tmats.same) r.tmat_labels = std::move(labels.tmat_labels);
      } else {
        if (IsFile(f.a)) Mdef::Load((a / f.path).string());
        if (IsFile(f.b)) Mdef::Load((b / f.path).string());
      }
    }
    for (const FileEntry& f : r.files) {
      if (f.file_class == FileClass::kParameters) {
        const std::optional<ParamKind> kind = ParamKindOfName(BaseName(f.path));
        if (IsFile(f.a) && IsFile(f.b)) {
          StatePairing pairing;
          if (r.state_tying && r.IsModelFile(f.path)) {
            const bool tmat = *kind == ParamKind::kTransitions;
            const GroupAlignment& g = tmat ? r.state_tying->tmats : r.state_tying->senones;
            // Renumbered ids only: with none, position by position is the same pairing.
            if (g.same && g.renumbered > 0) {
              pairing.b_of_a = &g.b_of_a;
              pairing.aligned_by = tmat ? "tmat" : "senone";
            } else if (!g.same) {
              pairing.not_compared =
                  tmat ? "not compared element by element: the transition matrix tying differs (" + TmatVerdict(g) +
                             "), so transition matrix i of A and i of B are not used by the same phones"
                       : "not compared element by element: the state tying differs (" + SenoneVerdict(g) +
                             "), so state i of A and state i of B are not the same triphone states";
            }
          }
          r.parameters.push_back(
              DiffParamFiles((a / f.path).string(), (b / f.path).string(), f.path, *kind, tolerance, pairing));
        } else {
          if (IsFile(f.a)) CheckParamFile((a / f.path).string(), *kind);
          if (IsFile(f.b)) CheckParamFile((b / f.path).string(), *kind);
        }
      } else if (f.file_class == FileClass::kText && f.status == "different" && IsFile(f.a) && IsFile(f.b)) {
        if (f.a->size > kMaxLineDiffBytes || f.b->size > kMaxLineDiffBytes) {
          const std::optional<std::uint64_t> offset = FirstDifference(a / f.path, b / f.path);
          r.text_diffs.push_back(
              {f.path, LineDiff{},
               "not line-diffed: larger than the " + std::to_string(kMaxLineDiffBytes >> 20) +
                   " MiB limit of the line diff (A " + std::to_string(f.a->size) + " bytes, B " +
                   std::to_string(f.b->size) + " bytes); compared as bytes only, first difference at byte " +
                   (offset ? std::to_string(*offset) : std::string("none"))});
        } else {
          r.text_diffs.push_back({f.path, DiffLines(ReadFileText(a / f.path), ReadFileText(b / f.path)), ""});
        }
      } else if (f.file_class == FileClass::kProvenance) {
        r.provenance_in_a = IsFile(f.a);
        r.provenance_in_b = IsFile(f.b);
        if (IsFile(f.a) && IsFile(f.b)) {
          r.provenance = DiffProvenanceFiles((a / f.path).string(), (b / f.path).string());
        } else {
          if (IsFile(f.a)) ProvenanceFactsOf(ReadProvenance((a / f.path).string()), (a / f.path).string());
          if (IsFile(f.b)) ProvenanceFactsOf(ReadProvenance((b / f.path).string()), (b / f.path).string());
        }
      }
    }
    // Each side's model files against the digests its own provenance.json records.
    for (const auto& [side, root] : {std::pair{'A', &a}, std::pair{'B', &b}}) {
      const bool present = side == 'A' ? r.provenance_in_a : r.provenance_in_b;
      if (!present) continue;
      const std::string path = (*root / (r.model_dir + "provenance.json")).string();
      const ProvenanceFacts facts = r.provenance ? (side == 'A' ? r.provenance->a : r.provenance->b)
                                                 : ProvenanceFactsOf(ReadProvenance(path), path);
      for (const auto& [file, recorded] : facts.model_files) {
        const std::string relative = r.model_dir + file;
        const auto entry = std::find_if(r.files.begin(), r.files.end(),
                                        [&](const FileEntry& e) { return e.path == relative; });
        const std::optional<FileSide>* s =
            entry == r.files.end() ? nullptr : (side == 'A' ? &entry->a : &entry->b);
        const std::string actual = s && IsFile(*s) ? (*s)->sha256 : "";
        if (actual != recorded) r.digest_mismatches.push_back({side, file, recorded, actual});
      }
    }
  } catch (const InputError& e) {  // the trainer's readers (Mdef::Load, ReadGaussianFile, ReadFileText, ...)
    throw AuditError(e.what());
  }
  Explain(r);
  return r;
}

}  // namespace pstrain::audit
