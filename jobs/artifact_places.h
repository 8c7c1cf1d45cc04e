// Where every artifact of a batch lands, for the check its readers make on the
// side files a graph is read from (a graph JSON's .npy weights, an ONNX model's
// external data). Those are known only once a graph is read, so the manifest
// check cannot see them; a job whose graph reads a file another job's artifact
// replaces would read the weights or the artifact, depending on which job ran
// first. Refusing the file before it is read makes that job fail the same way
// whatever the order.
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "jobs/manifest.h"

namespace mgedump::jobs {

class ArtifactPlaces {
  public:
    // Every job of the manifest, not only this shard's: other shards write
    // into the same OUT_DIR.
    // `written_after`: BatchOptions::written_after.
    ArtifactPlaces(const Manifest& manifest, std::filesystem::path out_dir,
                   const std::vector<std::pair<std::filesystem::path, std::string>>& written_after)
        : manifest_(manifest), out_dir_(std::move(out_dir)), written_after_(written_after) {}

    // Throws Error when `side`, a file `reader`'s graph is about to read, is where
    // an artifact of another job lands, or a file written after the jobs; the
    // message does not repeat the file's path, which the reader names with its
    // place in the graph. (An artifact of `reader` itself on its
    // own weight file fails that artifact alone, when it is written.)
    void refuse_if_the_batch_writes(const std::filesystem::path& side, const Job& reader) const;

  private:
    // A job's artifact, or (job null) a file written after the jobs.
    struct Artifact {
        const Job* job;
        const Variant* variant;
        const std::string* what;  // for a file written after the jobs
    };
    // Built at the first side file: most batches read none.
    const std::map<std::filesystem::path, Artifact>& places() const;

    const Manifest& manifest_;
    std::filesystem::path out_dir_;
    const std::vector<std::pair<std::filesystem::path, std::string>>& written_after_;
    mutable std::once_flag built_;
    mutable std::map<std::filesystem::path, Artifact> places_;  // by the place's canonical path
};

}  // namespace mgedump::jobs
