// ir::StringTable against a std::map model: interning, stable views, and copies
// that are independent of their source.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "ir/strings.h"

namespace mgedump::ir {
namespace {

std::string nth_name(int i) { return "layer" + std::to_string(i % 977) + "/weight_" + std::to_string(i); }

TEST(StringTable, InterningGivesOneIdPerDistinctStringInFirstSeenOrder) {
    StringTable t;
    std::map<std::string, uint32_t> model;
    for (int round = 0; round < 3; ++round)
        for (int i = 0; i < 5000; ++i) {
            const std::string s = nth_name(i * 7 % 3001);  // repeats within and across rounds
            const auto [it, added] = model.emplace(s, static_cast<uint32_t>(model.size()));
            EXPECT_EQ(t.intern(s).value, it->second) << s;
        }
    ASSERT_EQ(t.size(), model.size());
    for (const auto& [s, id] : model) EXPECT_EQ(t.view(StrId(id)), s);
}

TEST(StringTable, ViewsStayValidWhileLaterStringsAreInterned) {
    StringTable t;
    const std::string big(200'000, 'x');  // larger than any arena chunk
    std::vector<std::string_view> views;
    std::vector<std::string> expected;
    for (int i = 0; i < 20000; ++i) {
        expected.push_back(i % 5000 == 4999 ? big + std::to_string(i) : nth_name(i));
        views.push_back(t.view(t.intern(expected.back())));
    }
    for (size_t i = 0; i < views.size(); ++i) ASSERT_EQ(views[i], expected[i]) << i;
}

TEST(StringTable, EmptyStringIsAnEntryAndDiffersFromAbsent) {
    StringTable t;
    const StrId empty = t.intern("");
    EXPECT_TRUE(empty.valid());
    EXPECT_EQ(t.intern(""), empty);
    EXPECT_EQ(t.view(empty), "");
    EXPECT_NE(t.view(empty).data(), nullptr);  // callers hand data() to memcpy
    EXPECT_NE(t.view(StrId()).data(), nullptr);
    EXPECT_EQ(t.size(), 1u);
}

TEST(StringTable, EmbeddedNulsAndPrefixesAreDistinct) {
    StringTable t;
    const std::string with_nul("a\0b", 3);
    const StrId a = t.intern("a"), ab = t.intern(with_nul), ab2 = t.intern(std::string_view("a\0b\0", 4));
    EXPECT_NE(a, ab);
    EXPECT_NE(ab, ab2);
    EXPECT_EQ(t.view(ab), with_nul);
    EXPECT_EQ(t.intern(with_nul), ab);
}

TEST(StringTable, ACopyHasTheSameIdsAndGrowsIndependently) {
    StringTable source;
    for (int i = 0; i < 3000; ++i) source.intern(i % 100 == 0 ? std::string() : nth_name(i));
    StringTable copy = source;
    ASSERT_EQ(copy.size(), source.size());
    for (uint32_t id = 0; id < source.size(); ++id) {
        EXPECT_EQ(copy.view(StrId(id)), source.view(StrId(id)));
        if (!source.view(StrId(id)).empty()) {
            EXPECT_NE(copy.view(StrId(id)).data(), source.view(StrId(id)).data()) << "copy shares bytes with its source";
        }
        EXPECT_EQ(copy.intern(std::string(source.view(StrId(id)))), StrId(id));  // the copied index finds it
    }
    const std::string_view first = source.view(StrId(1));
    const StrId in_copy = copy.intern("only in the copy");
    const StrId in_source = source.intern("only in the source");
    EXPECT_EQ(in_copy, in_source);  // the same next id, different strings
    EXPECT_EQ(copy.view(in_copy), "only in the copy");
    EXPECT_EQ(source.view(in_source), "only in the source");
    EXPECT_EQ(copy.intern("only in the source").value, source.size());
    EXPECT_EQ(source.view(StrId(1)), first);

    StringTable assigned;
    assigned.intern("overwritten");
    assigned = source;
    EXPECT_EQ(assigned.size(), source.size());
    EXPECT_EQ(assigned.intern("only in the source"), in_source);
    StringTable moved = std::move(assigned);
    EXPECT_EQ(moved.view(in_source), "only in the source");
}

}  // namespace
}  // namespace mgedump::ir
