// Every operator of the registry has an inference rule: none falls back to
// "unknown shape, first input's dtype", which would let a graph MegEngine refuses
// through unchecked.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "ir/infer.h"
#include "ir/op_registry.h"

namespace mgedump::test {
namespace {

TEST(InferRegistry, EveryOperatorHasARule) {
    std::vector<std::string_view> missing;
    for (uint32_t i = 0; i < ir::op_defs().size(); ++i)
        if (!ir::has_infer_rule(ir::OpTypeId(i))) missing.push_back(ir::op_defs()[i].name);
    EXPECT_TRUE(missing.empty()) << "no inference rule for: " << fmt::format("{}", fmt::join(missing, ", "));
    EXPECT_GE(ir::op_defs().size(), 95u);
}

}  // namespace
}  // namespace mgedump::test
