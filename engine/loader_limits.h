// Files MegEngine writes but cannot load back. A dump that would produce one is
// refused before writing, with MegEngine's reason and the option that works.
#pragma once

#include <span>

#include "engine/dump_options.h"
#include "ir/graph.h"

namespace mgedump::engine {

// Throws OptionError naming the first operator concerned:
//  * FBS_V2 model_version 1 with an operator that writes more than one param table
//    (the convolution family's ExecutionPolicy): GraphLoaderOSSV2's
//    OprLoadContextImpl::get_next_param refuses it ("When load multi param in one
//    Operator, please use read_param(index) interface.");
//  * FBS with CheckNonFinite: the file numbers only its flag, but the loaded
//    operator's every output is numbered, so the loader reads past the output
//    names (serializer_oss.cpp:820, a crash) and every later id is off; with
//    compat_older_version 8.14 its Empty param also fails read_param (misc.sereg.h:84).
void check_loadable_by_megengine(const ir::Graph& g, std::span<const ir::OprId> order, const DumpOptions& options);

}  // namespace mgedump::engine
