#include "tools/cli/any_model.h"

#include "engine/load.h"
#include "jobs/model_input.h"
#include "tools/cli/input_kind.h"

namespace mgedump::cli {

ir::Graph read_any_model(const std::string& path) {
    if (input_kind(path) == InputKind::Mge) return engine::load_file(path).graph;
    return jobs::read_model_input(path).graph;
}

}  // namespace mgedump::cli
