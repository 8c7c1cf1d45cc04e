// NMSKeep (src/opr/impl/standalone/nms_opr.cpp) as its CPU kernel computes it
// (standalone/nms_cpu.cpp): a greedy pass over each batch's boxes in their given
// order (a caller sorts them by score first).
#pragma once

#include "engine/eval/kernel.h"

namespace mgedump::engine::eval {

void nms_keep(KernelContext& ctx);

}  // namespace mgedump::engine::eval
