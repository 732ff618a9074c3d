#include "host/source_tree.h"

#include <stdexcept>

namespace prunex {

namespace fs = std::filesystem;

fs::path source_tree_path(const std::string& relative, const std::string& marker,
                          const std::string& baked) {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path near = exe.parent_path() / ".." / ".." / relative;
    if (fs::exists(near / marker, ec)) return near.lexically_normal();
  }
  if (fs::exists(fs::path(baked) / marker, ec)) return baked;
  throw std::runtime_error("cannot find " + relative + "/" + marker + " beside " + exe.string() +
                           " or in " + baked);
}

}  // namespace prunex
