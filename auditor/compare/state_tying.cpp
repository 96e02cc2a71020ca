// `audit compare`: the state tying of two mdefs, compared by triphone membership (state_tying.h).
#include "compare/state_tying.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace pstrain::audit {

namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

bool NameLess(const TyingMember& x, const TyingMember& y) {
  return std::tie(x.base, x.left, x.right, x.posn, x.k) < std::tie(y.base, y.left, y.right, y.posn, y.k);
}

std::string Count(std::uint64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::uint32_t PhoneNames::Id(std::string_view name) {
  const auto it = ids_.find(name);
  if (it != ids_.end()) return it->second;
  return ids_.emplace(std::string(name), static_cast<std::uint32_t>(ids_.size())).first->second;
}

TyingRecords TyingRecordsOf(const Mdef& mdef, PhoneNames& names) {
  TyingRecords r;
  r.n_senones = mdef.n_tied_state();
  r.n_tmats = mdef.n_tied_tmat();
  r.phones.reserve(mdef.phones().size());
  r.states.reserve(mdef.phones().size() * std::size_t(mdef.n_emit_state()));
  for (const MdefPhone& phone : mdef.phones()) {
    TyingMember m;
    m.base = names.Id(mdef.Name(phone.base));
    m.left = names.Id(mdef.Name(phone.left));
    m.right = names.Id(mdef.Name(phone.right));
    m.posn = static_cast<std::uint8_t>(phone.posn);
    m.group = phone.tmat;
    r.phones.push_back(m);
    const std::span<const std::uint32_t> senones = mdef.Senones(phone);
    for (std::size_t k = 0; k < senones.size(); ++k) {
      m.k = static_cast<std::uint32_t>(k);
      m.group = senones[k];
      r.states.push_back(m);
    }
  }
  // The reader rejects a phone defined twice, so names are unique and the order is total.
  std::sort(r.phones.begin(), r.phones.end(), NameLess);
  std::sort(r.states.begin(), r.states.end(), NameLess);
  return r;
}

GroupAlignment AlignGroups(const std::vector<TyingMember>& a, std::uint32_t ids_a, const std::vector<TyingMember>& b,
                           std::uint32_t ids_b) {
  GroupAlignment out;
  out.ids_a = ids_a;
  out.ids_b = ids_b;
  // image[x]: the one group of B that x's members are in (kNone: none yet); broken_a[x]: x's members
  // are in more than one group of B, or one is missing from B. The same from B's side.
  std::vector<std::uint32_t> image(ids_a, kNone), preimage(ids_b, kNone);
  std::vector<bool> broken_a(ids_a, false), broken_b(ids_b, false);
  std::vector<std::uint64_t> size_a(ids_a, 0), size_b(ids_b, 0);
  // A merge of the two sorted member lists.
  std::size_t at_a = 0, at_b = 0;
  while (at_a < a.size() || at_b < b.size()) {
    ++out.members;
    if (at_b == b.size() || (at_a < a.size() && NameLess(a[at_a], b[at_b]))) {
      broken_a[a[at_a].group] = true;
      ++size_a[a[at_a++].group];
    } else if (at_a == a.size() || NameLess(b[at_b], a[at_a])) {
      broken_b[b[at_b].group] = true;
      ++size_b[b[at_b++].group];
    } else {
      const std::uint32_t x = a[at_a++].group, y = b[at_b++].group;
      ++size_a[x];
      ++size_b[y];
      if (image[x] == kNone) image[x] = y;
      if (image[x] != y) broken_a[x] = true;
      if (preimage[y] == kNone) preimage[y] = x;
      if (preimage[y] != x) broken_b[y] = true;
    }
  }
  std::uint64_t kept = 0;
  for (std::uint32_t x = 0; x < ids_a; ++x) {
    if (size_a[x] == 0) {
      ++out.unused_a;
      continue;
    }
    const std::uint32_t y = image[x];
    if (!broken_a[x] && y != kNone && !broken_b[y] && preimage[y] == x) {
      ++out.same_groups;
      kept += size_a[x];
    }
  }
  for (std::uint32_t y = 0; y < ids_b; ++y) out.unused_b += size_b[y] == 0 ? 1 : 0;
  out.in_different_group = out.members - kept;
  out.same = out.in_different_group == 0;
  if (out.same && ids_a == ids_b) {
    // Every used id of A has its image; the unused ones (as many on both sides, since the used ones
    // pair one to one) are paired in ascending order.
    out.b_of_a = image;
    std::uint32_t next_unused_b = 0;
    for (std::uint32_t x = 0; x < ids_a; ++x) {
      if (size_a[x] != 0) continue;
      while (size_b[next_unused_b] != 0) ++next_unused_b;
      out.b_of_a[x] = next_unused_b++;
    }
    for (std::uint32_t x = 0; x < ids_a; ++x) out.renumbered += out.b_of_a[x] != x ? 1 : 0;
  }
  return out;
}

StateTying CompareStateTying(const TyingRecords& a, const TyingRecords& b) {
  return {AlignGroups(a.states, a.n_senones, b.states, b.n_senones),
          AlignGroups(a.phones, a.n_tmats, b.phones, b.n_tmats)};
}

namespace {

// `id`/`ids`: "senone"/"senones"; `member`/`members`: "triphone state"/"triphone states".
std::string Verdict(const GroupAlignment& g, const std::string& tying, const std::string& id, const std::string& ids,
                    const std::string& member, const std::string& members) {
  std::string s;
  if (g.same) {
    s = "same " + tying;
    if (g.ids_a == g.ids_b) {
      s += ", " + std::to_string(g.renumbered) + " of " + std::to_string(g.ids_a) + " " + ids + " renumbered";
    } else {
      s += ", but A declares " + std::to_string(g.ids_a) + " " + ids + " and B " + std::to_string(g.ids_b);
    }
  } else {
    s = "different " + tying + ": " + std::to_string(g.in_different_group) + " of " + std::to_string(g.members) + " " +
        members + " are in a different group";
  }
  if (g.unused_a != 0 || g.unused_b != 0) {
    s += " (" + Count(g.unused_a, id, ids) + " of A and " + std::to_string(g.unused_b) + " of B used by no " + member +
         (g.same && g.ids_a == g.ids_b ? ", paired in ascending order" : "") + ")";
  }
  return s;
}

}  // namespace

std::string SenoneVerdict(const GroupAlignment& senones) {
  return Verdict(senones, "state tying", "senone", "senones", "triphone state", "triphone states");
}

std::string TmatVerdict(const GroupAlignment& tmats) {
  return Verdict(tmats, "transition matrix tying", "transition matrix", "transition matrices", "phone", "phones");
}

}  // namespace pstrain::audit
