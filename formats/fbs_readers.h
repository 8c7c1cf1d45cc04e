// The two format readers behind formats/model_reader.h. Internal to formats/.
#pragma once

#include <memory>

#include "formats/model_reader.h"

namespace mgedump::formats {

// `bytes` starts at the graph's first byte; `base` is its offset in the file (for messages).
LoadedModel read_fbs_v1(ir::Bytes bytes, uint64_t base, std::shared_ptr<const void> keepalive);
LoadedModel read_fbs_v2(ir::Bytes bytes, uint64_t base, std::shared_ptr<const void> keepalive);

}  // namespace mgedump::formats
