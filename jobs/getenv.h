// Reading the process environment through a function, so that code which
// depends on what a scheduler exported (Slurm, Kubernetes) can be tested with
// any environment.
#pragma once

#include <functional>

namespace mgedump::jobs {

// One environment variable's value, nullptr when unset. An empty Getenv reads
// the real environment (std::getenv).
using Getenv = std::function<const char*(const char*)>;

}  // namespace mgedump::jobs
