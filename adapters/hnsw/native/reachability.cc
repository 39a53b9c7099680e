// See reachability.h. The walk reads each point's level-0 list once, in the order the links lead
// (one cache miss per point): its cost is in docs/reliability.md.
#include "reachability.h"

#include <algorithm>
#include <cstdint>
#include <mutex>

namespace ragdesk {
namespace {

using Graph = hnswlib::HierarchicalNSW<float>;
using Candidate = std::pair<float, hnswlib::tableint>;
using Queue = std::priority_queue<Candidate, std::vector<Candidate>, Graph::CompareByFirst>;

// Re-linking rounds: a point is linked without dropping another point's last link unless every
// reachable list is full, so one round is the rule; later ones cover points a dropped link cut off.
constexpr int kRounds = 8;

// Marks in `reached` every point a level-0 walk from `from` reaches that is not marked yet.
void walk(const Graph& graph, hnswlib::tableint from, std::vector<char>& reached, std::vector<hnswlib::tableint>& stack) {
  if (reached[from]) return;
  reached[from] = 1;
  stack.push_back(from);
  while (!stack.empty()) {
    const hnswlib::tableint point = stack.back();
    stack.pop_back();
    hnswlib::linklistsizeint* links = graph.get_linklist0(point);
    const size_t size = graph.getListCount(links);
    const auto* neighbours = reinterpret_cast<const hnswlib::tableint*>(links + 1);
    for (size_t i = 0; i < size; i++) {
      const hnswlib::tableint next = neighbours[i];
      if (next >= reached.size() || reached[next]) continue;
      reached[next] = 1;
      stack.push_back(next);
    }
  }
}

std::vector<char> reachedFromEntry(const Graph& graph, std::vector<hnswlib::tableint>& stack) {
  std::vector<char> reached(graph.cur_element_count, 0);
  const hnswlib::tableint entry = graph.enterpoint_node_;
  if (entry < graph.cur_element_count) walk(graph, entry, reached, stack);
  return reached;
}

std::vector<hnswlib::tableint> unreached(const Graph& graph, const std::vector<char>& reached) {
  std::vector<hnswlib::tableint> slots;
  for (hnswlib::tableint slot = 0; slot < reached.size(); slot++) {
    if (!reached[slot] && !graph.isMarkedDeleted(slot)) slots.push_back(slot);
  }
  return slots;
}

// The reachable points nearest `point`, as an insert finds them: greedy descent through the upper
// levels, then hnswlib's level-0 beam (efConstruction); unreachable ones are left out.
Queue nearReachable(Graph& graph, hnswlib::tableint point, const std::vector<char>& reached) {
  const void* data = graph.getDataByInternalId(point);
  hnswlib::tableint current = graph.enterpoint_node_;
  float closest = graph.fstdistfunc_(data, graph.getDataByInternalId(current), graph.dist_func_param_);
  for (int level = graph.maxlevel_; level > 0; level--) {
    for (bool changed = true; changed;) {
      changed = false;
      hnswlib::linklistsizeint* links = graph.get_linklist(current, level);
      const size_t size = graph.getListCount(links);
      const auto* neighbours = reinterpret_cast<const hnswlib::tableint*>(links + 1);
      for (size_t i = 0; i < size; i++) {
        const float distance = graph.fstdistfunc_(data, graph.getDataByInternalId(neighbours[i]), graph.dist_func_param_);
        if (distance < closest && reached[neighbours[i]]) {
          closest = distance;
          current = neighbours[i];
          changed = true;
        }
      }
    }
  }
  Queue found = graph.searchBaseLayer(current, data, 0);
  Queue near;
  for (; !found.empty(); found.pop()) {
    if (found.top().second != point && reached[found.top().second]) near.push(found.top());
  }
  return near;
}

// Level-0 links into each point from reachable points (saturating): a link is only dropped where
// its target keeps another.
using InDegree = std::vector<uint16_t>;

InDegree inDegrees(Graph& graph, const std::vector<char>& reached) {
  InDegree degrees(graph.cur_element_count, 0);
  for (hnswlib::tableint slot = 0; slot < degrees.size(); slot++) {
    // Links from points no walk reaches do not keep a point reachable.
    if (!reached[slot]) continue;
    hnswlib::linklistsizeint* links = graph.get_linklist0(slot);
    const size_t size = graph.getListCount(links);
    const auto* neighbours = reinterpret_cast<const hnswlib::tableint*>(links + 1);
    for (size_t i = 0; i < size; i++) {
      uint16_t& degree = degrees[neighbours[i]];
      if (degree < UINT16_MAX) degree++;
    }
  }
  return degrees;
}

// Adds `point` to `from`'s level-0 list if it has room; true when `from` links to it afterwards.
bool linkFrom(Graph& graph, hnswlib::tableint from, hnswlib::tableint point, InDegree& degrees) {
  std::lock_guard<std::mutex> lock(graph.link_list_locks_[from]);
  hnswlib::linklistsizeint* links = graph.get_linklist0(from);
  const size_t size = graph.getListCount(links);
  auto* neighbours = reinterpret_cast<hnswlib::tableint*>(links + 1);
  if (std::find(neighbours, neighbours + size, point) != neighbours + size) return true;
  if (size >= graph.maxM0_) return false;
  neighbours[size] = point;
  graph.setListCount(links, static_cast<unsigned short>(size + 1));
  if (degrees[point] < UINT16_MAX) degrees[point]++;
  return true;
}

// `from`'s farthest level-0 link whose target has another link into it gives way to `point`, or
// with `anyLink` its farthest link at all (the point it dropped may be unreachable now: the next
// round finds it). False when no link was given up.
bool replaceLink(Graph& graph, hnswlib::tableint from, hnswlib::tableint point, InDegree& degrees, bool anyLink) {
  std::lock_guard<std::mutex> lock(graph.link_list_locks_[from]);
  hnswlib::linklistsizeint* links = graph.get_linklist0(from);
  const size_t size = graph.getListCount(links);
  auto* neighbours = reinterpret_cast<hnswlib::tableint*>(links + 1);
  const void* origin = graph.getDataByInternalId(from);
  size_t replaced = size;
  float farthest = -1;
  for (size_t i = 0; i < size; i++) {
    if (!anyLink && degrees[neighbours[i]] < 2) continue;
    const float d = graph.fstdistfunc_(origin, graph.getDataByInternalId(neighbours[i]), graph.dist_func_param_);
    if (d > farthest) farthest = d, replaced = i;
  }
  if (replaced == size) return false;
  degrees[neighbours[replaced]]--;
  neighbours[replaced] = point;
  if (degrees[point] < UINT16_MAX) degrees[point]++;
  return true;
}

// A reachable point with room in its level-0 list, searched from `cursor` on (kept between calls);
// the graph's size when there is none.
hnswlib::tableint anyWithRoom(Graph& graph, const std::vector<char>& reached, hnswlib::tableint& cursor) {
  const size_t count = reached.size();
  for (size_t step = 0; step < count; step++, cursor = static_cast<hnswlib::tableint>((cursor + 1) % count)) {
    if (reached[cursor] && graph.getListCount(graph.get_linklist0(cursor)) < graph.maxM0_) return cursor;
  }
  return static_cast<hnswlib::tableint>(count);
}

// Links `point` (unreachable) from reachable points, without cutting another point off where that
// can be helped: from the diverse near points hnswlib's heuristic picks, as an insert would, where
// they have room; else from the nearest with room; else in place of a near point's link to a point
// that keeps another; else from any reachable point with room; else in place of the nearest point's
// farthest link.
void relink(Graph& graph, hnswlib::tableint point, const std::vector<char>& reached, InDegree& degrees, hnswlib::tableint& cursor) {
  Queue near = nearReachable(graph, point, reached);
  std::vector<Candidate> byDistance;
  for (Queue copy = near; !copy.empty(); copy.pop()) byDistance.push_back(copy.top());
  std::reverse(byDistance.begin(), byDistance.end());
  // Every reachable point near it is deleted: searches still walk through the entry point.
  if (byDistance.empty()) byDistance.emplace_back(0.0f, graph.enterpoint_node_);
  graph.getNeighborsByHeuristic2(near, graph.M_);
  bool linked = false;
  for (; !near.empty(); near.pop()) linked = linkFrom(graph, near.top().second, point, degrees) || linked;
  for (size_t i = 0; !linked && i < byDistance.size(); i++) linked = linkFrom(graph, byDistance[i].second, point, degrees);
  for (size_t i = 0; !linked && i < byDistance.size(); i++) linked = replaceLink(graph, byDistance[i].second, point, degrees, false);
  if (linked) return;
  const hnswlib::tableint roomy = anyWithRoom(graph, reached, cursor);
  if (roomy < reached.size() && linkFrom(graph, roomy, point, degrees)) return;
  replaceLink(graph, byDistance.front().second, point, degrees, true);
}

}  // namespace

std::vector<hnswlib::tableint> unreachableSlots(const Graph& graph) {
  if (graph.enterpoint_node_ >= graph.cur_element_count) return {};
  std::vector<hnswlib::tableint> stack;
  return unreached(graph, reachedFromEntry(graph, stack));
}

size_t reconnectUnreachable(Graph& graph) {
  // No entry point yet: an empty graph.
  if (graph.enterpoint_node_ >= graph.cur_element_count) return 0;
  size_t relinked = 0;
  std::vector<hnswlib::tableint> stack;
  for (int round = 0; round < kRounds; round++) {
    std::vector<char> reached = reachedFromEntry(graph, stack);
    const std::vector<hnswlib::tableint> slots = unreached(graph, reached);
    if (slots.empty()) return relinked;
    InDegree degrees = inDegrees(graph, reached);
    hnswlib::tableint cursor = 0;
    for (const hnswlib::tableint slot : slots) {
      // Linking an earlier point may have made this one reachable through that point's links.
      if (reached[slot]) continue;
      relink(graph, slot, reached, degrees, cursor);
      walk(graph, slot, reached, stack);
      relinked++;
    }
  }
  return relinked;
}

}  // namespace ragdesk
