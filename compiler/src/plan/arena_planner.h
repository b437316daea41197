// Greedy-by-size arena planner (after TFLM's GreedyMemoryPlanner).
//
// Buffers are placed largest first at the lowest 64-byte aligned offset where they overlap
// no already placed buffer whose lifetime [first_use, last_use] (inclusive op steps)
// intersects theirs. Buffers with disjoint lifetimes may share memory.
#pragma once
#include <cstdint>
#include <vector>

namespace edgefold::compiler {

constexpr uint64_t kArenaAlignmentBytes = 64;

inline uint64_t AlignUp(uint64_t bytes, uint64_t alignment = kArenaAlignmentBytes) {
  return (bytes + alignment - 1) / alignment * alignment;
}

class ArenaPlanner {
 public:
  // Returns the buffer's id. first_use <= last_use.
  int AddBuffer(uint64_t bytes, int first_use, int last_use);
  // Assigns offsets; call once after all AddBuffer calls.
  void Plan();
  // Plan() with several placement orders (largest first; longest-lived first; largest
  // bytes × lifetime first; earliest first), keeping the smallest arena. Used for the training
  // step, whose many whole-step buffers a size order alone scatters, and for inference models.
  void PlanBestOf();
  uint64_t offset(int id) const { return buffers_[id].offset; }
  // Bytes spanned by the plan (end of the highest buffer, 64-byte aligned).
  uint64_t arena_bytes() const { return arena_bytes_; }
  // max over steps of the sum of live (aligned) buffer sizes: no plan can be smaller.
  uint64_t lower_bound() const;

 private:
  struct Buffer {
    uint64_t bytes = 0;  // aligned size
    int first_use = 0, last_use = 0;
    uint64_t offset = 0;
  };
  void PlanInOrder(const std::vector<int>& order);

  std::vector<Buffer> buffers_;
  uint64_t arena_bytes_ = 0;
};

}  // namespace edgefold::compiler
