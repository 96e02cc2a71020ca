// `audit compare`: whether two mdefs tie the same triphone states together, whatever numbers they
// give the groups. Each senone of an mdef is the set of (base, left, right, position, emitting
// state) triphone states that use it (CI phones' states included); each tmat the set of (base,
// left, right, position) phones. Two mdefs have the same tying when these sets of groups are equal;
// then each senone (tmat) of A is paired with the senone (tmat) of B that holds the same group, and
// parameters are compared through that pairing. Otherwise the report counts the triphone states
// whose group differs. The mdefs are reduced to compact records one at a time, so no two parsed
// mdefs are held at once.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "formats/mdef.h"

namespace pstrain::audit {

// One member of a group: a triphone state (k = emitting state) or a phone (k = 0) named by ids of
// a PhoneNames dictionary shared by both sides, and the group it is in (senone or tmat id).
struct TyingMember {
  std::uint32_t base = 0, left = 0, right = 0, k = 0;
  std::uint8_t posn = 0;
  std::uint32_t group = 0;
};

// Phone names -> small ids, shared by A's and B's records so that equal names get equal ids.
class PhoneNames {
 public:
  std::uint32_t Id(std::string_view name);

 private:
  std::map<std::string, std::uint32_t, std::less<>> ids_;
};

// An mdef's groups: senones over triphone states, tmats over phones; members sorted by name.
struct TyingRecords {
  std::uint32_t n_senones = 0, n_tmats = 0;
  std::vector<TyingMember> states, phones;
};
TyingRecords TyingRecordsOf(const Mdef& mdef, PhoneNames& names);

// How the groups of A and B correspond.
struct GroupAlignment {
  std::uint32_t ids_a = 0, ids_b = 0;      // senones (tmats) declared by each mdef
  std::uint64_t members = 0;               // members on either side (T)
  std::uint64_t in_different_group = 0;    // members whose group differs, or that one side lacks (K)
  std::uint32_t same_groups = 0;           // groups (of A) with exactly the same members in B
  std::uint32_t unused_a = 0, unused_b = 0;  // ids that no member uses
  // Same tying: K == 0 (the groups are equal as sets). Then, when ids_a == ids_b, b_of_a pairs every
  // id of A with B's (ids no member uses are paired in ascending order) and renumbered counts the
  // ids whose number differs.
  bool same = false;
  std::vector<std::uint32_t> b_of_a;
  std::uint32_t renumbered = 0;
};
GroupAlignment AlignGroups(const std::vector<TyingMember>& a, std::uint32_t ids_a, const std::vector<TyingMember>& b,
                           std::uint32_t ids_b);

struct StateTying {
  GroupAlignment senones, tmats;
};
StateTying CompareStateTying(const TyingRecords& a, const TyingRecords& b);

// "same state tying, N of M senones renumbered" or "different state tying: K of T triphone states
// are in a different group" (the exact sentences docs/audit.md quotes), and the same for tmats
// ("same transition matrix tying, N of M transition matrices renumbered"; "different transition
// matrix tying: K of T phones are in a different group").
std::string SenoneVerdict(const GroupAlignment& senones);
std::string TmatVerdict(const GroupAlignment& tmats);

}  // namespace pstrain::audit
