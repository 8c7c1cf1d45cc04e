// Printing a dump result for people (aligned lines) or for CI (one JSON object).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "engine/dump_options.h"
#include "engine/dump_result.h"

namespace mgedump::cli {

nlohmann::json result_to_json(const engine::DumpResult& r);
// Without the warnings, which print_warnings writes to standard error.
std::string result_to_text(const std::string& path, engine::DumpFormat format, const engine::DumpResult& r);
void print_warnings(std::string_view command, std::string_view path, const engine::DumpResult& r);

}  // namespace mgedump::cli
