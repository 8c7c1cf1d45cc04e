// Memory a writer reuses from one model to the next: the FlatBuffer's buffer and
// the writer's working lists. One scratch serves one dump at a time (a batch
// leases one per running job). The buffer of a dump comes back to the scratch
// only when the Serialized holding it is destroyed, i.e. after its artifact is
// written; a dump made while an earlier one is still held gets fresh memory.
// Bytes never depend on what recycled memory held: FlatBuffers writes every byte
// of the buffer it finishes (padding included), which tests check by poisoning.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace mgedump::formats {

struct WriteScratchStats {
    uint64_t buffers_reused = 0;     // buffer requests served by a recycled block
    uint64_t buffers_allocated = 0;  // buffer requests that had to allocate
};

// Offset lists a writer fills per model or per operator; cleared before each use,
// their capacity stays.
struct WriterLists {
    std::vector<flatbuffers::Offset<void>> oprs, tensors, blobs, middle_tensors, output_vars;
};

class WriteScratch {
  public:
    // A recycled block larger than `max_retained_bytes` is freed rather than kept.
    explicit WriteScratch(size_t max_retained_bytes = size_t{256} << 20);
    // Every Serialized made with this scratch must be destroyed first.
    ~WriteScratch();
    WriteScratch(const WriteScratch&) = delete;
    WriteScratch& operator=(const WriteScratch&) = delete;

    // For a FlatBufferBuilder: its buffer comes from (and returns to) this scratch.
    flatbuffers::Allocator* allocator() { return &allocator_; }
    // The builder size to ask for: `planned`, or the whole recycled block when it
    // is larger, so the builder grows into memory it already has.
    size_t builder_size(size_t planned) const;

    WriterLists lists;

    // Tests: fill every block handed out with a pattern, so a byte the writer
    // failed to write would show in the output.
    void poison_buffers(bool on) { allocator_.poison = on; }
    WriteScratchStats stats() const;

  private:
    class Recycler : public flatbuffers::Allocator {
      public:
        uint8_t* allocate(size_t size) override;
        void deallocate(uint8_t* p, size_t size) override;
        ~Recycler() override;

        struct Block {
            uint8_t* p = nullptr;
            size_t capacity = 0;
        };
        size_t max_retained = 0;
        bool poison = false;
        mutable std::mutex mutex;  // a buffer may be released on another thread
        Block spare;
        std::vector<Block> live;  // handed out, not yet returned
        WriteScratchStats stats;
    };
    Recycler allocator_;
};

}  // namespace mgedump::formats
