#include "bench/suites/corpus.h"

#include <map>
#include <mutex>
#include <stdexcept>

#include "bench/support/synthetic_models.h"

namespace mgedump::bench {

const ir::Graph& suite_graph(const std::string& name) {
    static std::mutex mutex;
    static std::map<std::string, ir::Graph> graphs;
    std::lock_guard lock(mutex);
    auto it = graphs.find(name);
    if (it != graphs.end()) return it->second;
    ir::Graph g;
    if (name == "weight_heavy")
        g = weight_heavy_graph(24, 1024);
    else if (name == "operator_heavy")
        g = operator_heavy_graph(1000);
    else if (name == "small")
        g = small_model(0);
    else
        throw std::invalid_argument("unknown suite graph " + name);
    return graphs.emplace(name, std::move(g)).first->second;
}

}  // namespace mgedump::bench
