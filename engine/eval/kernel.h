// What a kernel sees of one operator: its input values, its params (through the
// inference context, which reads fields by name), and its outputs, allocated with
// the dtype and shape static inference gave them. A kernel fills its outputs;
// an output whose shape inference could not know (CondTake) is left empty and the
// kernel sets it. Kernels are plain functions, one file per operator family
// (engine/eval/kernels_*.cpp), registered by operator name in kernels.h.
#pragma once

#include <fmt/format.h>

#include <span>
#include <string>

#include "engine/eval/tensor.h"
#include "ir/error.h"
#include "ir/infer/context.h"
#include "ir/infer/shape_util.h"  // dtype_string, shape_string for messages

namespace mgedump::engine::eval {

// The graph cannot be executed as asked: an operator without a kernel, a param
// the kernel does not implement, an input feed that does not fit.
class EvalError : public Error {
public:
    using Error::Error;
};

struct EvalOptions;

class KernelContext {
public:
    KernelContext(const ir::InferContext& params, std::span<const Tensor* const> inputs, std::span<Tensor> outputs,
                  const EvalOptions& options)
        : params_(params), inputs_(inputs), outputs_(outputs), options_(options) {}

    const ir::Graph& graph() const { return params_.graph(); }
    ir::OprId opr() const { return params_.opr(); }
    // Field access by name: ctx.params().int_field("stride_h"), enum_field("mode").
    const ir::InferContext& params() const { return params_; }
    const EvalOptions& options() const { return options_; }

    size_t nr_inputs() const { return inputs_.size(); }
    const Tensor& in(size_t i) const { return *inputs_[i]; }
    size_t nr_outputs() const { return outputs_.size(); }
    Tensor& out(size_t k) { return outputs_[k]; }

    // Refuses to execute: "operator #3 'conv1' (Convolution): <why>". Throws EvalError.
    template <class... Args>
    [[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) const {
        fail_message(fmt::format(f, std::forward<Args>(args)...));
    }
    [[noreturn]] void fail_message(const std::string& why) const;

private:
    const ir::InferContext& params_;
    std::span<const Tensor* const> inputs_;
    std::span<Tensor> outputs_;
    const EvalOptions& options_;
};

using Kernel = void (*)(KernelContext&);

}  // namespace mgedump::engine::eval
