#include <fmt/format.h>

#include <vector>

#include "engine/eval/kernels.h"
#include "ir/describe.h"
#include "ir/op_registry.h"

namespace mgedump::engine::eval {
namespace {

// Indexed by OpTypeId once; a family entry that names no registry operator is
// a programming error caught on first use (and by the kernel-table test).
std::vector<Kernel> build_table() {
    std::vector<Kernel> table(ir::op_defs().size(), nullptr);
    for (auto family : {io_kernels, elemwise_kernels, conv_kernels, pooling_kernels, matmul_kernels, reduce_kernels,
                        norm_kernels, shape_kernels, indexing_kernels, image_kernels, misc_kernels}) {
        for (const KernelEntry& e : family()) {
            const ir::OpTypeId id = ir::find_op(e.op);
            if (!id.valid()) throw Error(fmt::format("evaluator kernel table: no operator named '{}'", e.op));
            table[id.value] = e.kernel;
        }
    }
    return table;
}

}  // namespace

Kernel find_kernel(ir::OpTypeId type) {
    static const std::vector<Kernel> table = build_table();
    return type.value < table.size() ? table[type.value] : nullptr;
}

void KernelContext::fail_message(const std::string& why) const {
    throw EvalError(fmt::format("{}: {}", ir::describe_opr(graph(), opr()), why));
}

}  // namespace mgedump::engine::eval
