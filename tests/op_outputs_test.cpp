// Output counts a v1 loader must derive (the file does not store them).
#include <gtest/gtest.h>

#include "ir/op_outputs.h"

namespace mgedump::ir {
namespace {

std::vector<ParamValue> params_with(std::string_view op, std::string_view field, int64_t v) {
    const OpDef& def = op_def(find_op(op));
    std::vector<ParamValue> p;
    for (auto t : def.params) p.push_back(default_param(find_param_table(t)));
    p[0].fields[find_field(param_table(p[0].table), field)] = v;
    return p;
}

TEST(OpOutputs, FixedCountsComeFromTheRegistry) {
    EXPECT_EQ(derived_output_count(op_def(find_op("Elemwise")), 2, {}, 0), 1u);
    EXPECT_EQ(derived_output_count(op_def(find_op("Argsort")), 1, {}, 0), 2u);
}

TEST(OpOutputs, VariableCountsFollowInputsParamsAndTensors) {
    EXPECT_EQ(derived_output_count(op_def(find_op("Split")), 4, {}, 0), 3u);
    EXPECT_EQ(derived_output_count(op_def(find_op("MultipleDeviceTensorHolder")), 0, {}, 5), 5u);
    EXPECT_EQ(derived_output_count(op_def(find_op("CheckNonFinite")), 3, {}, 0), 4u);
    EXPECT_EQ(derived_output_count(op_def(find_op("TopK")), 2, params_with("TopK", "mode", 0), 0), 1u);
    EXPECT_EQ(derived_output_count(op_def(find_op("TopK")), 2, params_with("TopK", "mode", 2), 0), 2u);
    EXPECT_EQ(derived_output_count(op_def(find_op("BatchNorm")), 5, params_with("BatchNorm", "fwd_mode", 0), 0), 6u);
    EXPECT_EQ(derived_output_count(op_def(find_op("BatchNorm")), 5, params_with("BatchNorm", "fwd_mode", 1), 0), 4u);
    EXPECT_EQ(derived_output_count(op_def(find_op("BatchNorm")), 3, params_with("BatchNorm", "fwd_mode", 0), 0), 4u);
    EXPECT_FALSE(derived_output_count(op_def(find_op("CustomOpNode")), 1, {}, 0).has_value());
}

TEST(OpOutputs, OnlyCheckNonFiniteLosesLeadingOutputsInV1) {
    EXPECT_EQ(v1_leading_volatile_outputs(op_def(find_op("CheckNonFinite")), 3), 3u);
    EXPECT_EQ(v1_leading_volatile_outputs(op_def(find_op("Split")), 3), 0u);
}

}  // namespace
}  // namespace mgedump::ir
