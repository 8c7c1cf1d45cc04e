// .npy bytes the way graph JSON meets them: the header parser on the image, then
// read_npy on a file (mapped, payload size checked; also narrowing int64), then a graph whose constant
// names that file, through an operator and both writers.
#include <fmt/format.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../targets.h"
#include "exercise.h"
#include "formats/graph_json.h"
#include "formats/npy.h"

namespace mgedump::fuzz {
namespace {

// read_npy maps a path: one scratch directory per process, removed at exit.
class ScratchDir {
  public:
    ScratchDir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "mgedump-fuzz-npy-XXXXXX").string();
        if (!mkdtemp(tmpl.data())) throw std::runtime_error("fuzz_npy: mkdtemp failed");
        path_ = tmpl;
    }
    ~ScratchDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
};

void write_file(const std::filesystem::path& p, const uint8_t* data, size_t size) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) throw std::runtime_error("fuzz_npy: cannot write " + p.string());
}

}  // namespace

int fuzz_npy(const uint8_t* data, size_t size) {
    try {
        (void)formats::parse_npy_header(ir::Bytes(reinterpret_cast<const std::byte*>(data), size), "fuzz.npy");
    } catch (const Error&) {
    }
    static const ScratchDir dir;
    const std::filesystem::path file = dir.path() / "a.npy";
    write_file(file, data, size);
    // Each reading on its own: one that refuses the file must not skip the others.
    auto read = [](auto&& reading) {
        try {
            (void)reading();
        } catch (const Error&) {
        }
    };
    read([&] { return formats::read_npy(file); });
    read([&] { return formats::read_npy(file, ir::DTypeEnum::Float32); });
    // An int64 file narrowed for an Int32 input (mgedump run, test-case inputs).
    read([&] { return formats::read_npy_narrowing_int64(file); });
    // The constant feeds an operator, so inference and the writers see the array's
    // dtype and shape as a real graph would.
    const std::string doc = fmt::format(R"({{"format": "mgedump-graph", "version": 1,
        "constants": [{{"name": "w", "npy": "{}"}}],
        "operators": [{{"op": "Elemwise", "name": "y", "inputs": ["w", "w"], "params": {{"mode": "ADD"}}}}],
        "outputs": ["w", "y"]}})",
                                        file.filename().string());
    formats::GraphJsonReadOptions options;
    options.label = "fuzz.json";
    options.base_dir = dir.path();
    ir::Graph g;
    try {
        g = formats::parse_graph_json(doc, options);
    } catch (const Error&) {
        return 0;
    }
    try_dump_both_formats(g);
    return 0;
}

}  // namespace mgedump::fuzz
