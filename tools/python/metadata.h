// MegEngine's SerializationMetadata (spec §6.9) as Python sees it.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <string_view>

#include "ir/metadata.h"

namespace mgedump::python {

// None → nullopt (MegEngine's default metadata); a mgedump.Metadata or a dict with
// its field names. Throws ValueError naming `what` and the field.
std::optional<ir::Metadata> metadata_from_py(pybind11::handle value, std::string_view what);

}  // namespace mgedump::python
