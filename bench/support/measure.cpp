#include "bench/support/measure.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstring>

namespace mgedump::bench {

double median(std::vector<double> samples) {
    if (samples.empty()) return 0;
    std::sort(samples.begin(), samples.end());
    const size_t n = samples.size();
    return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

double thread_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

uint64_t peak_rss_bytes() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

std::vector<std::span<const std::byte>> weight_segments(const ir::Graph& g) {
    std::vector<std::span<const std::byte>> out;
    for (ir::BlobId b : g.tensors.blob)
        if (b.valid()) out.push_back(g.blobs.bytes(b));
    return out;
}

uint64_t total_bytes(std::span<const std::span<const std::byte>> segments) {
    uint64_t n = 0;
    for (auto s : segments) n += s.size();
    return n;
}

void copy_segments(std::span<const std::span<const std::byte>> segments, std::byte* dst) {
    for (auto s : segments) {
        std::memcpy(dst, s.data(), s.size());
        dst += s.size();
    }
}

engine::OutputBuffer into_warm(std::vector<std::byte>& spill) {
    return [&spill](uint64_t size) {
        if (spill.size() < size) spill.resize(size);
        return std::span<std::byte>(spill.data(), size);
    };
}

}  // namespace mgedump::bench
