#include "bench/compare/naive_dumper.h"

#include <cstring>

#include "formats/write_plan.h"
#include "ir/order.h"

namespace mgedump::bench {
namespace {

// MegEngine's vector-backed OutputFile: write() resizes the vector (std::vector's
// growth) and copies.
struct VectorOutputFile {
    std::vector<uint8_t> buf;
    void write(const void* src, size_t size) {
        const size_t at = buf.size();
        buf.resize(at + size);
        std::memcpy(buf.data() + at, src, size);
    }
};

}  // namespace

std::vector<uint8_t> naive_dump(const ir::Graph& g, const engine::DumpOptions& options) {
    formats::WritePlan plan{.graph = g};
    plan.order = ir::dump_order(g);
    plan.numbering = ir::number_vars(g, plan.order);
    plan.keep_var_name = options.keep_var_name;
    plan.keep_opr_name = options.keep_opr_name;
    plan.keep_param_name = options.keep_param_name;
    plan.keep_opr_priority = options.keep_opr_priority;
    plan.compat_8_14 = options.compat_older_version.has_value();
    plan.model_version = options.model_version;
    plan.mgb_version = options.mgb_version;
    plan.metadata = options.metadata.value_or(ir::Metadata{});
    plan.megengine_builder = true;
    formats::WriteStats stats;
    // v1 writes the values as it goes and the FlatBuffer at the end; v2 writes the
    // finished FlatBuffer. Either way every byte passes through the vector file.
    formats::Serialized s = options.dump_format == engine::DumpFormat::FBS_V2 ? formats::write_fbs_v2(plan, stats)
                                                                 : formats::write_fbs_v1(plan, stats);
    VectorOutputFile file;
    file.write(s.header.data(), s.header.size());
    for (ir::Bytes b : s.blobs) file.write(b.data(), b.size());
    file.write(s.flatbuffer.data(), s.flatbuffer.size());
    return std::move(file.buf);
}

}  // namespace mgedump::bench
