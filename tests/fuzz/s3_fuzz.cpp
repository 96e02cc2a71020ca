// Fuzz target: the s3 binary container (formats/s3_file.h ParseS3), header, byte order, checksum;
// re-encoded when it parses.
#include "fuzz_target.h"
#include "formats/s3_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pstrain::fuzz::ExpectOnlyInputErrors([&] {
    const pstrain::S3File file = pstrain::ParseS3(pstrain::fuzz::Bytes(data, size), "fuzz.s3");
    pstrain::EncodeS3(file);
  });
  return 0;
}
