// The operators, param tables and mode numbers the compatibility rewrites read and
// emit, resolved from the registries once (resolving by name per operator would put
// string lookups on the hot path of a large model).
#pragma once

#include <cstdint>

#include "ir/ids.h"

namespace mgedump::engine::passes {

// ElemwiseMode values (spec Appendix B); checked against the param registry when the
// vocabulary is built.
// clang-format off
enum class Ew : uint32_t {
    RELU = 0, ABS = 1, COS = 5, EXP = 6, EXPM1 = 7, LOG = 9, LOG1P = 10, NEGATE = 11, SIN = 13,
    ADD = 16, FLOOR_DIV = 17, MAX = 18, MIN = 19, MUL = 21, POW = 22, SUB = 24, SWITCH_GT0 = 25,
    TRUE_DIV = 27, LT = 29, LEQ = 30, EQ = 31, FUSE_MUL_ADD3 = 35, NOT = 52,
    SINH = 64, COSH = 65, ASINH = 66, ACOSH = 67, ATANH = 68, TAN = 69, PRELU = 73, CLIP = 74,
    SOFTPLUS = 76, RELU6 = 78, HSIGMOID = 80, LOGSIGMOID = 82, SQRT = 83, SQUARE = 84, SIGN = 85,
};

// ElemwiseMultiTypeMode values of the modes that are rewritten.
enum class EwMulti : uint32_t { EQ = 58, NEQ = 59, LT = 60, LEQ = 61, ISNAN = 62, ISINF = 63 };

enum class ReduceMode : uint32_t { SUM = 0, SUM_SQR = 1, PRODUCT = 2, MAX = 4, MEAN = 5 };
// clang-format on

struct Vocab {
    // Operators.
    ir::OpTypeId immutable_tensor, elemwise, elemwise_multi_type, type_cvt, pow_c, reduce, get_var_shape,
        subtensor, concat, reshape, broadcast, uniform_rng, where, softmax, layer_norm, group_norm, group_norm_backward,
        instance_norm, instance_norm_backward, dropout, check_non_finite;
    // Param tables of the operators the rewrites create.
    ir::ParamTableId elemwise_param, pow_c_param, dtype_param, reduce_param, optional_axis_v1_param,
        index_desc_param, axis_param, uniform_rng_param, empty_param;
};

// Built on first use (thread-safe); throws Error if a registry lacks an entry or a mode
// number disagrees with the param registry.
const Vocab& vocab();

}  // namespace mgedump::engine::passes
