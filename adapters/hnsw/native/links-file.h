// Reading a links-only file (adapters/hnsw/graph-file.ts writes it: hnswlib's file with every live
// element's vector left out, since the store keeps them) straight into an hnswlib graph.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "hnswlib/hnswlib.h"

namespace ragdesk {

// A restored graph's live slots still waiting for their vector from the store. Deleted slots kept
// theirs in the file and start placed.
struct Unplaced {
  static constexpr uint8_t kMissing = 0;
  static constexpr uint8_t kWriting = 1;
  static constexpr uint8_t kPlaced = 2;
  explicit Unplaced(size_t slots) : placed(new std::atomic<uint8_t>[slots]()), slots(slots) {}
  std::unique_ptr<std::atomic<uint8_t>[]> placed;
  size_t slots;
  std::atomic<size_t> missing{0};
};

// The graph of the links file at `path`, laid out as hnswlib's loadIndex lays out its own file, with
// zeros where live vectors go; `unplaced` names those slots. Throws std::runtime_error when the file
// is not a links file of this space (truncated, another layout, a live label twice).
std::unique_ptr<hnswlib::HierarchicalNSW<float>> readLinksFile(const std::string& path, hnswlib::SpaceInterface<float>* space,
                                                               size_t dimensions, std::unique_ptr<Unplaced>& unplaced);

}  // namespace ragdesk
