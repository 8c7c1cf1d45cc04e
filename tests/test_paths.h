// Where tests find the repository and the shared reference material. Tests use
// ../shared in place; nothing from it is copied into the repository.
#pragma once

#include <string>

namespace mgedump::test {

inline std::string source_dir() { return MGEDUMP_SOURCE_DIR; }
inline std::string shared_dir() { return std::string(MGEDUMP_SOURCE_DIR) + "/../shared"; }
inline std::string spec_path() { return shared_dir() + "/spec/megengine-format.md"; }
inline std::string realdata_dir() { return shared_dir() + "/realdata/megengine"; }
inline std::string cli_path() { return MGEDUMP_CLI_PATH; }

}  // namespace mgedump::test
