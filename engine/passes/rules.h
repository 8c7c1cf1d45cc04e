// The compatibility rewrite rules of spec §9.1, one function per rule, grouped by
// file: rules_elemwise.cpp, rules_multitype_where.cpp, rules_norm.cpp,
// rules_v1_only.cpp; rule_table.cpp decides which rule (if any) an operator gets.
// A rule reads the source operator through the builder and emits its replacement.
#pragma once

#include <cstdint>

#include "engine/dump_options.h"
#include "engine/passes/fragment_builder.h"
#include "ir/graph.h"

namespace mgedump::engine::passes {

using Rule = void (*)(FragmentBuilder&);

// The rule MegEngine's registry entry for `opr` has under `format` (FBS: the v1
// entry; FBS_V2: the entry found from version 2 down), or nullptr: dumped as is.
Rule find_rule(const ir::Graph& g, ir::OprId opr, DumpFormat format);

// Per group; nullptr for modes that are not rewritten.
Rule elemwise_rule(uint32_t mode);
Rule multi_type_rule(uint32_t mode);
void rewrite_where(FragmentBuilder& b);
void rewrite_group_norm(FragmentBuilder& b);
void rewrite_instance_norm(FragmentBuilder& b);
void rewrite_group_norm_backward(FragmentBuilder& b);
void rewrite_instance_norm_backward(FragmentBuilder& b);
// FBS v1 only.
void rewrite_softmax(FragmentBuilder& b);
void rewrite_layer_norm(FragmentBuilder& b);
void rewrite_dropout(FragmentBuilder& b);
void rewrite_check_non_finite(FragmentBuilder& b);

}  // namespace mgedump::engine::passes
