// TfIdfVectorizer written out as window comparisons, sums and a 0/1 routing
// MatrixMul. Expected counts worked by hand from onnxruntime's counting (its
// tfidfvectorizer.cc, whose outputs are ONNX's test data; ONNX's seven test models,
// all mode TF, run in tests/eval/onnx_testdata_test.cpp): each position is a
// 1-gram once; an n-gram of n ≥ 2 is taken at every start and every distance
// d = 1 … max_skip_count + 1.
//
// The pool used below: 1-grams (1) and (3), ids 0 and 1; 2-grams (1, 2) and (2, 3),
// ids 2 and 3. On x = 1 2 1 2 3: 1 occurs twice, 3 once; at distance 1 the pairs
// are (1,2) (2,1) (1,2) (2,3); at 2, (1,1) (2,2) (1,3); at 3, (1,2) (2,3). So with
// max_skip_count 2 the counts are 2, 1, 2 + 1, 1 + 1.
#include <gtest/gtest.h>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

onnx::NodeProto& tfidf_node(OnnxModel& m, const char* mode, int64_t max_skip, std::vector<int64_t> indexes,
                            std::vector<int64_t> pool = {1, 3, 1, 2, 2, 3}) {
    auto& n = m.node("TfIdfVectorizer", {"x"}, {"y"}, "tfidf");
    set_attr(n, "mode", mode);
    set_attr(n, "min_gram_length", int64_t{1});
    set_attr(n, "max_gram_length", int64_t{2});
    set_attr(n, "max_skip_count", max_skip);
    set_attr(n, "ngram_counts", std::vector<int64_t>{0, 2});
    set_attr(n, "ngram_indexes", std::move(indexes));
    set_attr(n, "pool_int64s", std::move(pool));
    return n;
}

void set_weights(onnx::NodeProto& n, std::vector<float> w) {
    auto* a = n.add_attribute();
    a->set_name("weights");
    a->set_type(onnx::AttributeProto::FLOATS);
    for (float v : w) a->add_floats(v);
}

OnnxModel tokens_model(std::vector<int64_t> shape) {
    OnnxModel m(9);
    m.input("x", std::move(shape), OnnxType::INT64).output("y");
    return m;
}

TEST(OnnxTfIdf, CountsEveryDistanceAndRoutesToTheOutputColumns) {
    OnnxModel m = tokens_model({2, 5});
    tfidf_node(m, "TF", 2, {0, 1, 2, 3});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "MatrixMul"), 1u);
    // Row 2 (3 3 3 3 3) holds five 1-grams (3) and no pool pair.
    expect_near_all(evaluate_values(g, {{"x", {1, 2, 1, 2, 3, 3, 3, 3, 3, 3}}}), D{2, 1, 3, 2, 0, 5, 0, 0}, 0);

    // ngram_indexes sends pool n-gram j to column indexes[j]; unused columns are 0.
    OnnxModel routed = tokens_model({5});
    tfidf_node(routed, "TF", 2, {5, 2, 1, 0});
    expect_near_all(evaluate_values(routed.import(), {{"x", {1, 2, 1, 2, 3}}}), D{2, 3, 1, 0, 0, 2}, 0);
}

TEST(OnnxTfIdf, IdfAndTfIdfWeighTheCounts) {
    OnnxModel idf = tokens_model({5});
    tfidf_node(idf, "IDF", 0, {0, 1, 2, 3});
    // x = 1 2 1 2 2 at distance 1 only: 1 twice, 3 never, (1, 2) twice, (2, 3) never.
    expect_near_all(evaluate_values(idf.import(), {{"x", {1, 2, 1, 2, 2}}}), D{1, 0, 1, 0}, 0);

    OnnxModel weighted = tokens_model({5});
    set_weights(tfidf_node(weighted, "IDF", 0, {0, 1, 2, 3}), {0.5f, 2, 1, 0.25f});
    expect_near_all(evaluate_values(weighted.import(), {{"x", {1, 2, 1, 2, 2}}}), D{0.5, 0, 1, 0}, 0);

    OnnxModel tfidf = tokens_model({5});
    set_weights(tfidf_node(tfidf, "TFIDF", 2, {0, 1, 2, 3}), {0.5f, 2, 1, 0.25f});
    expect_near_all(evaluate_values(tfidf.import(), {{"x", {1, 2, 1, 2, 3}}}), D{1, 2, 3, 0.5}, 0);
}

TEST(OnnxTfIdf, RefusesWhatMegEngineCannotHoldOrWhatIsAmbiguous) {
    OnnxModel permuted = tokens_model({5});
    set_weights(tfidf_node(permuted, "TFIDF", 0, {3, 2, 1, 0}), {1, 2, 3, 4});
    EXPECT_NE(import_error(permuted).find("weights with ngram_indexes other than 0, 1, 2"), std::string::npos)
        << import_error(permuted);

    OnnxModel strings = tokens_model({5});
    auto& n = tfidf_node(strings, "TF", 0, {0, 1, 2, 3});
    auto* a = n.add_attribute();
    a->set_name("pool_strings");
    a->set_type(onnx::AttributeProto::STRINGS);
    a->add_strings("a");
    EXPECT_NE(import_error(strings).find("pool_strings: MegEngine has no string dtype"), std::string::npos)
        << import_error(strings);

    OnnxModel wide = tokens_model({5});
    tfidf_node(wide, "TF", 0, {0, 1, 2, 3}, {1, int64_t{1} << 40, 1, 2, 2, 3});
    EXPECT_NE(import_error(wide).find("does not fit Int32"), std::string::npos) << import_error(wide);
}

}  // namespace
}  // namespace mgedump::test
