// Searching a restored graph before every vector is back in it (links-file.h): the walk hnswlib's
// search takes, where each point it reaches must already hold its vector.
#pragma once

#include <cstdint>
#include <mutex>
#include <queue>
#include <utility>
#include <vector>

#include "hnswlib/hnswlib.h"
#include "links-file.h"

namespace ragdesk {

// The entry point and top level, read together under the lock an insert that raises the top level
// holds (hnswlib's searchKnn reads them apart, and could pair a new level with an old entry point
// that has no links there). False for a graph without an entry point yet.
inline bool entryPoint(hnswlib::HierarchicalNSW<float>& graph, hnswlib::tableint& entry, int& top) {
  if (graph.cur_element_count == 0) return false;
  {
    std::lock_guard<std::mutex> guard(graph.global);
    entry = graph.enterpoint_node_;
    top = graph.maxlevel_;
  }
  // The first insert counts its element before it makes it the entry point.
  return entry != static_cast<hnswlib::tableint>(-1);
}

// The k nearest allowed labels as hnswlib's search finds them (greedy descent through the upper
// levels, then a beam of `ef` on level 0, the bare variant when nothing is deleted or filtered),
// except that a point whose vector is not placed yet is neither measured nor followed: its label
// goes to `missing`. With `missing` empty the walk met only placed points, so the answer is the
// one the whole graph gives; otherwise the caller places those vectors and searches again.
std::priority_queue<std::pair<float, hnswlib::labeltype>> partialNearest(hnswlib::HierarchicalNSW<float>& graph, const Unplaced& unplaced,
                                                                        const void* query, size_t k, size_t ef,
                                                                        hnswlib::BaseFilterFunctor* filter, std::vector<uint32_t>& missing);

}  // namespace ragdesk
