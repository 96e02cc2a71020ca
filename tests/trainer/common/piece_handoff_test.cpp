// PieceHandoff (common/piece_handoff.h): every piece reaches every user, in order and whole, with
// more pieces than buffers and whatever number of pieces a waiting side is woken for; the maker
// waits while any of its users holds every buffer; a maker that stops makes the user's Take throw,
// a user that stops makes the maker's NextBuffer return nullptr, and neither side waits for ever;
// UseEvery, a whole user's side, stops the handoff on any error.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <future>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/piece_handoff.h"

namespace pstrain {
namespace {

TEST(PieceHandoff, EveryPieceReachesEveryUserInOrderWithMoreThanItsBuffers) {
  for (const std::size_t slots : {std::size_t{3}, std::size_t{8}, std::size_t{16}}) {  // woken for 1, 2 and 4 pieces
    for (const std::size_t users : {std::size_t{1}, std::size_t{2}}) {
      SCOPED_TRACE(std::to_string(slots) + " slots, " + std::to_string(users) + " users");
      PieceHandoff handoff(slots, 16, users);
      std::vector<std::future<std::vector<std::uint8_t>>> used;
      for (std::size_t u = 0; u < users; ++u) {
        used.push_back(std::async(std::launch::async, [&handoff, u] {
          std::vector<std::uint8_t> bytes;
          while (const auto piece = handoff.Take(u, "test")) {
            bytes.insert(bytes.end(), piece->begin(), piece->end());
            handoff.Done(u);
          }
          return bytes;
        }));
      }
      std::vector<std::uint8_t> made;
      for (int k = 0; k < 50; ++k) {
        std::uint8_t* buffer = handoff.NextBuffer();
        ASSERT_NE(buffer, nullptr);
        const std::size_t size = 1 + k % 16;
        for (std::size_t i = 0; i < size; ++i) made.push_back(buffer[i] = static_cast<std::uint8_t>(k * 16 + i));
        handoff.Hand(size);
      }
      handoff.Finish(true);
      for (auto& bytes : used) EXPECT_EQ(bytes.get(), made);
    }
  }
}

TEST(PieceHandoff, TheMakerWaitsWhileEveryBufferIsInUse) {
  PieceHandoff handoff(2, 4);
  for (int k = 0; k < 2; ++k) {
    ASSERT_NE(handoff.NextBuffer(), nullptr);
    handoff.Hand(4);
  }
  std::future<std::uint8_t*> third = std::async(std::launch::async, [&] { return handoff.NextBuffer(); });
  EXPECT_EQ(third.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout) << "a buffer still in use was handed out";
  ASSERT_TRUE(handoff.Take(0, "test").has_value());
  handoff.Done(0);
  EXPECT_NE(third.get(), nullptr);
}

TEST(PieceHandoff, TheMakerWaitsForEveryUser) {
  PieceHandoff handoff(2, 4, 2);
  for (int k = 0; k < 2; ++k) {
    ASSERT_NE(handoff.NextBuffer(), nullptr);
    handoff.Hand(4);
  }
  for (int k = 0; k < 2; ++k) {
    ASSERT_TRUE(handoff.Take(0, "test").has_value());
    handoff.Done(0);
  }
  std::future<std::uint8_t*> third = std::async(std::launch::async, [&] { return handoff.NextBuffer(); });
  EXPECT_EQ(third.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout) << "a buffer the second user holds was handed out";
  ASSERT_TRUE(handoff.Take(1, "test").has_value());
  handoff.Done(1);
  EXPECT_NE(third.get(), nullptr);
}

TEST(PieceHandoff, AStoppedMakerFailsTheUserAndAStoppedUserReleasesTheMaker) {
  {
    PieceHandoff handoff(2, 4);
    ASSERT_NE(handoff.NextBuffer(), nullptr);
    handoff.Hand(4);
    std::future<void> user = std::async(std::launch::async, [&] {
      while (handoff.Take(0, "the file")) handoff.Done(0);
    });
    handoff.Finish(false);
    try {
      user.get();
      ADD_FAILURE() << "the user took a stopped maker's pieces as complete";
    } catch (const TrainingError& error) {
      EXPECT_NE(std::string(error.what()).find("the file"), std::string::npos) << error.what();
    }
  }
  {
    PieceHandoff handoff(1, 4);
    ASSERT_NE(handoff.NextBuffer(), nullptr);
    handoff.Hand(4);
    std::future<std::uint8_t*> waiting = std::async(std::launch::async, [&] { return handoff.NextBuffer(); });
    EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
    handoff.Stop();
    EXPECT_EQ(waiting.get(), nullptr);
    EXPECT_EQ(handoff.NextBuffer(), nullptr);
  }
}

// UseEvery: every piece in order until the maker finished complete; what `use` throws, and what a
// stopped maker's Take throws, stop the handoff (a maker waiting for a buffer gets nullptr) and
// come out of UseEvery.
TEST(PieceHandoff, UseEveryTakesEveryPieceAndStopsTheHandoffOnAnyError) {
  {
    PieceHandoff handoff(2, 4);
    std::future<std::vector<std::uint8_t>> used = std::async(std::launch::async, [&] {
      std::vector<std::uint8_t> bytes;
      handoff.UseEvery(0, "test", [&](std::span<const std::uint8_t> piece) { bytes.insert(bytes.end(), piece.begin(), piece.end()); });
      return bytes;
    });
    std::vector<std::uint8_t> made;
    for (std::uint8_t k = 0; k < 9; ++k) {
      std::uint8_t* buffer = handoff.NextBuffer();
      ASSERT_NE(buffer, nullptr);
      made.push_back(buffer[0] = k);
      handoff.Hand(1);
    }
    handoff.Finish(true);
    EXPECT_EQ(used.get(), made);
  }
  {
    PieceHandoff handoff(1, 4);
    ASSERT_NE(handoff.NextBuffer(), nullptr);
    handoff.Hand(4);
    std::future<void> user = std::async(std::launch::async, [&] {
      handoff.UseEvery(0, "test", [](std::span<const std::uint8_t>) { throw TrainingError("the disk is full"); });
    });
    EXPECT_THROW(user.get(), TrainingError);
    std::future<std::uint8_t*> next = std::async(std::launch::async, [&] { return handoff.NextBuffer(); });
    if (next.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
      ADD_FAILURE() << "the maker waits for a user that has ended";
      handoff.Stop();
    }
    EXPECT_EQ(next.get(), nullptr);
  }
  {
    PieceHandoff handoff(1, 4);
    handoff.Finish(false);
    EXPECT_THROW(handoff.UseEvery(0, "test", [](std::span<const std::uint8_t>) {}), PiecesStopped);
    EXPECT_EQ(handoff.NextBuffer(), nullptr);
  }
}

}  // namespace
}  // namespace pstrain
