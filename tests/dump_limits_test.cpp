// Format limits are checked before any byte is written, with an error that says
// which limit and what to do. Huge tensors are views of reserved-but-untouched
// virtual memory, so these tests cost no real memory.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include "engine/dump.h"
#include "formats/fbs_build.h"
#include "formats/write_plan.h"
#include "ir/builder.h"
#include "ir/error.h"
#include "ir/order.h"

namespace mgedump {
namespace {

// A graph whose only constant is `bytes` bytes of Uint8, backed by an untouched mapping.
ir::Graph graph_with_huge_constant(uint64_t bytes, std::vector<uint32_t> shape) {
    void* p = mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap failed");
    auto keepalive = std::shared_ptr<const void>(p, [bytes](const void* q) { munmap(const_cast<void*>(q), bytes); });
    ir::GraphBuilder b;
    ir::Graph& g = b.graph();
    ir::OprId o = b.add_op(ir::find_op("ImmutableTensor"), {}, {}, {});
    ir::BlobId blob = g.blobs.add_view(ir::Bytes(static_cast<const std::byte*>(p), bytes), keepalive);
    b.add_tensor(o, {}, ir::TensorMethod::ValueAnonymous, ir::DType::of(ir::DTypeEnum::Uint8), shape, "xpux:0", blob);
    b.output(g.output_var(o, 0), "big");
    return b.finish();
}

template <class F>
std::string limit_error(F&& f) {
    try {
        f();
    } catch (const LimitError& e) {
        return e.what();
    }
    return "(no LimitError)";
}

TEST(DumpLimits, FbsV2RefusesModelsOf2GiBAndSuggestsFbs) {
    ir::Graph g = graph_with_huge_constant(uint64_t{1} << 31, {2, 1u << 30});
    std::string e = limit_error([&] { engine::dump_graph(g, engine::DumpOptions{}); });
    EXPECT_NE(e.find("2 GiB"), std::string::npos) << e;
    EXPECT_NE(e.find("FBS"), std::string::npos) << e;
}

TEST(DumpLimits, FbsV1RefusesTensorsOver4GiB) {
    ir::Graph g = graph_with_huge_constant((uint64_t{1} << 32) + 2, {2, (1u << 31) + 1});
    engine::DumpOptions o;
    o.dump_format = engine::DumpFormat::FBS;
    std::string e = limit_error([&] { engine::dump_graph(g, o); });
    EXPECT_NE(e.find("4 GiB"), std::string::npos) << e;
}

TEST(DumpLimits, TableCountAboveTheVerifierLimitIsRefused) {
    ir::GraphBuilder b;
    ir::VarId v = b.input("x", ir::DType::of(ir::DTypeEnum::Float32), {1});
    for (int i = 0; i < 10; ++i) v = b.op("Elemwise", {v}, {{"mode", "RELU"}});
    b.output(v, "y");
    ir::Graph g = b.finish();
    formats::WritePlan plan{.graph = g};
    plan.order = ir::dump_order(g);
    plan.numbering = ir::number_vars(g, plan.order);
    // root, metadata; input: operator, param, tensor, comp node, dtype; 10 x (operator, param)
    EXPECT_EQ(formats::count_tables(plan, false), 2u + 5u + 20u);
    EXPECT_NO_THROW(formats::check_table_limit(plan, false, 27));
    std::string e = limit_error([&] { formats::check_table_limit(plan, false, 26); });
    EXPECT_NE(e.find("27 FlatBuffers tables"), std::string::npos) << e;
}

}  // namespace
}  // namespace mgedump
