// ONNX models as batch inputs (jobs/model_input.h): imported by name, and the
// digest --incremental compares covers the external weight files as well.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "jobs/model_input.h"
#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

namespace fs = std::filesystem;

void write_weights(const fs::path& p, float first) {
    std::vector<float> w{first, 2, 3, 4, 5, 6};
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(w.data()), 24);
}

TEST(OnnxModelInput, DigestChangesWhenOnlyTheExternalWeightFileChanges) {
    fs::path dir = fs::temp_directory_path() / ("mgedump_onnx_input_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    OnnxModel m;
    m.input("x", {1, 3, 2, 2}).output("y");
    m.external_initializer("w", {2, 3, 1, 1}, "w.bin");
    m.node("Conv", {"x", "w"}, {"y"});
    fs::path model = m.write(dir / "m.onnx");

    write_weights(dir / "w.bin", 1.0f);
    jobs::ModelInput a = jobs::read_model_input(model);
    EXPECT_EQ(count_ops(a.graph, "Convolution"), 1u);
    write_weights(dir / "w.bin", 9.0f);
    jobs::ModelInput b = jobs::read_model_input(model);
    EXPECT_NE(a.file_digest, b.file_digest);
    EXPECT_EQ(a.file_bytes, b.file_bytes);  // the .onnx file itself did not change
    fs::remove_all(dir);
}

}  // namespace
}  // namespace mgedump::test
