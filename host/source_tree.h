// Files the toolkit reads from its source tree at run time (the plot scripts, the published
// measurement suite): found beside the binary first (build/bin/prunex -> ../../RELATIVE), so
// a build tree moved together with its sources still works, then in the source tree this
// binary was built from (`baked`, an absolute path compiled in).
#pragma once

#include <filesystem>
#include <string>

namespace prunex {

// The folder RELATIVE (holding `marker`, a file or folder inside it) beside the running
// binary, else `baked` if it holds the marker; std::runtime_error naming both places else.
std::filesystem::path source_tree_path(const std::string& relative, const std::string& marker,
                                       const std::string& baked);

}  // namespace prunex
