// Wire identity of operators (formats/op_ids.h) against the spec's numbers.
//
// The expected ids below are copied from spec §4.1, §4.3 and Appendix D. The spec
// is a legitimate golden source here: its numbers were computed independently
// (a pure-Python XXH64, cross-checked against MegEngine's own constexpr hash), so
// agreeing with them pins both our hashing and our registration tokens.
#include "formats/op_ids.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "ir/op_registry.h"

namespace mgedump::formats {
namespace {

const ir::OpDef& op_named(std::string_view key) {
    const auto id = ir::find_op(key);
    if (!id) throw std::runtime_error("test: no operator \"" + std::string(key) + "\"");
    return ir::op_def(id);
}

// --- the hash itself ------------------------------------------------------------

TEST(OpIds, Xxh64MatchesTheCheckValuesOfAppendixD) {
    EXPECT_EQ(XXH64("", 0, 0), 0xEF46DB3751D8E999ull);
    EXPECT_EQ(XXH64("abc", 3, 0), 0x44BC2CF5AD770999ull);
    EXPECT_EQ(XXH64("Host2DeviceCopy", 16, kOpIdSeed), 2436615116837392937ull);
}

TEST(OpIds, FullAndUnversionedIdsMatchTheVerifiedExamplesOfSection4_1) {
    EXPECT_EQ(op_id_full("Host2DeviceCopy"), 2436615116837392937ull);
    EXPECT_EQ(op_id_full("ImmutableTensor"), 6977527550664090289ull);
    EXPECT_EQ(op_id_full("Elemwise"), 16984089995691734746ull);
    EXPECT_EQ(op_id_full("ConvolutionV2"), 398888935463796127ull);
    EXPECT_EQ(op_id_full("MatrixMulV2"), 13377158960990194401ull);
    EXPECT_EQ(op_id_unversioned("Elemwise"), 15475644582354676744ull);
    EXPECT_EQ(op_id_unversioned("ConvolutionV2"), 1005859804226725325ull);
    EXPECT_EQ(op_id_unversioned("Convolution"), 1005859804226725325ull);
    EXPECT_EQ(op_id_full("Convolution"), 13553933750987029374ull);
    EXPECT_EQ(op_id_full("dynamic"), 1748759926085341240ull);
}

TEST(OpIds, DynamicOperatorIdIsTheFullHashOfDynamic) { EXPECT_EQ(kDynamicOpId, op_id_full("dynamic")); }

TEST(OpIds, UnversionedIdStripsExactlyOneTrailingVAndDigit) {
    EXPECT_EQ(op_id_unversioned("ConvBiasForwardV4"), op_id_unversioned("ConvBiasForward"));
    EXPECT_EQ(op_id_unversioned("ReduceV2"), op_id_unversioned("Reduce"));
    // Only "V<digit>" counts: a bare digit or a lone "V" stays.
    EXPECT_NE(op_id_unversioned("CorrelationBackwardData1"), op_id_unversioned("CorrelationBackwardData"));
    EXPECT_NE(op_id_unversioned("AbcV"), op_id_unversioned("Abc"));
    // One tail only: "XV1V2" becomes "XV1", not "X".
    EXPECT_EQ(op_id_unversioned("XV1V2"), XXH64("XV1", 3, kOpIdSeed));
    EXPECT_EQ(op_id_unversioned("ReduceV2"), XXH64("Reduce", 6, kOpIdSeed));
    // Two-character tokens are stripped to nothing, as MegEngine does.
    EXPECT_EQ(op_id_unversioned("V2"), op_id_unversioned(""));
}

TEST(OpIds, FullIdHashesTheTerminatingNul) {
    EXPECT_EQ(op_id_full("Elemwise"), XXH64("Elemwise", 9, kOpIdSeed));
    EXPECT_NE(op_id_full("Elemwise"), XXH64("Elemwise", 8, kOpIdSeed));
}

// --- every row of spec §4.3 ---------------------------------------------------------

struct SpecRow {
    std::string_view typeinfo;
    std::string_view token;
    uint64_t v1_id;
    uint64_t unversioned_id;
    std::string_view v2_type;
    uint64_t v2_type_id;
    uint32_t v2_version;
};

// Spec §4.3 "Ids of common operators", all rows, in the spec's order.
constexpr SpecRow kSpecRows[] = {
    {"Host2DeviceCopy", "Host2DeviceCopy", 2436615116837392937ull, 11501548436123901713ull, "Host2DeviceCopy",
     2436615116837392937ull, 2},
    {"ImmutableTensor", "ImmutableTensor", 6977527550664090289ull, 8214274060121194836ull, "ImmutableTensor",
     6977527550664090289ull, 2},
    {"SharedDeviceTensor", "SharedDeviceTensor", 5455743196755016946ull, 6084106446169059487ull,
     "SharedDeviceTensor", 6084106446169059487ull, 1},
    {"VolatileSharedDeviceTensor", "VolatileSharedDeviceTensor", 7445220614566027663ull,
     8659013329736868280ull, "VolatileSharedDeviceTensor", 8659013329736868280ull, 1},
    {"MultipleDeviceTensorHolder", "MultipleDeviceTensorHolder", 1379929827050077575ull,
     6152281422819500974ull, "MultipleDeviceTensorHolder", 1379929827050077575ull, 2},
    {"SharedDeviceTensorWithFormat", "SharedDeviceTensorWithFormat", 9783811715656249052ull,
     17553165062326377993ull, "SharedDeviceTensorWithFormat", 9783811715656249052ull, 2},
    {"MultipleDeviceTensorWithFormatHolder", "MultipleDeviceTensorWithFormatHolder", 13712197338634655662ull,
     60799855031704737ull, "MultipleDeviceTensorWithFormatHolder", 13712197338634655662ull, 2},
    {"Copy", "Copy", 10240138798055438597ull, 3469141309801762118ull, "Copy", 3469141309801762118ull, 1},
    {"Elemwise", "Elemwise", 16984089995691734746ull, 15475644582354676744ull, "Elemwise",
     15475644582354676744ull, 1},
    {"ElemwiseMultiType", "ElemwiseMultiType", 5459241759317220529ull, 7505243245230068554ull,
     "ElemwiseMultiType", 7505243245230068554ull, 1},
    {"PowC", "PowC", 14403559926765625169ull, 18093854633143090602ull, "PowC", 18093854633143090602ull, 1},
    {"TypeCvt", "TypeCvtV2", 8251275421617995665ull, 3667709622108589241ull, "TypeCvtV2",
     3667709622108589241ull, 1},
    {"Reduce", "ReduceV2", 16798497759448275553ull, 16815269931273165784ull, "ReduceV2",
     16815269931273165784ull, 1},
    {"ConvolutionForward", "ConvolutionV2", 398888935463796127ull, 1005859804226725325ull, "Convolution",
     13553933750987029374ull, 2},
    {"ConvolutionBackwardData", "ConvolutionBackwardDataV2", 9995886723833562949ull, 16334703432944436329ull,
     "ConvolutionBackwardData", 13385245508966352414ull, 2},
    {"ConvBiasForward", "ConvBiasForwardV4", 3637775072465142873ull, 17532003616627982465ull,
     "ConvBiasForward", 14020002824874596106ull, 2},
    {"BatchConvBiasForward", "BatchConvBiasForwardV1", 18160310046911419454ull, 7642445736364092188ull,
     "BatchConvBiasForward", 4072610153149334073ull, 2},
    {"Convolution3DForward", "Convolution3D", 3958372889349838822ull, 18421865185156001720ull,
     "Convolution3D", 3958372889349838822ull, 2},
    {"LocalShareForward", "LocalShareForwardV1", 10347340852525272700ull, 2371195947753554836ull,
     "LocalShareForward", 11438370329554618081ull, 2},
    {"DeformableConvForward", "DeformableConvForwardV1", 8691128236371122633ull, 11017218381981369915ull,
     "DeformableConvForward", 10684543513979984201ull, 2},
    {"PoolingForward", "PoolingV1", 13971837637008153736ull, 5154136392692894827ull, "PoolingV1",
     5154136392692894827ull, 1},
    {"AdaptivePoolingForward", "AdaptivePoolingV1", 9148921010455511705ull, 14420471329773230998ull,
     "AdaptivePoolingV1", 14420471329773230998ull, 1},
    {"BatchNormForward", "BatchNormV1", 8412279353930197262ull, 6032777997293313103ull, "BatchNormV1",
     6032777997293313103ull, 1},
    {"LayerNormForward", "LayerNorm", 17564392905013364699ull, 7219531316962817841ull, "LayerNorm",
     7219531316962817841ull, 1},
    {"GroupNormForward", "GroupNorm", 13415324093269581296ull, 17015953218772758475ull, "GroupNorm",
     13415324093269581296ull, 2},
    {"InstanceNormForward", "InstanceNorm", 15322463570856234020ull, 13670649785787407526ull, "InstanceNorm",
     15322463570856234020ull, 2},
    {"GeneralNormForward", "GeneralNorm", 5406691552895662385ull, 229545222685796468ull, "GeneralNorm",
     229545222685796468ull, 1},
    {"SoftmaxForward", "Softmax", 17433518091429734055ull, 7753381912106699036ull, "Softmax",
     17433518091429734055ull, 2},
    {"LRNForward", "LRN", 1059971726246193068ull, 16961886508966845526ull, "LRN", 16961886508966845526ull, 1},
    {"MatrixMul", "MatrixMulV2", 13377158960990194401ull, 3532845811984360002ull, "MatrixMulV2",
     3532845811984360002ull, 1},
    {"BatchedMatrixMul", "BatchedMatrixMulV2", 15207233433500908970ull, 11589553432132359716ull,
     "BatchedMatrixMulV2", 11589553432132359716ull, 1},
    {"Dot", "Dot", 3099084962463867228ull, 340606220358368278ull, "Dot", 340606220358368278ull, 1},
    {"Reshape", "ReshapeV1", 12107467801887169079ull, 13416951895346073752ull, "ReshapeV1",
     13416951895346073752ull, 1},
    {"Broadcast", "Broadcast", 4356013351611734721ull, 7936973888418590970ull, "Broadcast",
     7936973888418590970ull, 1},
    {"Dimshuffle", "Dimshuffle", 16341454431755512467ull, 12661883266288314988ull, "Dimshuffle",
     12661883266288314988ull, 1},
    {"AxisAddRemove", "AxisAddRemove", 4531286874383711702ull, 16635466391166707394ull, "AxisAddRemove",
     16635466391166707394ull, 1},
    {"Concat", "Concat", 1147508067098681647ull, 9254494158825588843ull, "Concat", 9254494158825588843ull, 1},
    {"Split", "Split", 17108944865963415359ull, 3888906695511029191ull, "Split", 3888906695511029191ull, 1},
    {"GetVarShape", "GetVarShapeV1", 420368402167866970ull, 1191858899092043317ull, "GetVarShapeV1",
     1191858899092043317ull, 1},
    {"Subtensor", "Subtensor", 4191369723585739853ull, 5965999436643207205ull, "Subtensor",
     5965999436643207205ull, 1},
    {"SetSubtensor", "SetSubtensor", 17094250030427382695ull, 5715857166626516904ull, "SetSubtensor",
     5715857166626516904ull, 1},
    {"IncrSubtensor", "IncrSubtensor", 550526267625512719ull, 12612170597450966062ull, "IncrSubtensor",
     12612170597450966062ull, 1},
    {"IndexingMultiAxisVec", "IndexingMultiAxisVec", 16324625526410578007ull, 16716479579333089639ull,
     "IndexingMultiAxisVec", 16716479579333089639ull, 1},
    {"IndexingOneHot", "IndexingOneHot", 1617793321523022237ull, 9091995996295894829ull, "IndexingOneHot",
     9091995996295894829ull, 1},
    {"PaddingForward", "Padding", 9900607576573363837ull, 8595819172804097094ull, "Padding",
     8595819172804097094ull, 1},
    {"RelayoutFormat", "RelayoutFormatV1", 4491167554709169420ull, 3045039161730867197ull, "RelayoutFormatV1",
     3045039161730867197ull, 1},
    {"ResizeForward", "ResizeV2", 4257660177517047913ull, 2961320257790257266ull, "ResizeV2",
     2961320257790257266ull, 1},
    {"WarpPerspectiveForward", "WarpPerspectiveV2", 16071922779227072566ull, 7748309056852641149ull,
     "WarpPerspectiveV2", 7748309056852641149ull, 1},
    {"WarpAffineForward", "WarpAffineV2", 4229707358715931568ull, 4439108789117598576ull, "WarpAffineV2",
     4439108789117598576ull, 1},
    {"RemapForward", "RemapV1", 17329299439164282474ull, 7991894348397599907ull, "RemapV1",
     7991894348397599907ull, 1},
    {"Argmax", "Argmax", 11529728997699271527ull, 13058155132752716377ull, "Argmax", 13058155132752716377ull,
     1},
    {"Argmin", "Argmin", 4505624168907520755ull, 7101073215918429656ull, "Argmin", 7101073215918429656ull, 1},
    {"ArgsortForward", "Argsort", 3244937698553822362ull, 3966741638081812863ull, "Argsort",
     3966741638081812863ull, 1},
    {"TopK", "TopK", 342229907871570751ull, 3492863564509811887ull, "TopK", 3492863564509811887ull, 1},
    {"CondTake", "CondTake", 10947600316762895964ull, 12716086571372722558ull, "CondTake",
     12716086571372722558ull, 1},
    {"Cumsum", "CumsumV1", 4254094950660026616ull, 4881526395661771330ull, "CumsumV1", 4881526395661771330ull,
     1},
    {"WhereForward", "Where", 5325506513733584871ull, 12119744632192557544ull, "Where",
     12119744632192557544ull, 1},
    {"CheckNonFinite", "CheckNonFinite", 1172941019585180218ull, 7019647185624875471ull, "CheckNonFinite",
     7019647185624875471ull, 1},
    {"Linspace", "Linspace", 16502420122900532397ull, 5790229234089783718ull, "Linspace",
     5790229234089783718ull, 1},
    {"Eye", "Eye", 5478303782874675494ull, 7647302513250927550ull, "Eye", 7647302513250927550ull, 1},
    {"Alloc", "Alloc", 1483949363830661953ull, 18066725298356410135ull, "Alloc", 18066725298356410135ull, 1},
    {"UniformRNG", "UniformRNGV1", 16953649146293869420ull, 2021268840938002607ull, "UniformRNGV1",
     2021268840938002607ull, 1},
    {"GaussianRNG", "GaussianRNGV1", 90180076644856056ull, 12713498428712098256ull, "GaussianRNGV1",
     12713498428712098256ull, 1},
    {"DropoutForward", "Dropout", 3731628926224532141ull, 10141575378753535428ull, "Dropout",
     10141575378753535428ull, 1},
    {"MultiHeadAttnForward", "MultiHeadAttn", 10823589890459732839ull, 15170215230809952785ull,
     "MultiHeadAttn", 15170215230809952785ull, 1},
    {"AssertEqual", "AssertEqual", 1225319139678932379ull, 7135914203479735452ull, "AssertEqual",
     7135914203479735452ull, 1},
    {"Identity", "Identity", 3432045686431204000ull, 18434495665359673677ull, "Identity",
     18434495665359673677ull, 1},
    {"MarkDynamicVar", "MarkDynamicVar", 14394560528774649944ull, 14283345401061673113ull, "MarkDynamicVar",
     14283345401061673113ull, 1},
    {"VirtualDep", "VirtualDep", 1869165298984382818ull, 4643954226802548522ull, "VirtualDep",
     4643954226802548522ull, 1},
    {"PersistentOutputStorage", "PersistentOutputStorage", 15224684966432678634ull, 3075992660344587810ull,
     "PersistentOutputStorage", 3075992660344587810ull, 1},
    {"FakeQuantForward", "FakeQuant", 147624489646671383ull, 13847006732235797939ull, "FakeQuant",
     13847006732235797939ull, 1},
    {"TQTForward", "TQT", 17944319229043899047ull, 18013660124381204544ull, "TQT", 18013660124381204544ull,
     1},
    {"LSQForward", "LSQ", 5135845397549390887ull, 5073413380495979713ull, "LSQ", 5073413380495979713ull, 1},
    {"CustomOpNode", "CustomOpNode", 13308547780691756482ull, 7799621608848894225ull, "CustomOpNode",
     13308547780691756482ull, 2},
};

TEST(OpIds, EveryRowOfSection4_3MatchesTheComputedIds) {
    EXPECT_EQ(std::size(kSpecRows), 74u);
    for (const auto& row : kSpecRows) {
        SCOPED_TRACE(std::string(row.typeinfo));
        const auto& op = op_named(row.typeinfo);
        EXPECT_EQ(op.typeinfo, row.typeinfo);
        EXPECT_EQ(op.token, row.token);
        EXPECT_EQ(op_id_full(row.token), row.v1_id);
        EXPECT_EQ(op_id_unversioned(row.token), row.unversioned_id);
        EXPECT_EQ(fbs_v1_type_id(op, false), row.v1_id);
        EXPECT_EQ(fbs_v1_type_id(op, true), row.unversioned_id);
        const auto v2 = fbs_v2_identity(op, 2);
        EXPECT_EQ(v2.type, row.v2_type);
        EXPECT_EQ(v2.type_id, row.v2_type_id);
        EXPECT_EQ(v2.opr_version, row.v2_version);
    }
}

// NMSKeep is not in §4.3's table: src/opr/impl/standalone/nms_opr.cpp registers it
// as `using NMSKeepMGB = NMSKeep; MGB_SEREG_OPR(NMSKeepMGB, 1)`, a plain
// registration under the alias. The ids are H("NMSKeepMGB") and U("NMSKeepMGB")
// from a pure-Python XXH64 (seed 20160701) that reproduces §4.1's examples; a
// real MegEngine loaded files written with them, in both formats.
TEST(OpIds, NMSKeepIsRegisteredUnderItsAliasNMSKeepMGB) {
    const auto& op = op_named("NMSKeep");
    EXPECT_EQ(op.token, "NMSKeepMGB");
    EXPECT_EQ(fbs_v1_type_id(op, false), 18144144210543198270ull);
    EXPECT_EQ(fbs_v1_type_id(op, true), 10784269134792009564ull);
    const auto v2 = fbs_v2_identity(op, 2);
    EXPECT_EQ(v2.type, "NMSKeepMGB");
    EXPECT_EQ(v2.type_id, 10784269134792009564ull);
    EXPECT_EQ(v2.opr_version, 1u);
    EXPECT_EQ(find_op_by_v2_id(10784269134792009564ull, 1), ir::find_op("NMSKeep"));
}

TEST(OpIds, EveryRowOfSection4_3ResolvesBackToItsOperator) {
    for (const auto& row : kSpecRows) {
        SCOPED_TRACE(std::string(row.typeinfo));
        const auto id = ir::find_op(row.typeinfo);
        ASSERT_TRUE(id);
        EXPECT_EQ(find_op_by_v1_id(row.v1_id, false), id);
        EXPECT_EQ(find_op_by_v1_id(row.unversioned_id, true), id);
        EXPECT_EQ(find_op_by_v2_id(row.v2_type_id, row.v2_version), id);
    }
}

TEST(OpIds, ModelVersionOneUsesTheVersionOneEntryEvenWhenAVersionTwoExists) {
    const auto& conv = op_named("Convolution");
    const auto v2 = fbs_v2_identity(conv, 1);
    EXPECT_EQ(v2.type, "ConvolutionV2");
    EXPECT_EQ(v2.type_id, op_id_unversioned("ConvolutionV2"));
    EXPECT_EQ(v2.type_id, 1005859804226725325ull);
    EXPECT_EQ(v2.opr_version, 1u);
    EXPECT_EQ(find_op_by_v2_id(v2.type_id, 1), ir::find_op("Convolution"));
}

TEST(OpIds, OperatorsWithoutAVersionTwoRegistrationIgnoreTheModelVersion) {
    const auto& pooling = op_named("Pooling");
    const auto a = fbs_v2_identity(pooling, 1), b = fbs_v2_identity(pooling, 2),
               c = fbs_v2_identity(pooling, 7);
    EXPECT_EQ(a.type, "PoolingV1");
    EXPECT_EQ(a.type_id, b.type_id);
    EXPECT_EQ(b.type_id, c.type_id);
    EXPECT_EQ(c.opr_version, 1u);
}

TEST(OpIds, VersionTwoRegistrationsOfTheNotesGetAFullHashAndVersionTwo) {
    // Spec §4.3 notes: operators registered with MGB_SEREG_OPR_V2 beyond the table rows.
    for (std::string_view name :
         {"ConvolutionBackwardFilter", "Convolution3DBackwardData", "Convolution3DBackwardFilter",
          "LocalShareBackwardData", "LocalShareBackwardFilter", "DeformableConvBackwardData",
          "DeformableConvBackwardFilter", "GroupNormBackward", "InstanceNormBackward"}) {
        SCOPED_TRACE(std::string(name));
        const auto& op = op_named(name);
        const auto v2 = fbs_v2_identity(op, 2);
        EXPECT_EQ(v2.type, name);
        EXPECT_EQ(v2.type_id, op_id_full(name));
        EXPECT_EQ(v2.opr_version, 2u);
    }
}

TEST(OpIds, UnknownIdsResolveToAnInvalidOperator) {
    EXPECT_FALSE(find_op_by_v1_id(12345, false));
    EXPECT_FALSE(find_op_by_v1_id(12345, true));
    EXPECT_FALSE(find_op_by_v2_id(12345, 1));
    // A right type_id with the wrong version is not a match: the loader keys on both.
    EXPECT_FALSE(find_op_by_v2_id(op_id_full("Convolution"), 1));
    EXPECT_FALSE(find_op_by_v2_id(op_id_unversioned("Elemwise"), 2));
}

TEST(OpIds, EveryRegisteredOperatorHasDistinctIdsInEachNamespace) {
    const auto defs = ir::op_defs();
    for (uint32_t i = 0; i < defs.size(); ++i) {
        SCOPED_TRACE(std::string(defs[i].name));
        const ir::OpTypeId id{i};
        EXPECT_EQ(find_op_by_v1_id(fbs_v1_type_id(defs[i], false), false), id);
        EXPECT_EQ(find_op_by_v1_id(fbs_v1_type_id(defs[i], true), true), id);
        for (uint32_t mv : {1u, 2u}) {
            const auto v2 = fbs_v2_identity(defs[i], mv);
            EXPECT_EQ(find_op_by_v2_id(v2.type_id, v2.opr_version), id);
        }
    }
}

// --- the real MGBS files ------------------------------------------------------------

nlohmann::json read_json(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("test: cannot open " + path);
    return nlohmann::json::parse(in);
}

std::vector<std::string> operator_names_of(const std::string& file) {
    const auto graph = read_json(std::string(MGEDUMP_SOURCE_DIR "/../shared/realdata/megengine/") + file);
    std::vector<std::string> names;
    for (const auto& opr : graph.at("oprs")) {
        const auto type_id = opr.at("type_id").get<uint64_t>();
        const auto id = find_op_by_v1_id(type_id, true);
        if (!id) {
            names.push_back("<unknown " + std::to_string(type_id) + ">");
            continue;
        }
        names.emplace_back(ir::op_def(id).name);
        // The union param each operator wrote is its first param table.
        const auto& params = ir::op_def(id).params;
        if (opr.contains("param_type")) {
            EXPECT_FALSE(params.empty()) << names.back();
            if (!params.empty()) {
                EXPECT_EQ(opr.at("param_type").get<std::string>(), "param_" + std::string(params[0]));
            }
        } else {
            EXPECT_TRUE(params.empty()) << names.back();
        }
    }
    return names;
}

TEST(OpIds, TypeIdsOfTheXornetFileResolveAsUnversionedIds) {
    const std::vector<std::string> expected = {
        "ImmutableTensor", "ImmutableTensor", "Host2DeviceCopy", "ImmutableTensor", "MatrixMul",
        "ImmutableTensor", "Elemwise",        "ImmutableTensor", "MatrixMul",       "Elemwise",
        "ImmutableTensor", "MatrixMul",       "Elemwise",        "Reduce",          "Elemwise",
        "Elemwise",        "Reduce",          "Elemwise",
    };
    EXPECT_EQ(operator_names_of("chenls_xornet_deploy.flatc.json"), expected);
}

TEST(OpIds, TypeIdsOfTheConvolutionBackwardFilterFileResolveAsUnversionedIds) {
    const std::vector<std::string> expected = {
        "Host2DeviceCopy",
        "ImmutableTensor",
        "ImmutableTensor",
        "Convolution",
        "ImmutableTensor",
        "Elemwise",
        "GetVarShape",
        "Broadcast",
        "GetVarShape",
        "Reduce",
        "ConvolutionBackwardFilter",
    };
    EXPECT_EQ(operator_names_of("mgeconvert_convolution-backward-filter.flatc.json"), expected);
}

}  // namespace
}  // namespace mgedump::formats
