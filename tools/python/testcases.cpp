// mgedump.dump_with_testcases: trace.dump(input_data=...)'s self-checking
// test-case file (spec §11.4) from a graph, kept apart from dump_graph so that
// dump_graph keeps MegEngine's signature exactly; mgedump.load_testcases reads
// the values of a test-case file's test cases back.
#include <fmt/format.h>
#include <pybind11/stl.h>

#include "engine/load.h"
#include "engine/testcase/testcase_check.h"
#include "engine/testcase/testcase_dump.h"
#include "formats/testcase_file.h"
#include "ir/error.h"
#include "tools/python/bindings.h"
#include "tools/python/dtype_convert.h"
#include "tools/python/dump_call.h"
#include "tools/python/py_util.h"

namespace mgedump::python {
namespace {

std::vector<std::string> specs_from_py(py::handle input_data) {
    std::vector<std::string> specs;
    if (py::isinstance<py::str>(input_data)) {
        specs.push_back(input_data.cast<std::string>());
    } else if (py::isinstance<py::list>(input_data) || py::isinstance<py::tuple>(input_data)) {
        for (py::handle h : input_data) {
            if (!py::isinstance<py::str>(h))
                throw py::type_error(
                    fmt::format("input_data: each test case is a SPEC string, got {}", type_name(h)));
            specs.push_back(h.cast<std::string>());
        }
    } else {
        throw py::type_error(
            fmt::format("input_data must be a SPEC string or a list of them, got {}", type_name(input_data)));
    }
    if (specs.empty()) throw py::value_error("input_data is empty: give one SPEC per test case");
    return specs;
}

formats::TestcaseFile testcase_file_from_py(py::handle source) {
    if (py::isinstance<py::str>(source) || py::hasattr(source, "__fspath__")) {
        const std::string path = py::module_::import("os").attr("fsdecode")(source).cast<std::string>();
        py::gil_scoped_release unlocked;
        engine::MappedFile file = engine::map_file(path);
        try {
            return formats::read_testcase_file(file.bytes, file.owner);
        } catch (const FormatError& e) {
            throw FormatError(fmt::format("{}: {}", path, e.what()));
        }
    }
    py::object data =
        py::hasattr(source, "read") ? source.attr("read")() : py::reinterpret_borrow<py::object>(source);
    if (!PyObject_CheckBuffer(data.ptr()))
        throw py::type_error(fmt::format(
            "load_testcases takes a path, a bytes-like object or a binary file, got {}", type_name(data)));
    py::buffer_info view = py::reinterpret_borrow<py::buffer>(data).request();
    auto copy = std::make_shared<std::vector<std::byte>>(
        static_cast<const std::byte*>(view.ptr),
        static_cast<const std::byte*>(view.ptr) + view.size * view.itemsize);
    py::gil_scoped_release unlocked;
    return formats::read_testcase_file(*copy, copy);
}

}  // namespace

void bind_testcases(py::module_& m) {
    const DumpArgs defaults;
    const engine::testcase::TestcaseOptions tc_defaults;
    m.def(
        "dump_with_testcases",
        [](py::object output_vars, py::object input_data, uint32_t repeat, bool silent, bool no_assert,
           double maxerr, uint64_t seed, int keep_var_name, bool keep_opr_name, bool keep_param_name,
           bool keep_opr_priority, bool no_change_graph, py::object strip_info_file, bool append_json,
           py::object metadata, std::optional<std::string> dump_format, int64_t model_version,
           std::optional<std::string> compat_older_version) {
            if (!strip_info_file.is_none() && !py::isinstance<py::str>(strip_info_file) &&
                !py::hasattr(strip_info_file, "__fspath__"))
                throw py::value_error(
                    "dump_with_testcases: strip_info_file must be a path (the test cases' strip "
                    "info is appended to it as trace.dump does)");
            const DumpArgs args{std::move(output_vars),
                                keep_var_name,
                                keep_opr_name,
                                keep_param_name,
                                keep_opr_priority,
                                no_change_graph,
                                std::move(strip_info_file),
                                append_json,
                                std::move(metadata),
                                std::move(dump_format),
                                model_version,
                                std::move(compat_older_version)};
            PreparedDump prepared = prepare_dump(args, "");
            engine::testcase::TestcaseOptions tc;
            tc.input_data = specs_from_py(input_data);
            tc.repeat = repeat;
            tc.silent = silent;
            tc.no_assert = no_assert;
            tc.maxerr = maxerr;
            tc.seed = seed;
            engine::DumpOptions options = prepared.job.options;
            options.testcases = tc;
            try {
                engine::check_options(options);
            } catch (const OptionError& e) {
                throw py::value_error(e.what());
            }
            // The dict form: the outputs carry their keys as names, which the
            // ":expect" inputs are named after.
            ir::Graph g = prepared.job.graph;
            for (size_t i = 0; i < prepared.job.output_names.size(); ++i)
                g.vars.name[g.outputs[i].value] = g.strings.intern(prepared.job.output_names[i]);
            engine::testcase::AppendSink sink;
            engine::testcase::TestcaseDumped dumped;
            {
                py::gil_scoped_release unlocked;
                dumped = engine::testcase::write_testcase_file(g, options, sink, {}, engine::Digest::Skip);
            }
            engine::Dumped model{.result = dumped.model};
            prepared.job.graph = std::move(g);
            return finish_dump(
                model, prepared,
                py::bytes(reinterpret_cast<const char*>(sink.bytes.data()), sink.bytes.size()));
        },
        py::arg("output_vars"), py::kw_only(), py::arg("input_data"), py::arg("repeat") = tc_defaults.repeat,
        py::arg("silent") = tc_defaults.silent, py::arg("no_assert") = tc_defaults.no_assert,
        py::arg("maxerr") = tc_defaults.maxerr, py::arg("seed") = tc_defaults.seed,
        py::arg("keep_var_name") = defaults.keep_var_name, py::arg("keep_opr_name") = defaults.keep_opr_name,
        py::arg("keep_param_name") = defaults.keep_param_name,
        py::arg("keep_opr_priority") = defaults.keep_opr_priority,
        py::arg("no_change_graph") = defaults.no_change_graph,
        py::arg("strip_info_file") = defaults.strip_info_file, py::arg("append_json") = defaults.append_json,
        py::arg("metadata") = defaults.metadata, py::arg("dump_format") = defaults.dump_format,
        py::arg("model_version") = defaults.model_version,
        py::arg("compat_older_version") = defaults.compat_older_version,
        R"doc(A self-checking artifact: MegEngine's test-case file, what trace.dump(input_data=...) writes and
load_and_run checks ("mgbtest0", the count, the model, one graph of values per test case).

input_data: one SPEC per test case (a string or a list), as trace.dump takes them:
"name:a.npy;name2:b.npy", "a.npy" (one-input model), "#rand(min,max)" (every input),
"name:#rand(min,max[,d0,...])", "@FILE" (a SPEC a line). Values must have their input's dtype and
shape (after repeat). Unless no_assert, the model gets an input "<output>:expect" and the output
AssertEqual(expect, output, maxerr, verbose=not silent) per output, and each test case the expected
values, computed by mgedump's reference evaluator. seed: of the #rand values (MegEngine's are
unseeded). The other arguments are dump_graph's and apply to the model.

Returns (bytes of the whole file, CompGraphDumpResult of the model's dump). A SPEC that does not fit
the model raises ValueError naming the test case and the input.)doc");

    m.def(
        "load_testcases",
        [](py::object source) {
            const formats::TestcaseFile f = testcase_file_from_py(source);
            std::vector<std::string> names;
            for (const auto& in : engine::eval::graph_inputs(f.model.graph)) names.push_back(in.name);
            std::sort(names.begin(), names.end());
            py::list cases;
            for (const formats::LoadedModel& c : f.cases) {
                std::vector<engine::eval::Tensor> values;
                {
                    py::gil_scoped_release unlocked;
                    values = engine::testcase::case_values(c.graph);
                }
                if (values.size() != names.size())
                    throw FormatError(fmt::format("a test case holds {} value(s), the model has {} input(s)",
                                                  values.size(), names.size()));
                py::dict d;
                for (size_t i = 0; i < values.size(); ++i) {
                    auto owner = std::make_shared<engine::eval::Tensor>(values[i]);
                    d[py::str(names[i])] =
                        tensor_value_to_py(owner->dtype(), owner->shape().dims(), owner->bytes(), owner);
                }
                cases.append(d);
            }
            return cases;
        },
        py::arg("path_or_bytes"),
        R"doc(The test cases of a test-case file (mgbtest0): a list with one {input name: numpy array} dict per
test case, the names sorted as load_and_run matches them to the model's inputs ("<output>:expect"
being the expected outputs). load_graph of the same file gives the model.)doc");
}

}  // namespace mgedump::python
