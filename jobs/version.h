// The engine version recorded in reports and incremental-build stamps: a change
// of engine version invalidates every recorded artifact.
#pragma once

#include <string_view>

namespace mgedump::jobs {

std::string_view engine_version();

}  // namespace mgedump::jobs
