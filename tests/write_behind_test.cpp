// A large artifact written on a thread of its own (engine/write_behind.h) while
// the artifact pass reads on: the file must hold exactly the bytes a synchronous
// write gives, in order, through short writes; a disk that fills up mid-stream
// must fail the dump with the path and the OS error and leave nothing behind; and
// only an artifact of AtomicFile::kWriteBehindFrom bytes or more gets the thread.
#include "engine/write_behind.h"

#include <gtest/gtest.h>
#include <fmt/format.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "cli_run.h"
#include "engine/artifact_file.h"
#include "engine/dump.h"
#include "ir/builder.h"
#include "ir/error.h"

namespace mgedump {
namespace {

const ir::DType kF32 = ir::DType::of(ir::DTypeEnum::Float32);

// y = x · w with a weight of `floats` random values: the artifact is that large.
ir::Graph model_with_weight(size_t floats) {
    std::mt19937 rng(11);
    std::vector<std::byte> w(floats * 4);
    for (auto& b : w) b = static_cast<std::byte>(rng());
    // Finite values only: random bits are NaN now and then, which only warns.
    for (size_t i = 0; i < floats; ++i) w[i * 4 + 3] &= std::byte{0x3F};
    ir::GraphBuilder b;
    const auto width = static_cast<uint32_t>(floats);
    ir::VarId x = b.input("x", kF32, {1, width});
    b.output(b.op("Elemwise", {x, b.param("w", kF32, {1, width}, w)}, {{"mode", "MUL"}}), "y");
    return b.finish();
}

// Records which threads write and how much; writes at most `chunk` bytes a call
// and fails with ENOSPC once `budget` bytes are written.
struct RecordingWrites : engine::FileOps {
    size_t budget = SIZE_MAX;
    size_t chunk = SIZE_MAX;
    std::mutex mutex;
    std::set<std::thread::id> writers;
    long write_some(int fd, std::span<const std::span<const std::byte>> segments) override {
        {
            std::lock_guard lock(mutex);
            writers.insert(std::this_thread::get_id());
        }
        if (budget == 0) {
            errno = ENOSPC;
            return -1;
        }
        std::span<const std::byte> first = segments.front().subspan(0, std::min({segments.front().size(), budget, chunk}));
        const long n = FileOps::write_some(fd, std::span(&first, 1));
        if (n > 0) budget -= static_cast<size_t>(n);
        return n;
    }
};

std::string as_text(const std::vector<std::byte>& b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

class WriteBehindTest : public ::testing::Test {
  protected:
    void SetUp() override {
        dir = std::filesystem::temp_directory_path() / fmt::format("mgedump-write-behind-{}-{}", ::getpid(),
                                                                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
    }
    void TearDown() override { std::filesystem::remove_all(dir); }
    size_t entries() const { return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(dir), {})); }
    std::filesystem::path dir;
};

// 3 M floats: 12 MB, past the 8 MiB threshold.
constexpr size_t kLargeFloats = size_t{3} << 20;

TEST_F(WriteBehindTest, ALargeArtifactWrittenOnItsOwnThreadHoldsTheBytesOfAnInMemoryDump) {
    const ir::Graph g = model_with_weight(kLargeFloats);
    for (auto format : {engine::DumpFormat::FBS_V2, engine::DumpFormat::FBS}) {
        engine::DumpOptions options;
        options.dump_format = format;
        const std::vector<std::byte> flat = engine::dump_graph(g, options).bytes.to_bytes();
        ASSERT_GE(flat.size(), engine::AtomicFile::kWriteBehindFrom);
        const auto path = dir / fmt::format("m-{}.mge", engine::format_name(format));
        RecordingWrites ops;
        ops.chunk = 100'003;  // short writes, off every buffer boundary
        engine::AtomicFile file(path.string(), ops, engine::WriteThread::ForLargeArtifacts);
        const engine::Dumped d = engine::dump_graph(g, options, nullptr, &file);
        file.commit();
        EXPECT_EQ(test::file_bytes(path), as_text(flat)) << engine::format_name(format);
        EXPECT_EQ(d.result.tot_bytes, flat.size());
        ASSERT_EQ(ops.writers.size(), 1u);
        EXPECT_NE(*ops.writers.begin(), std::this_thread::get_id()) << "written on the calling thread";
    }
    EXPECT_EQ(entries(), 2u);  // the two artifacts, no temporary files
}

TEST_F(WriteBehindTest, ASmallArtifactIsWrittenOnTheCallingThread) {
    const ir::Graph g = model_with_weight(1000);
    RecordingWrites ops;
    engine::AtomicFile file((dir / "small.mge").string(), ops, engine::WriteThread::ForLargeArtifacts);
    engine::dump_graph(g, engine::DumpOptions{}, nullptr, &file);
    file.commit();
    ASSERT_EQ(ops.writers.size(), 1u);
    EXPECT_EQ(*ops.writers.begin(), std::this_thread::get_id());
}

TEST_F(WriteBehindTest, ABatchStyleFileNeverStartsAThreadHoweverLarge) {
    const ir::Graph g = model_with_weight(kLargeFloats);
    RecordingWrites ops;
    engine::AtomicFile file((dir / "large.mge").string(), ops);  // WriteThread::Never
    engine::dump_graph(g, engine::DumpOptions{}, nullptr, &file);
    file.commit();
    ASSERT_EQ(ops.writers.size(), 1u);
    EXPECT_EQ(*ops.writers.begin(), std::this_thread::get_id());
}

TEST_F(WriteBehindTest, ADiskFullOnTheWriterThreadFailsTheDumpNamingThePathAndLeavesNothing) {
    const ir::Graph g = model_with_weight(kLargeFloats);
    for (size_t budget : {size_t{0}, size_t{300'000}, size_t{9'000'000}}) {
        const auto path = dir / "m.mge";
        RecordingWrites ops;
        ops.budget = budget;  // full before anything, after the first buffer, near the end
        try {
            engine::AtomicFile file(path.string(), ops, engine::WriteThread::ForLargeArtifacts);
            engine::dump_graph(g, engine::DumpOptions{}, nullptr, &file);
            file.commit();
            FAIL() << "the full disk was not reported (budget " << budget << ")";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(std::strerror(ENOSPC)), std::string::npos) << e.what();
        }
        EXPECT_EQ(entries(), 0u) << "budget " << budget;
    }
}

TEST_F(WriteBehindTest, AFailedWriterTakesNoMoreBuffersAndDrainReturns) {
    RecordingWrites ops;
    ops.budget = 10;
    const int fd = ::open((dir / "raw").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    static std::atomic<int> taken{0}, given{0};
    taken = 0;
    given = 0;
    auto take = []() -> engine::WriteBehind::Buffer {
        ++taken;
        return std::make_unique<std::byte[]>(64);
    };
    auto give_back = [](engine::WriteBehind::Buffer) { ++given; };
    {
        engine::WriteBehind writer(ops, fd, 2, take, give_back);
        engine::WriteBehind::Buffer b = std::make_unique<std::byte[]>(64);
        std::memset(b.get(), 'a', 64);
        b = writer.submit(std::move(b), 64);  // 10 bytes fit, then ENOSPC
        writer.drain();
        EXPECT_EQ(writer.failure(), ENOSPC);
        EXPECT_STREQ(writer.failure_what(), "write failed");
        // After the failure a submit returns no buffer and writes nothing.
        ASSERT_NE(b, nullptr);
        EXPECT_EQ(writer.submit(std::move(b), 64), nullptr);
    }
    ::close(fd);
    EXPECT_EQ(std::filesystem::file_size(dir / "raw"), 10u);
    EXPECT_EQ(taken.load(), 1);  // the one buffer handed back by the first submit
    EXPECT_EQ(given.load(), 2);  // the written one, and the one refused after the failure
}

}  // namespace
}  // namespace mgedump
