// See partial-search.h. Written after hnswlib 0.8's searchKnn and searchBaseLayerST, with one test
// added before a point is measured; the order of every other step is theirs, so a walk that meets
// no missing point visits exactly the points theirs visits. Level-0 links, labels and delete marks
// come from the file (links-file.h), which hnswlib's level 0 may not hold yet.
#include "partial-search.h"

#include <limits>
#include <stdexcept>

namespace ragdesk {
namespace {

using Graph = hnswlib::HierarchicalNSW<float>;
using Candidate = std::pair<float, hnswlib::tableint>;
using Queue = std::priority_queue<Candidate, std::vector<Candidate>, Graph::CompareByFirst>;

class Walk {
 public:
  Walk(Graph& graph, const Unplaced& unplaced, const void* query, std::vector<uint32_t>& missing)
      : graph_(graph), unplaced_(unplaced), query_(query), missing_(missing) {}

  // The point's distance, or false (and its label noted) while its vector is not placed.
  bool measure(hnswlib::tableint point, float& distance) {
    // Level-0 links were checked when the file was read; upper-level ones are checked here.
    if (point >= unplaced_.slots) throw std::runtime_error("links file: a link past the last element");
    if (!unplaced_.ready(point)) {
      missing_.push_back(static_cast<uint32_t>(unplaced_.label(point)));
      return false;
    }
    distance = graph_.fstdistfunc_(query_, unplaced_.vector(graph_, point), graph_.dist_func_param_);
    return true;
  }

  Queue baseLayer(hnswlib::tableint entry, size_t ef, hnswlib::BaseFilterFunctor* filter, bool bare) {
    hnswlib::VisitedList* visited = graph_.visited_list_pool_->getFreeVisitedList();
    hnswlib::vl_type* marks = visited->mass;
    const hnswlib::vl_type tag = visited->curV;
    Queue top;
    Queue candidates;
    float lowerBound = std::numeric_limits<float>::max();
    float distance = 0;
    const auto accepted = [&](hnswlib::tableint point) {
      return bare || (!unplaced_.deleted(point) && (filter == nullptr || (*filter)(unplaced_.label(point))));
    };
    if (accepted(entry)) {
      if (measure(entry, distance)) {
        lowerBound = distance;
        top.emplace(distance, entry);
        candidates.emplace(-distance, entry);
      }
    } else {
      candidates.emplace(-lowerBound, entry);
    }
    marks[entry] = tag;
    while (!candidates.empty()) {
      const Candidate current = candidates.top();
      const float candidateDistance = -current.first;
      if (candidateDistance > lowerBound && (bare || top.size() == ef)) break;
      candidates.pop();
      hnswlib::linklistsizeint* links = unplaced_.links(current.second);
      const size_t size = graph_.getListCount(links);
      for (size_t j = 1; j <= size; j++) {
        const hnswlib::tableint neighbour = links[j];
        if (marks[neighbour] == tag) continue;
        marks[neighbour] = tag;
        if (!measure(neighbour, distance)) continue;
        if (top.size() < ef || lowerBound > distance) {
          candidates.emplace(-distance, neighbour);
          if (accepted(neighbour)) top.emplace(distance, neighbour);
          while (top.size() > ef) top.pop();
          if (!top.empty()) lowerBound = top.top().first;
        }
      }
    }
    graph_.visited_list_pool_->releaseVisitedList(visited);
    return top;
  }

 private:
  Graph& graph_;
  const Unplaced& unplaced_;
  const void* query_;
  std::vector<uint32_t>& missing_;
};

}  // namespace

std::priority_queue<std::pair<float, hnswlib::labeltype>> partialNearest(Graph& graph, const Unplaced& unplaced, const void* query, size_t k,
                                                                        size_t ef, hnswlib::BaseFilterFunctor* filter,
                                                                        std::vector<uint32_t>& missing) {
  std::priority_queue<std::pair<float, hnswlib::labeltype>> result;
  hnswlib::tableint current;
  int top;
  if (!entryPoint(graph, current, top)) return result;
  Walk walk(graph, unplaced, query, missing);
  float closest = 0;
  if (!walk.measure(current, closest)) return result;
  for (int level = top; level > 0; level--) {
    bool changed = true;
    while (changed) {
      changed = false;
      auto* links = reinterpret_cast<hnswlib::linklistsizeint*>(graph.get_linklist(current, level));
      const int size = graph.getListCount(links);
      for (int i = 1; i <= size; i++) {
        const hnswlib::tableint candidate = links[i];
        if (candidate > graph.max_elements_) throw std::runtime_error("cand error");
        float distance = 0;
        if (walk.measure(candidate, distance) && distance < closest) {
          closest = distance;
          current = candidate;
          changed = true;
        }
      }
    }
  }
  Queue found = walk.baseLayer(current, std::max(ef, k), filter, graph.num_deleted_ == 0 && filter == nullptr);
  while (found.size() > k) found.pop();
  for (; !found.empty(); found.pop()) result.emplace(found.top().first, unplaced.label(found.top().second));
  return result;
}

}  // namespace ragdesk
