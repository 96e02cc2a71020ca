// StringIndex (trainer/common/string_index.h): ids found by their strings across the table's
// growth; equal strings refused; strings that differ by a byte, a length or a NUL kept apart.
#include "common/string_index.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace pstrain {
namespace {

TEST(StringIndexTest, FindsEveryIdAcrossGrowthAndRefusesEqualStrings) {
  std::vector<std::string> texts;
  StringIndex index;
  const auto text_of = [&texts](std::uint32_t id) -> const std::string& { return texts[id]; };
  EXPECT_FALSE(index.Find("anything", text_of).has_value());
  // Past several doublings (64, 128, ... slots), with names that share long prefixes, differ only
  // in length, or hold a NUL.
  for (std::uint32_t id = 0; id < 1000; ++id) {
    std::string text = "SHARED_PREFIX_" + std::string(id % 7, 'x');
    text += std::to_string(id);
    if (id % 10 == 3) text += '\0';
    texts.push_back(text);
    ASSERT_TRUE(index.Insert(id, texts.back(), text_of)) << id;
  }
  for (std::uint32_t id = 0; id < 1000; ++id) {
    ASSERT_EQ(index.Find(texts[id], text_of), std::optional<std::uint32_t>(id)) << id;
    EXPECT_FALSE(index.Find(texts[id] + "y", text_of).has_value()) << id;
    EXPECT_FALSE(index.Find(std::string_view(texts[id]).substr(1), text_of).has_value()) << id;
  }
  EXPECT_FALSE(index.Find("", text_of).has_value());
  // An equal string under another id is refused and adds nothing.
  texts.push_back(texts[417]);
  EXPECT_FALSE(index.Insert(1000, texts.back(), text_of));
  EXPECT_EQ(index.Find(texts[417], text_of), std::optional<std::uint32_t>(417));
  index.Clear();
  EXPECT_FALSE(index.Find(texts[417], text_of).has_value());
  EXPECT_TRUE(index.Insert(5, texts[5], text_of));
  EXPECT_EQ(index.Find(texts[5], text_of), std::optional<std::uint32_t>(5));
}

}  // namespace
}  // namespace pstrain
