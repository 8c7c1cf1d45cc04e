// The inference rules by operator family. Each family file lists its operators
// by registry name; ir/infer/infer.cpp indexes them by operator type once.
//
// The walk, the rules of the operators most graphs are made of (Elemwise,
// Reshape, Dimshuffle, Reduce, Softmax, the matrix products, Subtensor) and
// the helpers they call are marked [[gnu::hot]]: GCC puts them in .text.hot,
// which the linker gathers in one place, so that an inference of a common
// graph runs from a few pages of mgedump's code instead of pages spread over
// the family files (bench/code_lines.py counts the lines and pages one
// inference runs). A dump pipeline infers between other work; on a kernel
// with page-table isolation and no PCID (this project's VMs) a system call
// empties the TLB, and every page an inference touches after one costs a
// page walk (bench/suites/infer_bench.cpp InferGraphAfterSyscall).
#pragma once

#include <span>
#include <string_view>

#include "ir/infer/context.h"

namespace mgedump::ir {

struct InferRuleEntry {
    std::string_view op;  // registry name (ir/op_defs.cpp)
    InferRule rule;
    // The rule gives output k tensor k's dtype and shape (constants, params,
    // inputs: rules_io.cpp tensor_outputs). A whole-graph walk writes such an
    // operator's one output itself, without building a context for it.
    bool outputs_are_tensors = false;
};

std::span<const InferRuleEntry> io_infer_rules();           // rules_io.cpp
std::span<const InferRuleEntry> elemwise_infer_rules();     // rules_elemwise.cpp
std::span<const InferRuleEntry> conv_infer_rules();         // rules_conv.cpp
std::span<const InferRuleEntry> image_infer_rules();        // rules_image.cpp (pooling, resize, warp, padding...)
std::span<const InferRuleEntry> nn_infer_rules();           // rules_nn.cpp (norms, softmax, matmul, reduce...)
std::span<const InferRuleEntry> misc_infer_rules();         // rules_misc.cpp (argmax, topk, cumsum, rng, ...)
std::span<const InferRuleEntry> shape_infer_rules();        // rules_shape.cpp (reshape, concat, ...)
std::span<const InferRuleEntry> indexing_infer_rules();     // rules_indexing.cpp

}  // namespace mgedump::ir
