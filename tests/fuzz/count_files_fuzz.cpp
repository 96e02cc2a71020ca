// Fuzz target: the check-only readers of bw's count files that a shard's validation uses
// (formats/param_files.h CheckGaudenCountsFile, CheckArray3DFile: the file read forward in pieces,
// formats/s3_stream_cursor.h) against the decoders on the same bytes. Each must give the decoder's
// verdict with the decoder's message, in pieces of any size, and hand every byte of the file to its
// sink once, in order.
#include <functional>
#include <string>
#include <vector>

#include "formats/param_files.h"
#include "fuzz_target.h"

namespace {

// "" when `read` accepts its input, else the clean rejection's message (any other exception escapes).
std::string Outcome(const std::function<void()>& read) {
  try {
    read();
    return "";
  } catch (const pstrain::InputError& error) {
    return error.what();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::uint8_t> bytes = pstrain::fuzz::Bytes(data, size);
  const std::filesystem::path path = pstrain::fuzz::WriteScratch("counts", data, size);
  const std::string decoded_gauden = Outcome([&] { pstrain::DecodeGaudenCountsFile(bytes, path.string()); });
  const std::string decoded_array = Outcome([&] { pstrain::DecodeArray3DFile(bytes, path.string()); });
  for (const std::size_t piece : {std::size_t{1}, std::size_t{7}, pstrain::kS3StreamPieceBytes}) {
    std::vector<std::uint8_t> given;
    const pstrain::ByteSink sink = [&](const void* piece_data, std::size_t piece_size) {
      const auto* first = static_cast<const std::uint8_t*>(piece_data);
      given.insert(given.end(), first, first + piece_size);
    };
    pstrain::fuzz::Require(Outcome([&] { pstrain::CheckGaudenCountsFile(path, sink, piece); }) == decoded_gauden,
                           "CheckGaudenCountsFile's verdict or message differs from DecodeGaudenCountsFile's");
    pstrain::fuzz::Require(given == bytes, "CheckGaudenCountsFile's sink did not get the file's bytes in order");
    given.clear();
    pstrain::fuzz::Require(Outcome([&] { pstrain::CheckArray3DFile(path, sink, piece); }) == decoded_array,
                           "CheckArray3DFile's verdict or message differs from DecodeArray3DFile's");
    pstrain::fuzz::Require(given == bytes, "CheckArray3DFile's sink did not get the file's bytes in order");
  }
  return 0;
}
