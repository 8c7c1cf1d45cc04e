// Include after <xxhash.h> where bulk bytes are hashed. Debian's libxxhash builds
// its plain XXH3 entry points for baseline x86-64 (SSE2); its *_dispatch entry
// points pick AVX2 or AVX-512 at run time and are about four times faster on
// weights. The digests are identical, so this only changes speed.
#pragma once

#include <fmt/format.h>
#include <xxhash.h>

#include <cstddef>
#include <new>
#include <string>

#if defined(__x86_64__) && __has_include(<xxh_x86dispatch.h>)
#include <xxh_x86dispatch.h>
#endif

namespace mgedump::ir {

// How mgedump prints an xxh3-128 digest (reports, stamps, the CLI): 32 hex
// digits, the high half first.
inline std::string xxh3_128_hex(XXH128_hash_t h) { return fmt::format("{:016x}{:016x}", h.high64, h.low64); }

// A streaming XXH3-128, freed on every path (through the dispatching entry points above).
class Xxh3State {
  public:
    Xxh3State() : state_(XXH3_createState()) {
        if (!state_) throw std::bad_alloc();
        XXH3_128bits_reset(state_);
    }
    ~Xxh3State() { XXH3_freeState(state_); }
    Xxh3State(const Xxh3State&) = delete;
    Xxh3State& operator=(const Xxh3State&) = delete;
    void update(const void* bytes, size_t n) { XXH3_128bits_update(state_, bytes, n); }
    XXH128_hash_t digest() const { return XXH3_128bits_digest(state_); }

  private:
    XXH3_state_t* state_;
};

}  // namespace mgedump::ir
