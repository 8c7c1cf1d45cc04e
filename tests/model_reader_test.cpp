// The readers against ground truth: MegEngine's own files (checked field by field
// against the flatc JSON decode beside them), the spec's Appendix C bytes
// (convert reproduces them exactly), and appended graphs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <utility>
#include <nlohmann/json.hpp>

#include "engine/dump.h"
#include "engine/load.h"
#include "engine/model_compare.h"
#include "engine/redump.h"
#include "formats/op_ids.h"
#include "formats/param_codec.h"
#include "ir/order.h"
#include "model_test_util.h"
#include "test_paths.h"

namespace mgedump {
namespace {

using nlohmann::json;

json read_json(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    return json::parse(in);
}

std::vector<uint8_t> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// flatc prints an enum field as its member name (or a number when it is not one).
void expect_field(const ir::ParamTableDesc& t, size_t i, const ir::FieldValue& got, const json& want,
                  const std::string& who) {
    const ir::FieldDesc& f = t.fields[i];
    SCOPED_TRACE(who + " " + std::string(t.name) + "." + std::string(f.name));
    switch (f.type) {
        case ir::FieldType::Enum: {
            int64_t v = std::get<int64_t>(got);
            if (want.is_string()) {
                const ir::EnumMember* m = ir::find_enum_member(*f.enum_type, want.get<std::string>());
                ASSERT_NE(m, nullptr) << want;
                EXPECT_EQ(v, m->value);
            } else {
                EXPECT_EQ(v, want.get<int64_t>());
            }
            break;
        }
        case ir::FieldType::Bool: EXPECT_EQ(std::get<int64_t>(got), want.get<bool>() ? 1 : 0); break;
        case ir::FieldType::Float32:
        case ir::FieldType::Float64: EXPECT_FLOAT_EQ(std::get<double>(got), want.get<double>()); break;
        case ir::FieldType::UInt64: EXPECT_EQ(std::get<uint64_t>(got), want.get<uint64_t>()); break;
        case ir::FieldType::Int32Vector: EXPECT_EQ(std::get<std::vector<int32_t>>(got), want.get<std::vector<int32_t>>()); break;
        default: EXPECT_EQ(std::get<int64_t>(got), want.get<int64_t>()); break;
    }
}

// Compact id of every numbered var, in operator order.
std::vector<uint32_t> compact_ids(const ir::Graph& g) {
    std::vector<ir::OprId> all;
    for (uint32_t o = 0; o < g.oprs.size(); ++o) all.push_back(ir::OprId(o));
    return ir::number_vars(g, all).compact_id;
}

// Reads the ExecutionPolicy tables straight from the file's bytes, independently of
// the reader: Graph.oprs[i].additional_params[0] (flatc JSON cannot show them).
struct RawPolicy {
    uint32_t strategy;
    uint64_t workspace_limit;
};
std::vector<std::pair<uint32_t, RawPolicy>> raw_execution_policies(const std::vector<uint8_t>& file) {
    uint64_t offset_to_fbs = 0;
    std::memcpy(&offset_to_fbs, file.data() + 8, 8);  // MGBS: 16-byte header
    std::vector<uint64_t> aligned((file.size() - 16 - offset_to_fbs + 7) / 8);
    std::memcpy(aligned.data(), file.data() + 16 + offset_to_fbs, file.size() - 16 - offset_to_fbs);
    const auto* root = flatbuffers::GetSizePrefixedRoot<flatbuffers::Table>(aligned.data());
    const auto* oprs = root->GetPointer<const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::Table>>*>(4 + 2 * 3);
    std::vector<std::pair<uint32_t, RawPolicy>> out;
    for (uint32_t i = 0; i < oprs->size(); ++i) {
        const auto* types = oprs->Get(i)->GetPointer<const flatbuffers::Vector<uint8_t>*>(4 + 2 * 10);
        const auto* values =
            oprs->Get(i)->GetPointer<const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::Table>>*>(4 + 2 * 11);
        if (!types) continue;
        EXPECT_EQ(types->Get(0), 55);
        const auto* p = values->Get(0);
        out.push_back({i, {p->GetField<uint32_t>(4, 1), p->GetField<uint64_t>(6, UINT64_MAX)}});
    }
    return out;
}

class RealFile : public ::testing::TestWithParam<std::string> {
protected:
    std::string mge() const { return test::realdata_dir() + "/" + GetParam() + ".mge"; }
    std::string flatc() const { return test::realdata_dir() + "/" + GetParam() + ".flatc.json"; }
};

TEST_P(RealFile, LoadsAndMatchesItsFlatcJsonFieldByField) {
    formats::LoadedModel m = engine::load_file(mge());
    const json j = read_json(flatc());
    const ir::Graph& g = m.graph;
    EXPECT_EQ(m.format, formats::ModelFormat::FbsMGBS);
    EXPECT_EQ(m.mgb_version, j["mgb_version"].get<uint32_t>());
    EXPECT_EQ(m.hash, j["hash"].get<uint64_t>());
    EXPECT_EQ(m.metadata.has_value(), j.contains("metadata"));
    EXPECT_EQ(m.bytes_consumed, read_file(mge()).size());
    ASSERT_EQ(g.oprs.size(), j["oprs"].size());
    const std::vector<uint32_t> compact = compact_ids(g);

    for (uint32_t i = 0; i < g.oprs.size(); ++i) {
        const json& jo = j["oprs"][i];
        const ir::OprId o(i);
        const std::string who = "operator #" + std::to_string(i);
        SCOPED_TRACE(who);
        EXPECT_EQ(g.oprs.type[i], formats::find_op_by_v1_id(jo["type_id"].get<uint64_t>(), true));
        auto params = g.params_of(o);
        if (jo.contains("param_type")) {
            ASSERT_GE(params.size(), 1u);
            const ir::ParamTableDesc& t = ir::param_table(params[0].table);
            EXPECT_EQ("param_" + std::string(t.name), jo["param_type"].get<std::string>());
            for (size_t f = 0; f < t.fields.size(); ++f) {
                if (jo["param"].contains(t.fields[f].name))
                    expect_field(t, f, params[0].fields[f], jo["param"][std::string(t.fields[f].name)], who);
                else
                    EXPECT_EQ(params[0].fields[f], ir::field_default(params[0].table, f)) << t.fields[f].name;
            }
        } else {
            EXPECT_TRUE(params.empty());
        }
        const size_t extra = jo.contains("additional_params_type") ? jo["additional_params_type"].size() : 0;
        ASSERT_EQ(params.size(), (jo.contains("param_type") ? 1 : 0) + extra);
        for (size_t k = 0; k < extra; ++k)
            EXPECT_EQ(formats::param_union_index(params[1 + k].table), jo["additional_params_type"][k].get<int>());

        std::vector<uint32_t> inputs;
        for (ir::VarId v : g.inputs_of(o)) inputs.push_back(compact[v.value]);
        EXPECT_EQ(inputs, jo.value("inputs", std::vector<uint32_t>{}));

        std::vector<std::string> cns;
        for (ir::StrId c : g.comp_nodes_of(o)) cns.emplace_back(g.str(c));
        std::vector<std::string> want_cns;
        for (const json& c : jo.value("comp_node", json::array())) want_cns.push_back(c["logical_locator"]);
        EXPECT_EQ(cns, want_cns);

        const json jt = jo.value("tensors", json::array());
        const ir::Range tr = g.oprs.tensors[i];
        ASSERT_EQ(tr.count, jt.size());
        for (uint32_t k = 0; k < tr.count; ++k) {
            const ir::TensorId t(tr.begin + k);
            auto shape = g.tensor_shape(t);
            EXPECT_EQ(std::vector<uint32_t>(shape.begin(), shape.end()), jt[k]["shape"].get<std::vector<uint32_t>>());
            const std::string dtype = jt[k]["dtype"].value("type", std::string("Float32"));
            EXPECT_EQ(ir::dtype_name(g.tensors.dtype[t.value].type), dtype);
            const uint32_t data_size = jt[k].value("data_size", 0u);
            if (data_size)
                EXPECT_EQ(g.blobs.bytes(g.tensors.blob[t.value]).size(), data_size);
            else
                EXPECT_FALSE(g.tensors.blob[t.value].valid());
            EXPECT_EQ(std::string(g.str(g.tensors.name[t.value])), jt[k].value("name", std::string()));
            EXPECT_EQ(g.str(g.tensors.comp_node[t.value]), jt[k]["comp_node"]["logical_locator"]);
        }
        if (jo.contains("output_name")) {
            const ir::Range outs = g.oprs.outputs[i];
            ASSERT_EQ(outs.count, jo["output_name"].size());
            for (uint32_t k = 0; k < outs.count; ++k)
                EXPECT_EQ(g.str(g.vars.name[outs.begin + k]), jo["output_name"][k]);
        }
    }
    ASSERT_EQ(g.outputs.size(), j["output_vars_idx"].size());
    for (size_t k = 0; k < g.outputs.size(); ++k) {
        EXPECT_EQ(compact[g.outputs[k].value], j["output_vars_idx"][k]["compact_id"].get<uint32_t>());
        EXPECT_EQ(g.vars.original_id[g.outputs[k].value], j["output_vars_idx"][k]["original_id"].get<uint32_t>());
    }
}

TEST_P(RealFile, AdditionalParamsDecodeAsTheRawExecutionPolicyBytes) {
    formats::LoadedModel m = engine::load_file(mge());
    const ir::ParamTableId policy = ir::find_param_table("ExecutionPolicy");
    for (const auto& [opr, raw] : raw_execution_policies(read_file(mge()))) {
        auto params = m.graph.params_of(ir::OprId(opr));
        ASSERT_EQ(params.size(), 2u);
        ASSERT_EQ(params[1].table, policy);
        const ir::ParamTableDesc& t = ir::param_table(policy);
        EXPECT_EQ(std::get<int64_t>(params[1].fields[ir::find_field(t, "strategy")]), raw.strategy);
        EXPECT_EQ(std::get<uint64_t>(params[1].fields[ir::find_field(t, "workspace_limit")]), raw.workspace_limit);
    }
}

TEST_P(RealFile, KeepsItsMeaningWhenDumpedAsFbs814AndAsFbsV2) {
    formats::LoadedModel m = engine::load_file(mge());
    for (engine::DumpFormat f : {engine::DumpFormat::FBS, engine::DumpFormat::FBS_V2}) {
        engine::DumpOptions o;
        o.dump_format = f;
        if (f == engine::DumpFormat::FBS) o.compat_older_version = "8.14";
        auto bytes = test::owned_bytes(engine::dump_graph(m.graph, o).bytes.to_bytes());
        formats::LoadedModel again = test::load_bytes(bytes);
        EXPECT_EQ(again.format, f == engine::DumpFormat::FBS ? formats::ModelFormat::FbsMGBS
                                                             : formats::ModelFormat::FbsV2);
        engine::CompareOptions c;
        c.var_names = 1;
        EXPECT_EQ(engine::compare_graphs(m.graph, again.graph, c), std::vector<std::string>{})
            << engine::format_name(f);
    }
}

TEST_P(RealFile, ReDumpsByteForByteWithTheOptionsItImplies) {
    // §13: the four real v1 files rebuild byte for byte, so ours must too — apart from
    // the Metadata table files before 1.5 lack and every new dump writes.
    formats::LoadedModel m = engine::load_file(mge());
    std::vector<uint8_t> redumped = test::as_u8(engine::dump_graph(m.graph, engine::redump_options(m)).bytes.to_bytes());
    if (m.metadata) {
        EXPECT_EQ(redumped, read_file(mge()));
    }
    formats::LoadedModel again = test::load_bytes(test::owned_bytes(redumped));
    EXPECT_EQ(engine::compare_graphs(m.graph, again.graph, engine::redump_compare_options(m)),
              std::vector<std::string>{});
}

INSTANTIATE_TEST_SUITE_P(Realdata, RealFile,
                         ::testing::Values("chenls_xornet_deploy", "mgeconvert_convolution-backward-filter"));

TEST(ModelReader, ViewsTensorValuesInPlaceInsteadOfCopying) {
    for (const auto& spec : {test::appendix_c_v1(), test::appendix_c_v2()}) {
        auto bytes = test::owned_bytes(spec);
        formats::LoadedModel m = test::load_bytes(bytes);
        int values = 0;
        for (uint32_t t = 0; t < m.graph.tensors.size(); ++t) {
            if (!m.graph.tensors.blob[t].valid()) continue;
            ir::Bytes b = m.graph.blobs.bytes(m.graph.tensors.blob[t]);
            EXPECT_GE(b.data(), bytes->data());
            EXPECT_LE(b.data() + b.size(), bytes->data() + bytes->size());
            float first;
            std::memcpy(&first, b.data(), 4);
            EXPECT_EQ(first, 1.0f);
            ++values;
        }
        EXPECT_EQ(values, 1);
    }
}

// Operator blobs (WithFormat holders) lie inside the FlatBuffer. An FBS v1 graph
// whose FlatBuffer is not 8-aligned is read from an aligned copy, so those blobs
// must be owned by the copy: owned by the file's keep-alive, they pointed into
// memory freed when the reader returned (AddressSanitizer found it; reading the
// freed bytes gave the right answer until the allocator reused them).
TEST(ModelReader, OperatorBlobsOfACopiedFlatBufferAreOwnedByTheCopy) {
    const std::string path = test::shared_dir() +
                             "/realdata/megengine-dumps/opmatrix.MultipleDeviceTensorWithFormatHolder."
                             "with_format_blobs/fbs.mge";
    std::ifstream in(path, std::ios::binary);
    const std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(file.empty()) << path;
    std::vector<std::vector<std::byte>> contents;  // every blob's bytes, per placement
    int copied = 0;
    for (size_t shift = 0; shift < 8; ++shift) {  // one placement in eight has the FlatBuffer aligned
        auto buffer = std::make_shared<std::vector<std::byte>>(file.size() + shift);
        std::memcpy(buffer->data() + shift, file.data(), file.size());
        const ir::Bytes region(buffer->data() + shift, file.size());
        formats::LoadedModel m = formats::read_model(region, buffer);
        ASSERT_FALSE(m.graph.opr_blobs.empty());
        std::vector<std::byte> all;
        for (ir::BlobId b : m.graph.opr_blobs) {
            const ir::Bytes v = m.graph.blobs.bytes(b);
            const bool in_file = v.data() >= region.data() && v.data() + v.size() <= region.data() + region.size();
            if (!in_file) {
                ++copied;
                EXPECT_NE(m.graph.blobs.owner(b), buffer) << "shift " << shift;
                EXPECT_NE(m.graph.blobs.owner(b), nullptr) << "shift " << shift;
            }
            all.insert(all.end(), v.begin(), v.end());
        }
        contents.push_back(std::move(all));
    }
    EXPECT_GT(copied, 0);  // the copy was read from at all
    for (const auto& c : contents) EXPECT_EQ(c, contents.front());
}

TEST(ModelReader, DetectsFormatsAsSection23Says) {
    EXPECT_EQ(formats::detect_format(ir::Bytes(*test::owned_bytes(test::appendix_c_v1()))),
              formats::ModelFormat::FbsMGBC);
    EXPECT_EQ(formats::detect_format(ir::Bytes(*test::owned_bytes(test::appendix_c_v2()))),
              formats::ModelFormat::FbsV2);
    EXPECT_THROW(formats::detect_format(ir::Bytes(*test::owned_bytes(std::vector<uint8_t>{'M', 'G', 'B', 'C', 1, 0, 0, 0, 0, 0, 0, 0}))),
                 FormatError);
    EXPECT_THROW(formats::detect_format(ir::Bytes()), FormatError);
}

TEST(ModelReader, ReadsTheAppendixCExampleAsBuilt) {
    for (const auto& spec : {test::appendix_c_v1(), test::appendix_c_v2()}) {
        formats::LoadedModel m = test::load_bytes(test::owned_bytes(spec));
        const ir::Graph& g = m.graph;
        ASSERT_EQ(g.oprs.size(), 3u);
        EXPECT_EQ(ir::op_def(g.oprs.type[0]).name, "Host2DeviceCopy");
        EXPECT_EQ(ir::op_def(g.oprs.type[1]).name, "ImmutableTensor");
        EXPECT_EQ(ir::op_def(g.oprs.type[2]).name, "Elemwise");
        ASSERT_EQ(g.outputs.size(), 1u);
        EXPECT_EQ(g.str(g.vars.name[g.outputs[0].value]), "out");
        EXPECT_EQ(g.vars.original_id[g.outputs[0].value], 7u);
        EXPECT_EQ(g.str(g.tensors.name[0]), "data");
        EXPECT_EQ(g.tensors.method[0], ir::TensorMethod::MetaInput);
        EXPECT_EQ(m.mgb_version, 101304u);
        ASSERT_TRUE(m.metadata.has_value());
        EXPECT_EQ(*m.metadata, ir::Metadata{});
        EXPECT_EQ(m.bytes_consumed, spec.size());
        if (m.format == formats::ModelFormat::FbsMGBC) {
            EXPECT_EQ(m.hash, 774888699483002881ULL);
        } else {
            EXPECT_EQ(m.model_version, 2u);
        }
    }
}

TEST(ModelReader, ConvertReproducesAppendixCByteForByteInBothFormats) {
    // FBS v1 has no middle tensors: C.1 converts to itself. C.2 is FBS_V2 without
    // MiddleTensor shapes; converting it infers them and gives C.3, as MegEngine's
    // own load-and-dump does, and C.3 converts to itself.
    const auto v1 = test::appendix_c_v1(), v2 = test::appendix_c_v2(), v3 = test::appendix_c_v3_shapes();
    const std::pair<std::vector<uint8_t>, std::vector<uint8_t>> cases[] = {{v1, v1}, {v2, v3}, {v3, v3}};
    for (const auto& [spec, want] : cases) {
        formats::LoadedModel m = test::load_bytes(test::owned_bytes(spec));
        EXPECT_EQ(test::as_u8(engine::dump_graph(m.graph, engine::redump_options(m)).bytes.to_bytes()), want);
    }
    // Reading C.2 (or C.3) and converting it to FBS v1 still gives C.1.
    for (const auto& spec : {v2, v3}) {
        formats::LoadedModel m = test::load_bytes(test::owned_bytes(spec));
        engine::DumpOptions o = engine::redump_options(m);
        o.dump_format = engine::DumpFormat::FBS;
        EXPECT_EQ(test::as_u8(engine::dump_graph(m.graph, o).bytes.to_bytes()), v1);
    }
}

TEST(ModelReader, AGraphMegEngineRefusesOnlyWhenItRunsIsReadAndNotDumpedAgain) {
    // What a MegEngine dumper writes for Reduce MAX over an empty axis: MegEngine
    // loads it and refuses it when it runs (Reduce::KernScheduler::execute). The
    // builder refuses that graph, so it is built over [2,1] and the input's
    // record made [2,0] before the dump (which reads the records of an inferred
    // graph and infers nothing).
    ir::GraphBuilder b;
    const ir::VarId x = b.input("x", ir::DType::of(ir::DTypeEnum::Float32), {2, 1});
    b.output(b.op("Reduce", {x}, {{"mode", "MAX_"}, {"axis", 1}}), "m");
    ir::Graph g = b.finish();
    const uint32_t empty[] = {2, 0};
    const ir::Range dims = g.add_dims(empty);
    g.tensors.shape[g.oprs.tensors[g.vars.owner[x.value].value].begin] = dims;
    g.vars.shape[x.value] = dims;
    const auto bytes = test::owned_bytes(engine::dump_graph(g, engine::DumpOptions{}).bytes.to_bytes());

    // Read as MegEngine's loader reads it, with the output's shape...
    const formats::LoadedModel m = test::load_bytes(bytes);
    ASSERT_EQ(m.graph.outputs.size(), 1u);
    const auto out = m.graph.var_shape(m.graph.outputs[0]);
    EXPECT_EQ(std::vector<uint32_t>(out.begin(), out.end()), (std::vector<uint32_t>{2, 1}));
    // ...but not marked inferred, so that a dump of it infers it and refuses it.
    EXPECT_FALSE(m.graph.inferred);
    try {
        engine::dump_graph(m.graph, engine::redump_options(m));
        FAIL() << "a graph MegEngine refuses to run was written";
    } catch (const GraphError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("MAX of an empty input [2,0] into a non-empty output [2,1]"), std::string::npos)
            << what;
        EXPECT_NE(what.find("refuses it when the graph runs"), std::string::npos) << what;
    }
    // A file without such an operator is read as inferred (a dump infers nothing).
    EXPECT_TRUE(test::load_bytes(test::owned_bytes(test::appendix_c_v2())).graph.inferred);
}

TEST(ModelReader, AReshapeToAnotherElementCountIsReadAndNotDumpedAgain) {
    // MegEngine builds a Reshape with its target as the shape and compares the
    // element counts when it compiles the graph (a real MegEngine loaded this
    // file and ran it on a [4]). The input's record is made [6] after building.
    ir::GraphBuilder b;
    const ir::VarId x = b.input("x", ir::DType::of(ir::DTypeEnum::Float32), {4});
    b.output(b.op("Reshape", {x, b.constant<int32_t>({2}, {2, 2})}), "r");
    ir::Graph g = b.finish();
    const uint32_t six[] = {6};
    const ir::Range dims = g.add_dims(six);
    g.tensors.shape[g.oprs.tensors[g.vars.owner[x.value].value].begin] = dims;
    g.vars.shape[x.value] = dims;
    const auto bytes = test::owned_bytes(engine::dump_graph(g, engine::DumpOptions{}).bytes.to_bytes());
    const formats::LoadedModel m = test::load_bytes(bytes);
    const auto out = m.graph.var_shape(m.graph.outputs[0]);
    EXPECT_EQ(std::vector<uint32_t>(out.begin(), out.end()), (std::vector<uint32_t>{2, 2}));
    EXPECT_FALSE(m.graph.inferred);
    try {
        engine::dump_graph(m.graph, engine::redump_options(m));
        FAIL() << "a graph MegEngine refuses to run was written";
    } catch (const GraphError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("can not reshape [6] (6 elements) to [2,2] (4 elements)"), std::string::npos)
            << what;
        EXPECT_NE(what.find("refuses it when the graph runs"), std::string::npos) << what;
    }
}

// A graph built over Float32 whose input records (and the vars that follow
// their dtype) are then given `dtype`: what a MegEngine dumper writes for a
// graph MegEngine builds with that dtype, which the builder refuses.
std::vector<uint8_t> retyped_input_file(ir::Graph g, std::vector<ir::VarId> inputs,
                                        std::vector<ir::VarId> follow, ir::DType dtype) {
    for (ir::VarId x : inputs) g.tensors.dtype[g.oprs.tensors[g.vars.owner[x.value].value].begin] = dtype;
    inputs.insert(inputs.end(), follow.begin(), follow.end());
    for (ir::VarId v : inputs) g.vars.dtype[v.value] = dtype;
    return test::as_u8(engine::dump_graph(g, engine::DumpOptions{}).bytes.to_bytes());
}

TEST(ModelReader, DtypesMegEngineRefusesOnlyWhenItRunsAreReadAndNotDumpedAgain) {
    const ir::DType f32 = ir::DType::of(ir::DTypeEnum::Float32);
    struct Case {
        const char* what;
        std::vector<uint8_t> bytes;
        ir::DType output_dtype;
        std::string rule;
    };
    std::vector<Case> cases;
    {
        // Pooling's dtype rule is in check_layout_fwd, which only check_exec calls.
        ir::GraphBuilder b;
        const ir::VarId x = b.input("x", f32, {1, 1, 4, 4});
        const ir::VarId y = b.op("Pooling", {x}, {{"mode", "MAX"}});
        b.output(y, "y");
        const ir::DType u8 = ir::DType::of(ir::DTypeEnum::Uint8);
        cases.push_back(
            {"Uint8 Pooling", retyped_input_file(b.finish(), {x}, {y}, u8), u8, "input 0 is Uint8"});
    }
    {
        // CheckNonFinite's outputs are Float32 whatever its inputs; its run copies
        // each input into its output, which fails for another dtype. (These files
        // load in MegEngine and fail in its run, as these rules say.)
        ir::GraphBuilder b;
        const ir::VarId x = b.input("x", f32, {3});
        ir::OpOptions two;
        two.outputs = 2;
        const ir::VarId copy = b.op("CheckNonFinite", {x}, {}, two);
        b.output(copy, "copy");
        const ir::DType f16 = ir::DType::of(ir::DTypeEnum::Float16);
        cases.push_back({"Float16 CheckNonFinite", retyped_input_file(b.finish(), {x}, {}, f16), f32,
                         "input 0 is Float16; CheckNonFinite's outputs are Float32 copies"});
    }
    {
        // FakeQuant builds with any one dtype for all its inputs (the output's);
        // check_layout_fwd, which wants Float32, runs with check_exec.
        ir::GraphBuilder b;
        const ir::VarId x = b.input("x", f32, {4}), s = b.input("s", f32, {1}), z = b.input("z", f32, {1});
        const ir::VarId y = b.op("FakeQuant", {x, s, z}, {{"qmin", -128}, {"qmax", 127}});
        b.output(y, "y");
        const ir::DType f16 = ir::DType::of(ir::DTypeEnum::Float16);
        cases.push_back({"Float16 FakeQuant", retyped_input_file(b.finish(), {x, s, z}, {y}, f16), f16,
                         "input 0 is Float16; FakeQuant takes Float32"});
    }
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        const formats::LoadedModel m = test::load_bytes(test::owned_bytes(c.bytes));
        ASSERT_EQ(m.graph.outputs.size(), 1u);
        EXPECT_EQ(m.graph.vars.dtype[m.graph.outputs[0].value], c.output_dtype);
        EXPECT_FALSE(m.graph.inferred);
        try {
            engine::dump_graph(m.graph, engine::redump_options(m));
            FAIL() << "a graph MegEngine refuses to run was written";
        } catch (const GraphError& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(c.rule), std::string::npos) << what;
            EXPECT_NE(what.find("refuses it when the graph runs"), std::string::npos) << what;
        }
    }
}

TEST(ModelReader, ConvertCommandReproducesAppendixCFiles) {
    const std::string dir = ::testing::TempDir();
    int k = 0;
    // C.1 converts to itself (as FBS: convert writes FBS_V2 unless told); C.2 (FBS_V2
    // without MiddleTensor shapes) converts to C.3, the shapes inferred as
    // MegEngine's load-and-dump does.
    const auto v1 = test::appendix_c_v1(), v2 = test::appendix_c_v2(), v3 = test::appendix_c_v3_shapes();
    const std::pair<std::vector<uint8_t>, std::vector<uint8_t>> cases[] = {{v1, v1}, {v2, v3}, {v3, v3}};
    for (const auto& [spec, want] : cases) {
        const std::string in = dir + "/appendix_c_" + std::to_string(k) + ".mge";
        const std::string out = dir + "/appendix_c_" + std::to_string(k++) + ".out.mge";
        std::ofstream(in, std::ios::binary).write(reinterpret_cast<const char*>(spec.data()), spec.size());
        const std::string format = spec == v1 ? " --dump-format FBS" : "";
        const std::string cmd = test::cli_path() + " convert " + in + " -o " + out + format + " > /dev/null";
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
        EXPECT_EQ(read_file(out), want);
        const std::string verify = test::cli_path() + " verify " + in + " > /dev/null";
        EXPECT_EQ(std::system(verify.c_str()), 0) << verify;
    }
    // And C.2 converted to FBS v1 gives C.1.
    const std::string in = dir + "/appendix_c_v2_to_v1.mge", out = dir + "/appendix_c_v2_to_v1.out.mge";
    std::ofstream(in, std::ios::binary).write(reinterpret_cast<const char*>(v2.data()), v2.size());
    const std::string cmd = test::cli_path() + " convert " + in + " -o " + out + " --dump-format FBS > /dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    EXPECT_EQ(read_file(out), v1);
}

TEST(ModelReader, ReadsAppendedGraphsOneAfterAnother) {
    // Order chosen so that later graphs start at offsets that are not 8-aligned.
    const auto v1 = test::appendix_c_v1(), v2 = test::appendix_c_v2();
    std::vector<uint8_t> all = v2;
    all.insert(all.end(), v1.begin(), v1.end());
    all.insert(all.end(), v2.begin(), v2.end());
    auto bytes = test::owned_bytes(all);
    std::vector<formats::LoadedModel> models = formats::read_models(ir::Bytes(*bytes), bytes);
    ASSERT_EQ(models.size(), 3u);
    EXPECT_EQ(models[0].format, formats::ModelFormat::FbsV2);
    EXPECT_EQ(models[1].format, formats::ModelFormat::FbsMGBC);
    EXPECT_EQ(models[2].format, formats::ModelFormat::FbsV2);
    EXPECT_EQ(models[0].bytes_consumed + models[1].bytes_consumed + models[2].bytes_consumed, all.size());
    formats::LoadedModel alone = test::load_bytes(test::owned_bytes(v1));
    EXPECT_EQ(engine::compare_graphs(alone.graph, models[1].graph, engine::redump_compare_options(alone)),
              std::vector<std::string>{});
    // The third graph is C.2; dumped again, its MiddleTensors gain their inferred shapes (C.3).
    EXPECT_EQ(test::as_u8(engine::dump_graph(models[2].graph, engine::redump_options(models[2])).bytes.to_bytes()),
              test::appendix_c_v3_shapes());
    // Only the first graph by default.
    EXPECT_EQ(formats::read_model(ir::Bytes(*bytes), bytes).bytes_consumed, v2.size());
    // Trailing bytes that are not a graph are an error, with the offset.
    all.push_back(0);
    auto bad = test::owned_bytes(all);
    try {
        formats::read_models(ir::Bytes(*bad), bad);
        FAIL() << "trailing byte accepted";
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("at byte " + std::to_string(all.size() - 1)), std::string::npos) << e.what();
    }
}

TEST(ModelReader, LoadFileRejectsAnEmptyFileClearly) {
    const std::string path = ::testing::TempDir() + "/empty.mge";
    std::ofstream(path).close();
    try {
        engine::load_file(path);
        FAIL();
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos);
    }
    EXPECT_THROW(engine::load_file(::testing::TempDir() + "/does-not-exist.mge"), Error);
}

}  // namespace
}  // namespace mgedump
