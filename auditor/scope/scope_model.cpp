// Describing checks and their ledger subjects, and the FileScope JSON the front-end process returns.
#include "scope/scope_model.h"

#include <boost/json.hpp>
#include <cstdint>

namespace pstrain::audit {

std::string DescribeCheck(const Check& check) {
  std::string subjects;
  if (check.subjects.braced) {
    for (const SourceValue& v : check.subjects.items) {
      subjects += (subjects.empty() ? "" : ", ") + (v.literal ? v.text : "`" + v.text + "`");
    }
  } else {
    subjects = "`" + (check.subjects.expression.empty() ? check.arguments : check.subjects.expression) + "`";
  }
  return check.helper + "(" + subjects + ")";
}

std::optional<std::vector<std::optional<std::string>>> LedgerSubjectsPattern(const Check& check) {
  if (!check.subjects.braced) return std::nullopt;
  std::vector<std::optional<std::string>> pattern;
  for (const SourceValue& v : check.subjects.items) {
    pattern.push_back(v.literal ? std::optional<std::string>(v.text) : std::nullopt);
  }
  return pattern;
}

}  // namespace pstrain::audit

// ---- FileScope <-> JSON (the front-end process's result) ---------------------------------------

namespace pstrain::audit {

namespace {

namespace json = boost::json;

json::value ValueJson(const SourceValue& v) { return json::array{v.literal, v.text}; }
SourceValue ValueFrom(const json::value& j) {
  const json::array& a = j.as_array();
  return {a.at(0).as_bool(), std::string(a.at(1).as_string())};
}
json::value ListJson(const ValueList& l) {
  json::array items;
  for (const SourceValue& v : l.items) items.push_back(ValueJson(v));
  return json::object{{"braced", l.braced}, {"items", std::move(items)}, {"expression", l.expression}};
}
ValueList ListFrom(const json::value& j) {
  const json::object& o = j.as_object();
  ValueList l;
  l.braced = o.at("braced").as_bool();
  for (const json::value& v : o.at("items").as_array()) l.items.push_back(ValueFrom(v));
  l.expression = std::string(o.at("expression").as_string());
  return l;
}
json::value OptionalValue(const std::optional<SourceValue>& v) { return v ? ValueJson(*v) : json::value(nullptr); }
std::optional<SourceValue> OptionalValueFrom(const json::value& j) {
  if (j.is_null()) return std::nullopt;
  return ValueFrom(j);
}
json::value NotCountedJson(const std::vector<NotCounted>& items) {
  json::array a;
  for (const NotCounted& n : items) a.push_back(json::array{n.line, n.what, n.reason});
  return a;
}
std::vector<NotCounted> NotCountedFrom(const json::value& j) {
  std::vector<NotCounted> out;
  for (const json::value& v : j.as_array()) {
    const json::array& a = v.as_array();
    out.push_back({static_cast<std::size_t>(a.at(0).to_number<std::uint64_t>()), std::string(a.at(1).as_string()),
                   std::string(a.at(2).as_string())});
  }
  return out;
}
std::string Str(const json::object& o, const char* key) { return std::string(o.at(key).as_string()); }
std::size_t Num(const json::object& o, const char* key) { return static_cast<std::size_t>(o.at(key).to_number<std::uint64_t>()); }

}  // namespace

std::string FileScopeToJson(const FileScope& scope) {
  json::array gates;
  for (const GateScope& g : scope.gates) {
    json::array declarations, checks;
    for (const Declaration& d : g.declarations) {
      declarations.push_back(json::object{{"line", d.line},
                                          {"variable", d.variable},
                                          {"argument", d.argument},
                                          {"structured", d.structured},
                                          {"kind", OptionalValue(d.kind)},
                                          {"passes", OptionalValue(d.passes)},
                                          {"limitation", OptionalValue(d.limitation)},
                                          {"shard_counts", d.shard_counts ? ListJson(*d.shard_counts) : json::value(nullptr)}});
    }
    for (const Check& c : g.checks) {
      json::array parameters;
      for (const auto& [name, value] : c.parameters) parameters.push_back(json::array{name, ValueJson(value)});
      checks.push_back(json::object{{"helper", c.helper},       {"line", c.line},           {"column", c.column},
                                    {"file", c.file},           {"site_path", c.site_path}, {"if_reached", c.if_reached},
                                    {"receiver", c.receiver},   {"subjects", ListJson(c.subjects)},
                                    {"parameters", std::move(parameters)},                  {"arguments", c.arguments},
                                    {"via_macro", c.via_macro}, {"via_function", c.via_function}});
    }
    gates.push_back(json::object{{"file", g.file},
                                 {"line", g.line},
                                 {"macro", g.macro},
                                 {"suite", g.suite},
                                 {"name", g.name},
                                 {"declarations", std::move(declarations)},
                                 {"checks", std::move(checks)},
                                 {"not_counted", NotCountedJson(g.not_counted)},
                                 {"bare_assertions", g.bare_assertions}});
  }
  json::array notes;
  for (const std::string& n : scope.notes) notes.emplace_back(n);
  return json::serialize(json::object{{"path", scope.path},
                                      {"gates", std::move(gates)},
                                      {"unattributed", NotCountedJson(scope.unattributed)},
                                      {"notes", std::move(notes)}});
}

FileScope FileScopeFromJson(const std::string& text) {
  const json::object root = json::parse(text).as_object();
  FileScope scope;
  scope.path = Str(root, "path");
  for (const json::value& gv : root.at("gates").as_array()) {
    const json::object& go = gv.as_object();
    GateScope g;
    g.file = Str(go, "file");
    g.line = Num(go, "line");
    g.macro = Str(go, "macro");
    g.suite = Str(go, "suite");
    g.name = Str(go, "name");
    for (const json::value& dv : go.at("declarations").as_array()) {
      const json::object& o = dv.as_object();
      Declaration d;
      d.line = Num(o, "line");
      d.variable = Str(o, "variable");
      d.argument = Str(o, "argument");
      d.structured = o.at("structured").as_bool();
      d.kind = OptionalValueFrom(o.at("kind"));
      d.passes = OptionalValueFrom(o.at("passes"));
      d.limitation = OptionalValueFrom(o.at("limitation"));
      if (!o.at("shard_counts").is_null()) d.shard_counts = ListFrom(o.at("shard_counts"));
      g.declarations.push_back(std::move(d));
    }
    for (const json::value& cv : go.at("checks").as_array()) {
      const json::object& o = cv.as_object();
      Check c;
      c.helper = Str(o, "helper");
      c.line = Num(o, "line");
      c.column = Num(o, "column");
      c.file = Str(o, "file");
      c.site_path = Str(o, "site_path");
      c.if_reached = Str(o, "if_reached");
      c.receiver = Str(o, "receiver");
      c.subjects = ListFrom(o.at("subjects"));
      for (const json::value& p : o.at("parameters").as_array()) {
        c.parameters.emplace_back(std::string(p.as_array().at(0).as_string()), ValueFrom(p.as_array().at(1)));
      }
      c.arguments = Str(o, "arguments");
      c.via_macro = Str(o, "via_macro");
      c.via_function = Str(o, "via_function");
      g.checks.push_back(std::move(c));
    }
    g.not_counted = NotCountedFrom(go.at("not_counted"));
    g.bare_assertions = Num(go, "bare_assertions");
    scope.gates.push_back(std::move(g));
  }
  scope.unattributed = NotCountedFrom(root.at("unattributed"));
  for (const json::value& n : root.at("notes").as_array()) scope.notes.emplace_back(n.as_string());
  return scope;
}

}  // namespace pstrain::audit
