// SHA-256 (Crypto++) as lower-case hex, for fingerprints and payload digests.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace pstrain {

std::string Sha256Hex(std::string_view bytes);
std::string Sha256Hex(const void* data, std::size_t size);
// Streams the file; throws InputError naming the file when it cannot be read.
std::string Sha256OfFile(const std::filesystem::path& path);

}  // namespace pstrain
