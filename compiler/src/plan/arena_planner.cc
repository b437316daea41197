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
  PlanInOrder(order);
}

void ArenaPlanner::PlanBestOf() {
  std::vector<int> base(buffers_.size());
  std::iota(base.begin(), base.end(), 0);
  const auto length = [&](int i) { return buffers_[i].last_use - buffers_[i].first_use + 1; };
  std::vector<std::vector<int>> orders(6, base);
  std::stable_sort(orders[0].begin(), orders[0].end(), [&](int a, int b) {  // Plan()'s order
    return buffers_[a].bytes != buffers_[b].bytes ? buffers_[a].bytes > buffers_[b].bytes
                                                  : buffers_[a].first_use < buffers_[b].first_use;
  });
  std::stable_sort(orders[1].begin(), orders[1].end(), [&](int a, int b) {
    return length(a) != length(b) ? length(a) > length(b) : buffers_[a].bytes > buffers_[b].bytes;
  });
  std::stable_sort(orders[2].begin(), orders[2].end(), [&](int a, int b) {
    return buffers_[a].bytes * static_cast<uint64_t>(length(a)) >
           buffers_[b].bytes * static_cast<uint64_t>(length(b));
  });
  std::stable_sort(orders[3].begin(), orders[3].end(), [&](int a, int b) {
    return buffers_[a].first_use != buffers_[b].first_use
               ? buffers_[a].first_use < buffers_[b].first_use
               : buffers_[a].bytes > buffers_[b].bytes;
  });
  std::stable_sort(orders[4].begin(), orders[4].end(), [&](int a, int b) {
    return buffers_[a].bytes != buffers_[b].bytes ? buffers_[a].bytes > buffers_[b].bytes
                                                  : length(a) > length(b);
  });
  std::stable_sort(orders[5].begin(), orders[5].end(), [&](int a, int b) {
    return buffers_[a].last_use != buffers_[b].last_use
               ? buffers_[a].last_use > buffers_[b].last_use
               : buffers_[a].bytes > buffers_[b].bytes;
  });
  std::vector<uint64_t> best_offsets;
  uint64_t best = UINT64_MAX;
  for (const std::vector<int>& order : orders) {
    PlanInOrder(order);
    if (arena_bytes_ >= best) continue;
    best = arena_bytes_;
    best_offsets.clear();
    for (const Buffer& b : buffers_) best_offsets.push_back(b.offset);
  }
  for (size_t i = 0; i < buffers_.size(); ++i) buffers_[i].offset = best_offsets[i];
  arena_bytes_ = best == UINT64_MAX ? 0 : best;
}

void ArenaPlanner::PlanInOrder(const std::vector<int>& order) {
  std::vector<int> placed;
  arena_bytes_ = 0;
  for (int id : order) {
    Buffer& cur = buffers_[id];
    std::vector<const Buffer*> live;
    for (int p : placed) {
      const Buffer& o = buffers_[p];
      if (o.first_use <= cur.last_use && cur.first_use <= o.last_use) live.push_back(&o);
    }
    std::sort(live.begin(), live.end(),
              [](const Buffer* a, const Buffer* b) { return a->offset < b->offset; });
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
