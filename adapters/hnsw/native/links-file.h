// Reading a links-only file (adapters/hnsw/files/graph-file.ts writes it: hnswlib's file with every live
// element's vector left out, since the store keeps them) into an hnswlib graph, in two steps: what
// a search needs first (readLinksFile), then hnswlib's own layout (layOut).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "hnswlib/hnswlib.h"

namespace ragdesk {

// A restored graph until every live vector is back. The store sends each live vector once (place),
// while a search may fetch the few it needs first (lend). A slot's state only moves forward:
// missing -> writing -> lent or placed, lent -> placed when the store's pass reaches it. Deleted
// slots kept their vectors in the file and start placed.
//
// Until layOut has copied the file into hnswlib's level 0, the level-0 links, labels and delete
// marks are read from the file itself (a search reads them here, partial-search.h), and only the
// vectors placed or lent are in hnswlib's memory.
struct Unplaced {
  static constexpr uint8_t kMissing = 0;
  static constexpr uint8_t kWriting = 1;
  static constexpr uint8_t kLent = 2;
  static constexpr uint8_t kPlaced = 3;
  explicit Unplaced(size_t slots) : placed(new std::atomic<uint8_t>[slots]()), slots(slots), recordAt(slots) {}

  // Whether a search may measure the slot's point.
  bool ready(size_t slot) const { return slot >= slots || placed[slot].load(std::memory_order_acquire) >= kLent; }
  const char* record(size_t slot) const { return file.data() + recordAt[slot]; }
  bool deleted(size_t slot) const { return (static_cast<unsigned char>(record(slot)[2]) & 1) != 0; }
  hnswlib::labeltype label(size_t slot) const {
    hnswlib::labeltype value;
    std::memcpy(&value, record(slot) + (deleted(slot) ? labelOffset : dataOffset), sizeof(value));
    return value;
  }
  hnswlib::linklistsizeint* links(size_t slot) const {
    return reinterpret_cast<hnswlib::linklistsizeint*>(const_cast<char*>(record(slot)));
  }
  const void* vector(const hnswlib::HierarchicalNSW<float>& graph, size_t slot) const {
    return deleted(slot) ? record(slot) + dataOffset : graph.getDataByInternalId(static_cast<hnswlib::tableint>(slot));
  }

  std::unique_ptr<std::atomic<uint8_t>[]> placed;
  size_t slots;
  // Live slots without a vector yet, and slots that have one only lent.
  std::atomic<size_t> missing{0};
  std::atomic<size_t> lent{0};
  // Set once hnswlib's level 0 holds the file's links and labels (layOut).
  std::atomic<bool> laidOut{false};
  std::vector<char> file;
  std::vector<size_t> recordAt;
  size_t dataOffset = 0;
  size_t labelOffset = 0;
};

// The graph of the links file at `path`: entry point, upper levels and label lookup set, level 0
// not yet copied (layOut); `unplaced` has the file and which slots wait for a vector. Throws
// std::runtime_error when the file is not a links file of this space (truncated, another layout,
// a live label twice).
std::unique_ptr<hnswlib::HierarchicalNSW<float>> readLinksFile(const std::string& path, hnswlib::SpaceInterface<float>* space,
                                                               size_t dimensions, std::unique_ptr<Unplaced>& unplaced);

// Copies the file's level 0 (links and labels; deleted records whole) into the graph's memory,
// leaving the live vectors' bytes to place and lend. Once only; the thread that places calls it.
void layOut(hnswlib::HierarchicalNSW<float>& graph, Unplaced& unplaced);

}  // namespace ragdesk
