// Which refusals of ONNX's test models are of models MegEngine has no counterpart
// for: the models left out of issue #17's share ("the models whose operators and
// types have a MegEngine counterpart convert and match"). Only what MegEngine itself
// cannot hold is listed; every other refusal counts against the importer, however
// hard the mapping would be (control flow, runtime axes, quantization, ...).
#pragma once

#include <optional>
#include <string_view>

namespace mgedump {

struct NoCounterpart {
    std::string_view refusal_class;  // a class of refusal_classes(); "x*": a prefix, "*x": a suffix
    std::string_view why;
};

inline constexpr std::string_view kNoUnsigned32 =
    "MegDNN's dtypes (dnn/include/megdnn/dtype.h MEGDNN_FOREACH_DTYPE_NAME) have no 32- or 64-bit unsigned integer";
inline constexpr std::string_view kNoString = "MegDNN has no string dtype";
inline constexpr std::string_view kNotATensor =
    "a sequence or optional value: every MegEngine var is one tensor; it has no sequence or optional type";
inline constexpr std::string_view kRandom =
    "random samples: MegEngine's RNG operators cannot reproduce the samples of ONNX's reference generator "
    "(numpy's), so there are no expected outputs to match";

inline constexpr NoCounterpart kNoCounterparts[] = {
    {"element type UINT# has no MegEngine dtype", kNoUnsigned32},
    {"element type STRING has no MegEngine dtype", kNoString},
    {"Cast: element type STRING has no MegEngine dtype", kNoString},
    {"unsupported operator StringNormalizer", kNoString},
    {"unsupported operator Sequence*", kNotATensor},
    {"unsupported operator SplitToSequence", kNotATensor},
    {"unsupported operator ConcatFromSequence", kNotATensor},
    {"unsupported operator Optional*", kNotATensor},
    {"*: only tensor inputs are supported", kNotATensor},  // "graph input 'x': only tensor inputs ..."
    {"unsupported operator Bernoulli", kRandom},
    {"unsupported operator RandomUniformLike", kRandom},
};

// Why a refusal of this class means MegEngine has no counterpart, or nullopt.
inline std::optional<std::string_view> no_counterpart(std::string_view refusal_class) {
    for (const NoCounterpart& n : kNoCounterparts) {
        const std::string_view c = n.refusal_class;
        const bool match = c.ends_with('*')     ? refusal_class.starts_with(c.substr(0, c.size() - 1))
                           : c.starts_with('*') ? refusal_class.ends_with(c.substr(1))
                                                : refusal_class == c;
        if (match) return n.why;
    }
    return std::nullopt;
}

}  // namespace mgedump
