#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "formats/npy.h"
#include "ir/error.h"
#include "npy_image.h"

namespace mgedump::formats {
namespace {

using test::int64_bytes;
using test::npy_image;

namespace fs = std::filesystem;

struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() / ("mgedump-npy-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

std::vector<std::byte> bytes_of(std::string_view s) {
    std::vector<std::byte> out(s.size());
    std::memcpy(out.data(), s.data(), s.size());
    return out;
}

fs::path write_file(const fs::path& p, const std::vector<std::byte>& bytes) {
    std::ofstream out(p, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return p;
}

std::string read_error(const fs::path& p, std::optional<ir::DTypeEnum> dtype = std::nullopt) {
    try {
        read_npy(p, dtype);
    } catch (const FormatError& e) {
        return e.what();
    }
    return "(no error)";
}

const std::string kFloats(reinterpret_cast<const char*>(std::array<float, 6>{1, 2, 3, 4, 5, 6}.data()), 24);

TEST(Npy, WrittenArraysReadBackAsAViewOfTheMappedFile) {
    TempDir dir;
    const std::vector<uint32_t> shape{2, 3};
    auto data = bytes_of(kFloats);
    auto p = write_file(dir.path / "a.npy", encode_npy(ir::DTypeEnum::Float32, shape, data));
    NpyArray a = read_npy(p);
    EXPECT_EQ(a.dtype, ir::DTypeEnum::Float32);
    EXPECT_EQ(a.shape, shape);
    ASSERT_EQ(a.data.size(), 24u);
    EXPECT_EQ(std::memcmp(a.data.data(), data.data(), 24), 0);
    EXPECT_TRUE(a.keepalive);
    // numpy aligns the data to 64 bytes; so do we.
    EXPECT_EQ((fs::file_size(p) - 24) % 64, 0u);
}

TEST(Npy, TheDeclaredDtypeSelectsHowTheBytesAreRead) {
    TempDir dir;
    const std::vector<uint32_t> shape{4};
    auto data = bytes_of("\x01\xff\x02\x7f");
    auto p = write_file(dir.path / "q.npy", encode_npy(ir::DTypeEnum::QuantizedS8, shape, data));
    EXPECT_EQ(read_npy(p).dtype, ir::DTypeEnum::Int8);
    EXPECT_EQ(read_npy(p, ir::DTypeEnum::QuantizedS8).dtype, ir::DTypeEnum::QuantizedS8);
}

TEST(Npy, VersionsTwoAndThreeAndScalarAndOneDimensionalShapesAreRead) {
    TempDir dir;
    auto v2 = write_file(dir.path / "v2.npy", npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }",
                                                        kFloats, 2));
    EXPECT_EQ(read_npy(v2).shape, std::vector<uint32_t>{6});
    auto v3 = write_file(dir.path / "v3.npy", npy_image("{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": ()}",
                                                        std::string(4, '\0'), 3));
    EXPECT_TRUE(read_npy(v3).shape.empty());
    // One-byte types have no byte order; "<u1" means the same as numpy's "|u1".
    auto u1 = write_file(dir.path / "u1.npy", npy_image("{'descr': '<u1', 'fortran_order': False, 'shape': (2,), }", "ab"));
    EXPECT_EQ(read_npy(u1).dtype, ir::DTypeEnum::Uint8);
}

TEST(Npy, AFileWithoutTheMagicIsRejectedByName) {
    TempDir dir;
    auto p = write_file(dir.path / "bad.npy", bytes_of("PK\x03\x04 this is a zip"));
    EXPECT_NE(read_error(p).find("bad.npy: not a .npy file"), std::string::npos) << read_error(p);
}

TEST(Npy, BadHeadersAreRejectedWithTheReason) {
    TempDir dir;
    struct Case {
        std::string dict;
        std::string data;
        int major;
        std::string expect;
    } cases[] = {
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", kFloats, 4, "version 4.0 is not supported"},
        {"{'descr': '>f4', 'fortran_order': False, 'shape': (6,), }", kFloats, 1, "big-endian"},
        {"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", kFloats, 1, "Fortran-order"},
        {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (6,), }", kFloats, 1, "structured dtypes"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'extra': 1}", kFloats, 1, "unexpected key 'extra'"},
        {"{'descr': '<f4', 'shape': (6,), }", kFloats, 1, "lacks one of"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': ('6',), }", kFloats, 1, "non-integer"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", kFloats, 1, "has no MegEngine counterpart"},
    };
    for (const Case& c : cases) {
        auto p = write_file(dir.path / "h.npy", npy_image(c.dict, c.data, c.major));
        const std::string err = read_error(p);
        EXPECT_NE(err.find(c.expect), std::string::npos) << c.dict << " → " << err;
        EXPECT_NE(err.find("h.npy"), std::string::npos) << err;
    }
}

TEST(Npy, AHeaderLongerThanTheFileIsTruncated) {
    TempDir dir;
    auto image = npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", "");
    image.resize(30);
    auto p = write_file(dir.path / "t.npy", image);
    EXPECT_NE(read_error(p).find("truncated .npy header"), std::string::npos) << read_error(p);
}

TEST(Npy, DataShorterOrLongerThanTheShapeIsRejected) {
    TempDir dir;
    auto shorter = write_file(dir.path / "s.npy",
                              npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", kFloats.substr(0, 20)));
    EXPECT_NE(read_error(shorter).find("truncated: shape (2, 3) of '<f4' needs 24 data bytes, the file has 20"),
              std::string::npos)
        << read_error(shorter);
    auto longer = write_file(dir.path / "l.npy",
                             npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", kFloats));
    EXPECT_NE(read_error(longer).find("4 bytes of trailing data"), std::string::npos) << read_error(longer);
}

TEST(Npy, ADtypeOtherThanTheDeclaredOneIsRejected) {
    TempDir dir;
    auto p = write_file(dir.path / "f.npy", encode_npy(ir::DTypeEnum::Float32, std::vector<uint32_t>{6}, bytes_of(kFloats)));
    const std::string err = read_error(p, ir::DTypeEnum::Int32);
    EXPECT_NE(err.find("holds '<f4' data, but the declared dtype Int32 is stored as '<i4'"), std::string::npos) << err;
    // How to write it as the dtype wants, in numpy's own spelling of that layout.
    EXPECT_NE(err.find("np.save(path, a.astype('<i4'))"), std::string::npos) << err;
}

TEST(Npy, Int64DataIsNarrowedForAnInt32InputWhenEveryElementFits) {
    TempDir dir;
    auto p = write_file(dir.path / "ids.npy", npy_image("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }",
                                                        int64_bytes({7, -3, 2147483647, -2147483648})));
    const NpyArray a = read_npy_narrowing_int64(p);
    EXPECT_EQ(a.dtype, ir::DTypeEnum::Int32);
    EXPECT_EQ(a.shape, (std::vector<uint32_t>{2, 2}));
    ASSERT_EQ(a.data.size(), 16u);
    std::array<int32_t, 4> got{};
    std::memcpy(got.data(), a.data.data(), 16);
    EXPECT_EQ(got, (std::array<int32_t, 4>{7, -3, 2147483647, -2147483647 - 1}));
    // Plain read_npy still holds the file to the declared dtype.
    EXPECT_NE(read_error(p, ir::DTypeEnum::Int32).find("holds '<i8' data"), std::string::npos);
}

TEST(Npy, Int64DataThatDoesNotFitInt32IsRefusedNamingTheElement) {
    TempDir dir;
    auto p = write_file(dir.path / "ids.npy", npy_image("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }",
                                                        int64_bytes({1, 2147483648, 3})));
    try {
        read_npy_narrowing_int64(p);
        FAIL() << "read";
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("ids.npy: holds int64 data ('<i8') for an Int32 input, and element 1 "
                                             "(2147483648) does not fit in 32 bits"),
                  std::string::npos)
            << e.what();
    }
    // Other dtypes are still refused as mismatches, and the size check counts 8 bytes per element.
    auto f = write_file(dir.path / "f.npy", encode_npy(ir::DTypeEnum::Float32, std::vector<uint32_t>{6}, bytes_of(kFloats)));
    EXPECT_THROW(read_npy_narrowing_int64(f), FormatError);
    auto short_file = write_file(dir.path / "s.npy", npy_image("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }",
                                                               int64_bytes({1, 2})));
    EXPECT_THROW(read_npy_narrowing_int64(short_file), FormatError);
}

TEST(Npy, AMissingFileIsReportedByPath) {
    EXPECT_NE(read_error("/nonexistent/w.npy").find("/nonexistent/w.npy: cannot open"), std::string::npos);
}

TEST(Npy, SubByteDtypesCannotBeWritten) {
    EXPECT_THROW(encode_npy(ir::DTypeEnum::QuantizedS4, std::vector<uint32_t>{2}, bytes_of("\x12")), FormatError);
}

}  // namespace
}  // namespace mgedump::formats
