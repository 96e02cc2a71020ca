// The shared precompiled header of `audit scope`: which system headers the sources of one flag
// set all open with, building it with libclang, and checking that it stands in for a source's own.
#include "scope/scope_pch.h"

#include <stdlib.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "report/audit_error.h"

namespace pstrain::audit {

namespace fs = std::filesystem;
namespace json = boost::json;

std::vector<std::string> LeadingAngledIncludes(const TranslationUnit& unit, const std::string& file) {
  const CXTranslationUnit tu = unit.get();
  const CXFile f = clang_getFile(tu, file.c_str());
  if (f == nullptr) return {};
  std::size_t size = 0;
  const char* text = clang_getFileContents(tu, f, &size);
  if (text == nullptr || size == 0) return {};
  CXToken* tokens = nullptr;
  unsigned n = 0;
  clang_tokenize(tu, clang_getRange(clang_getLocationForOffset(tu, f, 0), clang_getLocationForOffset(tu, f, static_cast<unsigned>(size))),
                 &tokens, &n);
  std::vector<CXToken> code;  // comments are tokens too
  for (unsigned i = 0; i < n; ++i) {
    if (clang_getTokenKind(tokens[i]) != CXToken_Comment) code.push_back(tokens[i]);
  }
  auto spelling = [&](std::size_t i) { return Text(clang_getTokenSpelling(tu, code[i])); };
  auto where = [&](std::size_t i, bool end) {
    const CXSourceRange r = clang_getTokenExtent(tu, code[i]);
    unsigned line = 0, offset = 0;
    clang_getSpellingLocation(end ? clang_getRangeEnd(r) : clang_getRangeStart(r), nullptr, &line, nullptr, &offset);
    return std::pair{line, offset};
  };
  std::vector<std::string> out;
  const std::size_t m = code.size();
  std::size_t i = 0;
  while (i + 3 < m && spelling(i) == "#" && spelling(i + 1) == "include" && spelling(i + 2) == "<") {
    const unsigned line = where(i, false).first;
    std::size_t j = i + 3;
    while (j < m && spelling(j) != ">" && where(j, false).first == line) ++j;
    if (j >= m || spelling(j) != ">" || where(j, false).first != line) break;
    const unsigned from = where(i + 2, true).second, to = where(j, false).second;
    if (to <= from || to > size) break;
    out.emplace_back(text + from, to - from);
    i = j + 1;
  }
  clang_disposeTokens(tu, tokens, n);
  return out;
}

bool LeadingIncludesCover(const TranslationUnit& unit, const std::string& file, const std::vector<std::string>& headers) {
  const std::vector<std::string> leading = LeadingAngledIncludes(unit, file);
  return std::all_of(headers.begin(), headers.end(),
                     [&](const std::string& h) { return std::find(leading.begin(), leading.end(), h) != leading.end(); });
}

namespace {

// Those of `headers` that the shared header (`unit`) includes from outside the system include paths.
std::vector<std::string> NotSystemHeaders(const TranslationUnit& unit, const std::vector<std::string>& headers) {
  struct Data {
    CXTranslationUnit tu;
    std::vector<std::string> included_not_system;
  } data{unit.get(), {}};
  clang_getInclusions(
      unit.get(),
      [](CXFile included, CXSourceLocation*, unsigned depth, CXClientData client) {
        auto* d = static_cast<Data*>(client);
        if (depth != 1) return;  // only the synthetic header's own includes
        if (clang_Location_isInSystemHeader(clang_getLocationForOffset(d->tu, included, 0)) == 0) {
          d->included_not_system.push_back(Text(clang_getFileName(included)));
        }
      },
      &data);
  std::vector<std::string> out;
  for (const std::string& h : headers) {
    for (const std::string& path : data.included_not_system) {
      const std::string tail = "/" + h;
      if (path.size() > tail.size() && path.compare(path.size() - tail.size(), tail.size(), tail) == 0) out.push_back(h);
    }
  }
  return out;
}

void WriteHeader(const fs::path& file, const std::vector<std::string>& headers) {
  std::ofstream out(file);
  out << "// audit scope: the system headers the gate sources open with\n";
  for (const std::string& h : headers) out << "#include <" << h << ">\n";
  out.close();
  if (!out) throw AuditErrorIn(file.string(), "cannot write the shared header");
}

}  // namespace

std::optional<SharedPch> BuildSharedPch(const std::vector<fs::path>& sources, const std::vector<std::string>& arguments,
                                        const fs::path& dir) {
  SharedPch pch;
  std::vector<std::vector<std::string>> leading;
  for (const fs::path& source : sources) {
    ParseMode single;
    single.single_file = true;
    const TranslationUnit unit(source, arguments, single);
    leading.push_back(LeadingAngledIncludes(unit, source.string()));
  }
  const std::vector<std::string>* first = nullptr;
  std::size_t users = 0;
  for (const std::vector<std::string>& l : leading) {
    if (l.empty()) continue;
    if (first == nullptr) first = &l;
    ++users;
  }
  if (users < 2) return std::nullopt;
  for (const std::string& h : *first) {
    const bool everywhere = std::all_of(leading.begin(), leading.end(), [&](const std::vector<std::string>& l) {
      return l.empty() || std::find(l.begin(), l.end(), h) != l.end();
    });
    if (everywhere && std::find(pch.headers.begin(), pch.headers.end(), h) == pch.headers.end()) pch.headers.push_back(h);
  }
  for (const std::vector<std::string>& l : leading) pch.applies.push_back(!l.empty());
  // A header of the project found through -I is not order-independent like a system header: out.
  for (int attempt = 0; attempt < 2 && !pch.headers.empty(); ++attempt) {
    const fs::path header = dir / "shared.h";
    WriteHeader(header, pch.headers);
    ParseMode for_pch;
    for_pch.for_pch = true;
    const TranslationUnit unit(header, arguments, for_pch);
    const std::vector<std::string> out = NotSystemHeaders(unit, pch.headers);
    if (out.empty()) {
      pch.file = dir / "shared.pch";
      unit.Save(pch.file);
      return pch;
    }
    std::erase_if(pch.headers, [&](const std::string& h) { return std::find(out.begin(), out.end(), h) != out.end(); });
  }
  return std::nullopt;
}

std::string SharedPchToJson(const std::optional<SharedPch>& pch) {
  if (!pch) return "null";
  json::object o;
  o["file"] = pch->file.string();
  json::array headers, applies;
  for (const std::string& h : pch->headers) headers.emplace_back(h);
  for (bool a : pch->applies) applies.emplace_back(a);
  o["headers"] = std::move(headers);
  o["applies"] = std::move(applies);
  return json::serialize(o);
}

std::optional<SharedPch> SharedPchFromJson(const std::string& text) {
  const json::value v = json::parse(text);
  if (v.is_null()) return std::nullopt;
  const json::object& o = v.as_object();
  SharedPch pch;
  pch.file = std::string(o.at("file").as_string());
  for (const json::value& h : o.at("headers").as_array()) pch.headers.emplace_back(h.as_string());
  for (const json::value& a : o.at("applies").as_array()) pch.applies.push_back(a.as_bool());
  return pch;
}

TemporaryDirectory::TemporaryDirectory(const std::string& prefix) {
  std::error_code ec;
  fs::path base = fs::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string pattern = (base / (prefix + "XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) throw AuditErrorIn(pattern, std::string("cannot create a temporary directory: ") + std::strerror(errno));
  path_ = pattern;
}

TemporaryDirectory::~TemporaryDirectory() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace pstrain::audit
