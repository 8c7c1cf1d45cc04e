// What the test-case file tests share: a small model whose input names are out
// of sorted order and which has two outputs, and an in-memory test-case file of it.
#pragma once

#include <memory>
#include <vector>

#include "engine/testcase/testcase_dump.h"
#include "formats/testcase_file.h"
#include "ir/builder.h"

namespace mgedump::test {

// out = zeta * alpha + [1, 2, 3]; act = RELU(zeta). Inputs in creation order
// "zeta" [2,3], "alpha" [3]: sorted, a test case holds alpha, act:expect,
// out:expect, zeta.
inline ir::Graph two_output_model() {
    ir::GraphBuilder b;
    const ir::DType f32 = ir::DType::of(ir::DTypeEnum::Float32);
    const ir::VarId zeta = b.input("zeta", f32, {2, 3});
    const ir::VarId alpha = b.input("alpha", f32, {3});
    const ir::VarId c = b.constant<float>({3}, {1, 2, 3});
    const ir::VarId prod = b.op("Elemwise", {zeta, alpha}, {{"mode", "MUL"}});
    b.output(b.op("Elemwise", {prod, c}, {{"mode", "ADD"}}), "out");
    b.output(b.op("Elemwise", {zeta}, {{"mode", "RELU"}}), "act");
    return b.finish();
}

inline engine::DumpOptions with_testcases(std::vector<std::string> input_data) {
    engine::DumpOptions o;
    o.testcases.emplace();
    o.testcases->input_data = std::move(input_data);
    return o;
}

struct TestcaseBytes {
    std::shared_ptr<std::vector<std::byte>> bytes;
    engine::testcase::TestcaseDumped dumped;
    formats::TestcaseFile read() const { return formats::read_testcase_file(*bytes, bytes); }
};

inline TestcaseBytes dump_testcases(const engine::testcase::Testcases& t, const engine::DumpOptions& o = {}) {
    engine::testcase::AppendSink sink;
    TestcaseBytes out;
    out.dumped = engine::testcase::dump_with_testcases(t, o, sink);
    out.bytes = std::make_shared<std::vector<std::byte>>(std::move(sink.bytes));
    return out;
}

}  // namespace mgedump::test
