// Errors are exceptions that carry their context in the message: which model,
// operator, field or byte offset, and what was expected. Callers that batch many
// models catch them per model (jobs/), so one bad model never stops the others.
#pragma once

#include <stdexcept>
#include <string>

namespace mgedump {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The graph itself is wrong: dangling ids, cycles, bad arity, unknown operator.
class GraphError : public Error {
public:
    using Error::Error;
};

// Bytes from outside are wrong: bad magic, failed verification, sizes that lie.
class FormatError : public Error {
public:
    using Error::Error;
};

// Options that cannot be honoured, alone or together.
class OptionError : public Error {
public:
    using Error::Error;
};

// A hard limit of the format would be exceeded (2 GiB FBS_V2, 4 GiB v1 tensor, ...).
class LimitError : public Error {
public:
    using Error::Error;
};

}  // namespace mgedump
