// An mgbtest0 test-case file through read_testcase_file, then what `mgedump
// verify` and `convert` do with one that reads: run its cases on the model (one
// thread) and re-dump the model and every case graph.
#include <cstring>
#include <memory>
#include <vector>

#include "../targets.h"
#include "engine/redump.h"
#include "engine/testcase/testcase_check.h"
#include "exercise.h"
#include "formats/testcase_file.h"

namespace mgedump::fuzz {

int fuzz_testcase(const uint8_t* data, size_t size) {
    // The input is the file after its magic, so the fuzzer explores the count and the graphs.
    auto file = std::make_shared<std::vector<std::byte>>(formats::kTestcaseMagic.size() + size);
    std::memcpy(file->data(), formats::kTestcaseMagic.data(), formats::kTestcaseMagic.size());
    if (size) std::memcpy(file->data() + formats::kTestcaseMagic.size(), data, size);
    formats::TestcaseFile f;
    try {
        f = formats::read_testcase_file(ir::Bytes(*file), file);
    } catch (const Error&) {
        return 0;
    }
    try {
        // Bounds far below the defaults, so one input runs in well under the fuzzer's timeout
        // and within its malloc limit; a case past them is refused like any other.
        (void)engine::testcase::check_testcases(
            f, {.threads = 1, .max_work = uint64_t{1} << 27, .max_value_bytes = uint64_t{1} << 26});
    } catch (const Error&) {
    }
    try_dump(f.model.graph, engine::redump_options(f.model));
    for (const formats::LoadedModel& c : f.cases) try_dump(c.graph, engine::redump_options(c));
    return 0;
}

}  // namespace mgedump::fuzz
