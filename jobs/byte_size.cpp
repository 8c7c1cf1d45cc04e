#include "jobs/byte_size.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

#include "ir/error.h"

namespace mgedump::jobs {

uint64_t parse_byte_size(std::string_view text) {
    auto bad = [&] { return OptionError(fmt::format("expected a size like 512M or 2G, got \"{}\"", text)); };
    size_t i = 0;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
    if (i == 0) throw bad();
    double number = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + i, number);
    if (ec != std::errc() || p != text.data() + i) throw bad();
    std::string unit;
    for (char c : text.substr(i)) unit += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    double scale = 1;
    if (!unit.empty()) {
        static constexpr std::string_view kUnits = "KMGT";
        size_t u = kUnits.find(unit[0]);
        if (unit != "B") {
            if (u == std::string_view::npos) throw bad();
            std::string rest = unit.substr(1);
            if (!rest.empty() && rest != "B" && rest != "IB") throw bad();
            scale = std::pow(1024.0, static_cast<double>(u + 1));
        }
    }
    double bytes = number * scale;
    if (!(bytes >= 1) || bytes > 1.8e19) throw bad();
    return static_cast<uint64_t>(bytes);
}

}  // namespace mgedump::jobs
