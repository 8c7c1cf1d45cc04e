// Small ONNX models built in C++ for the importer tests, and questions about the
// graph the importer made (which MegEngine operators, with which params), plus a
// dump → load round trip in both formats.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "engine/dump.h"
#include "engine/eval/elements.h"
#include "engine/eval/evaluator.h"
#include "formats/model_reader.h"
#include "formats/onnx/import.h"
#include "formats/onnx/onnx_proto.h"
#include "ir/error.h"
#include "ir/op_registry.h"
#include "ir/param_schema.h"

namespace mgedump::test {

using OnnxType = onnx::TensorProto;

class OnnxModel {
  public:
    explicit OnnxModel(int64_t opset = 13) {
        m_.set_ir_version(8);
        m_.set_producer_name("mgedump-tests");
        auto* op = m_.add_opset_import();
        op->set_domain("");
        op->set_version(opset);
        m_.mutable_graph()->set_name("test");
    }

    OnnxModel& input(const std::string& name, std::vector<int64_t> dims, int32_t type = OnnxType::FLOAT) {
        value_info(m_.mutable_graph()->add_input(), name, dims, type);
        return *this;
    }
    // An input with symbolic dimensions (as torch.onnx.export's dynamic_axes writes
    // them): a dim that is a number is fixed, any other text is a dim_param.
    OnnxModel& symbolic_input(const std::string& name, const std::vector<std::string>& dims,
                              int32_t type = OnnxType::FLOAT) {
        auto* v = m_.mutable_graph()->add_input();
        v->set_name(name);
        auto* t = v->mutable_type()->mutable_tensor_type();
        t->set_elem_type(type);
        for (const std::string& d : dims) {
            auto* dim = t->mutable_shape()->add_dim();
            if (!d.empty() && std::all_of(d.begin(), d.end(), ::isdigit))
                dim->set_dim_value(std::stoll(d));
            else
                dim->set_dim_param(d);
        }
        return *this;
    }
    OnnxModel& output(const std::string& name, int32_t type = OnnxType::FLOAT) {
        auto* v = m_.mutable_graph()->add_output();
        v->set_name(name);
        v->mutable_type()->mutable_tensor_type()->set_elem_type(type);
        return *this;
    }
    onnx::TensorProto& initializer(const std::string& name, std::vector<int64_t> dims,
                                   const std::vector<float>& values) {
        auto* t = m_.mutable_graph()->add_initializer();
        fill(*t, name, dims, OnnxType::FLOAT, values.data(), values.size() * 4);
        return *t;
    }
    // An initializer of any element type from its little-endian bytes.
    onnx::TensorProto& initializer_bytes(const std::string& name, std::vector<int64_t> dims, int32_t type,
                                         const void* data, size_t size) {
        auto* t = m_.mutable_graph()->add_initializer();
        fill(*t, name, dims, type, data, size);
        return *t;
    }
    onnx::TensorProto& initializer_i64(const std::string& name, std::vector<int64_t> dims,
                                       const std::vector<int64_t>& values) {
        auto* t = m_.mutable_graph()->add_initializer();
        fill(*t, name, dims, OnnxType::INT64, values.data(), values.size() * 8);
        return *t;
    }
    // A float initializer whose bytes live in `location`, a side file next to the model.
    onnx::TensorProto& external_initializer(const std::string& name, std::vector<int64_t> dims,
                                            const std::string& location) {
        auto& t = initializer(name, dims, {});
        t.clear_raw_data();
        t.set_data_location(OnnxType::EXTERNAL);
        auto* e = t.add_external_data();
        e->set_key("location");
        e->set_value(location);
        return t;
    }
    // Float values 0, 1, 2, ... scaled by `step` (distinct, easy to check).
    onnx::TensorProto& ramp(const std::string& name, std::vector<int64_t> dims, float step = 0.5f) {
        int64_t n = 1;
        for (int64_t d : dims) n *= d;
        std::vector<float> v(static_cast<size_t>(n));
        for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<float>(k) * step;
        return initializer(name, dims, v);
    }
    onnx::NodeProto& node(const std::string& op, std::vector<std::string> inputs,
                          std::vector<std::string> outputs, const std::string& name = "") {
        auto* n = m_.mutable_graph()->add_node();
        n->set_op_type(op);
        n->set_name(name.empty() ? op + "_" + std::to_string(m_.graph().node_size()) : name);
        for (auto& i : inputs) n->add_input(i);
        for (auto& o : outputs) n->add_output(o);
        return *n;
    }

    onnx::ModelProto& proto() { return m_; }
    std::string bytes() const { return m_.SerializeAsString(); }
    ir::Graph import(const formats::OnnxImportOptions& o = {}) const {
        std::string b = bytes();
        return formats::import_onnx_bytes(ir::Bytes(reinterpret_cast<const std::byte*>(b.data()), b.size()),
                                          "test.onnx", ".", o);
    }
    std::filesystem::path write(const std::filesystem::path& path) const {
        std::ofstream(path, std::ios::binary) << bytes();
        return path;
    }

  private:
    static void value_info(onnx::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& dims,
                           int32_t type) {
        v->set_name(name);
        auto* t = v->mutable_type()->mutable_tensor_type();
        t->set_elem_type(type);
        for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
    }
    static void fill(onnx::TensorProto& t, const std::string& name, const std::vector<int64_t>& dims,
                     int32_t type, const void* data, size_t size) {
        t.set_name(name);
        t.set_data_type(type);
        for (int64_t d : dims) t.add_dims(d);
        t.set_raw_data(std::string(static_cast<const char*>(data), size));
    }

    onnx::ModelProto m_;
};

// The message of the error importing `m` gives (a test failure when it imports).
inline std::string import_error(const OnnxModel& m) {
    try {
        m.import();
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "import succeeded";
    return {};
}

inline void set_attr(onnx::NodeProto& n, const std::string& name, int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
}
inline void set_attr(onnx::NodeProto& n, const std::string& name, std::vector<int64_t> v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
}
inline void set_attr(onnx::NodeProto& n, const std::string& name, float v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
}
inline void set_attr(onnx::NodeProto& n, const std::string& name, const char* v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(v);
}

// x (1, 2, 4, 4) -> Conv (ramp weights (2, 2, 1, 1)) -> c -> BatchNormalization -> y, with
// gamma (1, 4), beta (0, 1), mean (0, 2), var 0 and epsilon 1: a Conv+BN pair the importer
// folds, unless `c_is_an_output_too` gives the Conv's output a second reader.
inline OnnxModel conv_bn_model(bool c_is_an_output_too = false) {
    OnnxModel m;
    m.input("x", {1, 2, 4, 4}).output("y");
    if (c_is_an_output_too) m.output("c");
    m.ramp("w", {2, 2, 1, 1});
    m.initializer("gamma", {2}, {1.0f, 4.0f});
    m.initializer("beta", {2}, {0.0f, 1.0f});
    m.initializer("mean", {2}, {0.0f, 2.0f});
    m.initializer("var", {2}, {0.0f, 0.0f});
    m.node("Conv", {"x", "w"}, {"c"});
    set_attr(m.node("BatchNormalization", {"c", "gamma", "beta", "mean", "var"}, {"y"}), "epsilon", 1.0f);
    return m;
}

// Operators that compute (not inputs, constants or params), in graph order.
inline std::vector<std::string> compute_ops(const ir::Graph& g) {
    std::vector<std::string> out;
    for (size_t o = 0; o < g.oprs.size(); ++o) {
        std::string_view name = ir::op_def(g.oprs.type[o]).name;
        if (name != "Host2DeviceCopy" && name != "ImmutableTensor" && name != "SharedDeviceTensor")
            out.emplace_back(name);
    }
    return out;
}

inline size_t count_ops(const ir::Graph& g, std::string_view type) {
    size_t n = 0;
    for (size_t o = 0; o < g.oprs.size(); ++o) n += ir::op_def(g.oprs.type[o]).name == type;
    return n;
}

// The k-th operator of `type`.
inline ir::OprId find_opr(const ir::Graph& g, std::string_view type, size_t k = 0) {
    for (size_t o = 0; o < g.oprs.size(); ++o)
        if (ir::op_def(g.oprs.type[o]).name == type && k-- == 0) return ir::OprId(static_cast<uint32_t>(o));
    ADD_FAILURE() << "no operator " << type << " #" << k;
    return ir::OprId(0);
}

// A param field of an operator, by field name (first table that has it).
inline ir::FieldValue field(const ir::Graph& g, ir::OprId o, std::string_view name) {
    for (const ir::ParamValue& p : g.params_of(o)) {
        int idx = ir::find_field(ir::param_table(p.table), name);
        if (idx >= 0) return p.fields[static_cast<size_t>(idx)];
    }
    ADD_FAILURE() << "operator has no field " << name;
    return int64_t{-1};
}
inline int64_t int_field(const ir::Graph& g, ir::OprId o, std::string_view name) {
    return std::get<int64_t>(field(g, o, name));
}
// An enum field as its member name.
inline std::string enum_field(const ir::Graph& g, ir::OprId o, std::string_view name) {
    for (const ir::ParamValue& p : g.params_of(o)) {
        const ir::ParamTableDesc& t = ir::param_table(p.table);
        int idx = ir::find_field(t, name);
        if (idx < 0) continue;
        const ir::EnumMember* m =
            ir::find_enum_member(*t.fields[static_cast<size_t>(idx)].enum_type,
                                 static_cast<uint32_t>(std::get<int64_t>(p.fields[idx])));
        return m ? std::string(m->name) : "?";
    }
    ADD_FAILURE() << "operator has no field " << name;
    return {};
}

// The value bytes of the constant feeding input `k` of operator `o`, as floats.
inline std::vector<float> input_floats(const ir::Graph& g, ir::OprId o, size_t k) {
    ir::VarId v = g.inputs_of(o)[k];
    ir::OprId holder = g.vars.owner[v.value];
    ir::Range tr = g.oprs.tensors[holder.value];
    if (tr.count != 1) {
        ADD_FAILURE() << "input " << k << " is not a constant";
        return {};
    }
    ir::Bytes b = g.blobs.bytes(g.tensors.blob[tr.begin]);
    std::vector<float> out(b.size() / 4);
    std::memcpy(out.data(), b.data(), out.size() * 4);
    return out;
}
inline std::vector<int32_t> input_ints(const ir::Graph& g, ir::OprId o, size_t k) {
    std::vector<float> f = input_floats(g, o, k);
    std::vector<int32_t> out(f.size());
    std::memcpy(out.data(), f.data(), f.size() * 4);
    return out;
}
inline std::vector<uint32_t> input_shape(const ir::Graph& g, ir::OprId o, size_t k) {
    ir::OprId holder = g.vars.owner[g.inputs_of(o)[k].value];
    ir::Range tr = g.oprs.tensors[holder.value];
    auto s = g.tensor_shape(ir::TensorId(tr.begin));
    return {s.begin(), s.end()};
}

// Runs `g` on the reference evaluator (engine/eval, MegDNN's definitions) with
// the named inputs given as doubles (converted to each input's dtype).
inline std::vector<engine::eval::EvalOutput> evaluate(
    const ir::Graph& g, const std::map<std::string, std::vector<double>>& inputs) {
    engine::eval::Feeds feeds;
    for (const engine::eval::GraphInput& in : engine::eval::graph_inputs(g)) {
        auto it = inputs.find(in.name);
        if (it == inputs.end()) {
            ADD_FAILURE() << "no value for input " << in.name;
            continue;
        }
        feeds.emplace(in.name, engine::eval::from_doubles(in.dtype, in.shape, it->second));
    }
    return engine::eval::evaluate(g, feeds);
}
// An evaluated output's dims.
inline std::vector<uint32_t> dims_of(const engine::eval::EvalOutput& out) {
    auto d = out.value.shape().dims();
    return {d.begin(), d.end()};
}

// Output 0's values.
inline std::vector<double> evaluate_values(const ir::Graph& g,
                                           const std::map<std::string, std::vector<double>>& inputs) {
    return engine::eval::to_doubles(evaluate(g, inputs).at(0).value);
}

// Every element within `tol` (relative to max(1, |want|)) of `want`.
inline void expect_near_all(const std::vector<double>& got, const std::vector<double>& want,
                            double tol = 1e-5) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
        EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::abs(want[i]))) << "element " << i;
}

// `g` dumped in `format` (as is: no_change_graph) and loaded back; the model keeps
// the bytes it was read from alive.
inline formats::LoadedModel dumped_and_loaded(const ir::Graph& g, engine::DumpFormat format, bool as_is = true) {
    engine::DumpOptions o;
    o.dump_format = format;
    o.no_change_graph = as_is;
    engine::Dumped d = engine::dump_graph(g, o);
    auto bytes = std::make_shared<std::vector<std::byte>>(d.bytes.to_bytes());
    return formats::read_model(ir::Bytes(*bytes), bytes);
}

// Dumps in both formats and loads back: the same operators, as multisets (the dump
// orders independent operators by its own walk, e.g. an unrolled RNN's steps).
inline void expect_same_ops_after_round_trip(const ir::Graph& g) {
    auto sorted = [](std::vector<std::string> v) {
        std::sort(v.begin(), v.end());
        return v;
    };
    for (auto format : {engine::DumpFormat::FBS, engine::DumpFormat::FBS_V2})
        EXPECT_EQ(sorted(compute_ops(dumped_and_loaded(g, format).graph)), sorted(compute_ops(g)));
}

// Dumps in both formats and loads back. As is (no_change_graph) the loaded graph
// has the same operators; with the default compatibility rewrites (which turn e.g.
// RELU6, CLIP and Softmax into older operators) it still dumps and loads.
inline void expect_round_trip(const ir::Graph& g) {
    for (auto format : {engine::DumpFormat::FBS, engine::DumpFormat::FBS_V2}) {
        for (bool as_is : {true, false}) {
            formats::LoadedModel m = dumped_and_loaded(g, format, as_is);
            if (as_is)
                EXPECT_EQ(compute_ops(m.graph), compute_ops(g))
                    << (format == engine::DumpFormat::FBS ? "FBS" : "FBS_V2");
            else
                EXPECT_FALSE(compute_ops(m.graph).empty());
        }
    }
}

}  // namespace mgedump::test
