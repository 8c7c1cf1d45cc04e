#include "jobs/version.h"

namespace mgedump::jobs {

std::string_view engine_version() { return MGEDUMP_VERSION_STRING; }

}  // namespace mgedump::jobs
