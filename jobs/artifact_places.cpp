#include "jobs/artifact_places.h"

#include <fmt/format.h>

#include "ir/error.h"
#include "jobs/output_path.h"

namespace mgedump::jobs {

namespace fs = std::filesystem;

const std::map<fs::path, ArtifactPlaces::Artifact>& ArtifactPlaces::places() const {
    std::call_once(built_, [&] {
        // An artifact's file is never a symlink (check_output_location), so its
        // place is its directory's place and its name; most artifacts share a
        // directory, resolved once.
        std::map<fs::path, fs::path> dir_places;
        for (const Job& job : manifest_.jobs)
            for (const Variant& v : job.variants) {
                const fs::path artifact = out_dir_ / v.output;
                auto dir = dir_places.try_emplace(artifact.parent_path()).first;
                if (dir->second.empty()) dir->second = resolved_place(dir->first);
                places_.emplace(dir->second / artifact.filename(), Artifact{&job, &v, nullptr});
            }
        for (const auto& [path, what] : written_after_)
            places_.emplace(resolved_place(path), Artifact{nullptr, nullptr, &what});
    });
    return places_;
}

void ArtifactPlaces::refuse_if_the_batch_writes(const fs::path& side, const Job& reader) const {
    const auto& all = places();
    const auto it = all.find(resolved_place(side));
    if (it == all.end() || it->second.job == &reader) return;
    const Artifact& a = it->second;
    if (!a.job)
        throw Error(
            fmt::format("the batch writes {} there once the jobs are done, replacing it; give it another "
                        "file",
                        *a.what));
    // The reader's message names the file and where the graph names it.
    throw Error(
        fmt::format("job {} ({}) writes its output \"{}\" there, so what this job read would depend on "
                    "which job ran first; write the artifacts to another directory (-o) or give that "
                    "output another name",
                    a.job->index + 1, a.job->where, a.variant->output));
}

}  // namespace mgedump::jobs
