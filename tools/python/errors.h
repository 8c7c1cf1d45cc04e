// How engine errors surface in Python: OptionError → ValueError, every other
// mgedump::Error → mgedump.SerializationError, message unchanged.
#pragma once

#include <exception>
#include <string_view>

namespace mgedump::python {

// Rethrows `error` as the same kind of error with `prefix` before its message
// (dump_many names the failing job this way).
[[noreturn]] void rethrow_with_prefix(std::exception_ptr error, std::string_view prefix);

}  // namespace mgedump::python
