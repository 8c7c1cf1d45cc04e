// Re-dumping a loaded model faithfully: the dump options its file implies (format,
// header, versions, what names and priorities it kept, metadata), and the matching
// comparison settings. Shared by `mgedump verify`, `convert` defaults and tests.
#pragma once

#include "engine/dump_options.h"
#include "engine/model_compare.h"
#include "formats/model_reader.h"

namespace mgedump::engine {

// MGBS → FBS with compat 8.14 (same header and ids); MGBC → FBS; FBS_V2 → FBS_V2 at
// the file's model_version. The graph is dumped unchanged (no rewrites) except in
// 8.14 mode, where MegEngine requires them (they are no-ops on a dumped graph).
DumpOptions redump_options(const formats::LoadedModel& m);
// What a load of that re-dump can be compared on.
CompareOptions redump_compare_options(const formats::LoadedModel& m);
DumpFormat dump_format_of(formats::ModelFormat f);

}  // namespace mgedump::engine
