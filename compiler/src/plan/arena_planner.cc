#include "plan/arena_planner.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace edgefold::compiler {

int ArenaPlanner::AddBuffer(uint64_t bytes, int first_use, int last_use) {
  Buffer b;
  b.bytes = AlignUp(bytes);
  b.first_use = std::min(first_use, last_use);
  b.last_use = std::max(first_use, last_use);
  buffers_.push_back(b);
  return static_cast<int>(buffers_.size()) - 1;
}

void ArenaPlanner::Plan() {
  std::vector<int> order(buffers_.size());
  std::iota(order.begin(), order.end(), 0);
  // Largest first; ties: earlier first use, then id (deterministic output).
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (buffers_[a].bytes != buffers_[b].bytes) return buffers_[a].bytes > buffers_[b].bytes;
    return buffers_[a].first_use < buffers_[b].first_use;
  });
  std::vector<int> placed;
  arena_bytes_ = 0;
  for (int id : order) {
    Buffer& cur = buffers_[id];
    std::vector<const Buffer*> live;
    for (int p : placed) {
      const Buffer& o = buffers_[p];
      if (o.first_use <= cur.last_use && cur.first_use <= o.last_use) live.push_back(&o);
    }
    std::sort(live.begin(), live.end(), [](const Buffer* a, const Buffer* b) { return a->offset < b->offset; });
    uint64_t candidate = 0;
    for (const Buffer* o : live) {
      if (candidate + cur.bytes <= o->offset) break;  // fits in the gap below o
      candidate = std::max(candidate, o->offset + o->bytes);
    }
    cur.offset = candidate;
    arena_bytes_ = std::max(arena_bytes_, AlignUp(cur.offset + cur.bytes));
    placed.push_back(id);
  }
}

uint64_t ArenaPlanner::lower_bound() const {
  std::map<int, int64_t> delta;  // sweep over steps: +bytes at first_use, −bytes after last_use
  for (const Buffer& b : buffers_) {
    delta[b.first_use] += static_cast<int64_t>(b.bytes);
    delta[b.last_use + 1] -= static_cast<int64_t>(b.bytes);
  }
  int64_t live = 0, best = 0;
  for (const auto& kv : delta) {
    live += kv.second;
    best = std::max(best, live);
  }
  return static_cast<uint64_t>(best);
}

}  // namespace edgefold::compiler
