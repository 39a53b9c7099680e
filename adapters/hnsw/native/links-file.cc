// See links-file.h. The layout is hnswlib 0.8's saveIndex: a 96-byte header, one level-0 record per
// element (links, vector, label), then each element's upper-level link lists. In a links file a live
// element's record lacks its vector; a deleted one is whole (hnswlib's delete mark says which).
// What loadIndex would set from a full file is set here from the links file, so the graph needs no
// full file on disk: that file, written and then read back, was most of reopening a collection.
//
// Level 0 is copied apart from the rest because it is the slow part: one allocation the size of
// every point (168 MB at 100k x 384), whose first write page-faults it in (~140 ms at 100k on the
// 2-core benchmark machine), while the rest of the file is read in ~40 ms. A search meanwhile
// reads the links from the file.
#include "links-file.h"

#include <cstdio>
#include <stdexcept>

namespace ragdesk {
namespace {

constexpr size_t kHeaderBytes = 96;

[[noreturn]] void corrupt(const char* what) { throw std::runtime_error(std::string("links file: ") + what); }

std::vector<char> readWhole(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) corrupt("cannot open");
  if (std::fseek(file.get(), 0, SEEK_END) != 0) corrupt("cannot seek");
  const long size = std::ftell(file.get());
  if (size < 0 || std::fseek(file.get(), 0, SEEK_SET) != 0) corrupt("cannot seek");
  std::vector<char> bytes(static_cast<size_t>(size));
  if (!bytes.empty() && std::fread(bytes.data(), 1, bytes.size(), file.get()) != bytes.size()) corrupt("short read");
  return bytes;
}

// Reads fields in file order, as hnswlib's readBinaryPOD does, refusing to run past the end.
class Cursor {
 public:
  explicit Cursor(const std::vector<char>& bytes) : bytes_(bytes) {}
  template <typename T>
  T read() {
    T value;
    std::memcpy(&value, take(sizeof(T)), sizeof(T));
    return value;
  }
  const char* take(size_t length) {
    if (length > bytes_.size() - at_) corrupt("truncated");
    const char* start = bytes_.data() + at_;
    at_ += length;
    return start;
  }
  size_t at() const { return at_; }
  bool ended() const { return at_ == bytes_.size(); }

 private:
  const std::vector<char>& bytes_;
  size_t at_ = 0;
};

}  // namespace

std::unique_ptr<hnswlib::HierarchicalNSW<float>> readLinksFile(const std::string& path, hnswlib::SpaceInterface<float>* space,
                                                               size_t dimensions, std::unique_ptr<Unplaced>& unplaced) {
  std::vector<char> bytes = readWhole(path);
  Cursor in(bytes);
  const auto offsetLevel0 = in.read<size_t>();
  const auto maxElements = in.read<size_t>();
  const auto count = in.read<size_t>();
  const auto recordBytes = in.read<size_t>();
  const auto labelOffset = in.read<size_t>();
  const auto dataOffset = in.read<size_t>();
  const auto maxLevel = in.read<int>();
  const auto entryPoint = in.read<hnswlib::tableint>();
  in.read<size_t>();  // maxM_, derived from M below
  const auto maxM0 = in.read<size_t>();
  const auto m = in.read<size_t>();
  const auto mult = in.read<double>();
  const auto efConstruction = in.read<size_t>();
  if (in.at() != kHeaderBytes) corrupt("header size");
  const size_t dataBytes = dimensions * sizeof(float);
  if (offsetLevel0 != 0 || dataOffset + dataBytes != labelOffset || labelOffset + sizeof(hnswlib::labeltype) != recordBytes ||
      count > maxElements || m == 0 || m > 10000 || maxM0 != 2 * m || dataOffset % sizeof(hnswlib::tableint) != 0) {
    corrupt("unexpected layout");
  }
  if (count > 0 && (entryPoint >= count || maxLevel < 0)) corrupt("entry point");

  auto graph = std::make_unique<hnswlib::HierarchicalNSW<float>>(space, std::max<size_t>(maxElements, 1), m, efConstruction, 100, true);
  if (graph->size_data_per_element_ != recordBytes || graph->offsetData_ != dataOffset || graph->label_offset_ != labelOffset) {
    corrupt("unexpected layout");
  }
  graph->mult_ = mult;
  graph->revSize_ = 1.0 / mult;
  graph->maxlevel_ = count == 0 ? -1 : maxLevel;
  graph->enterpoint_node_ = count == 0 ? static_cast<hnswlib::tableint>(-1) : entryPoint;

  auto waiting = std::make_unique<Unplaced>(count);
  waiting->dataOffset = dataOffset;
  waiting->labelOffset = labelOffset;
  graph->label_lookup_.reserve(count);
  const size_t shortBytes = recordBytes - dataBytes;
  size_t missing = 0;
  for (size_t i = 0; i < count; i++) {
    waiting->recordAt[i] = in.at();
    // hnswlib's delete mark: bit 0 of the third byte of the level-0 link header.
    const char* head = in.take(3);
    const bool deleted = (static_cast<unsigned char>(head[2]) & 1) != 0;
    in.take((deleted ? recordBytes : shortBytes) - 3);
    // Searches follow these links before hnswlib's level 0 holds them: each must name an element.
    hnswlib::linklistsizeint links0;
    std::memcpy(&links0, head, sizeof(links0));
    const size_t degree = links0 & 0xffff;
    if (degree > maxM0) corrupt("level-0 links");
    for (size_t j = 0; j < degree; j++) {
      hnswlib::tableint target;
      std::memcpy(&target, head + sizeof(links0) + j * sizeof(target), sizeof(target));
      if (target >= count) corrupt("level-0 links");
    }
    hnswlib::labeltype label;
    std::memcpy(&label, head + (deleted ? labelOffset : dataOffset), sizeof(label));
    const auto slot = static_cast<hnswlib::tableint>(i);
    if (deleted) {
      waiting->placed[i].store(Unplaced::kPlaced, std::memory_order_relaxed);
      graph->num_deleted_ += 1;
      graph->deleted_elements.insert(slot);
    } else {
      missing++;
    }
    const auto [entry, added] = graph->label_lookup_.emplace(label, slot);
    if (!added) {
      // Two live points under one label would make one unreachable. Otherwise the live one keeps
      // the label (hnswlib's loader gives it to the later slot).
      const bool earlierDeleted = (static_cast<unsigned char>(bytes[waiting->recordAt[entry->second] + 2]) & 1) != 0;
      if (!deleted && !earlierDeleted) corrupt("a live label appears twice");
      if (!deleted || earlierDeleted) entry->second = slot;
    }
  }
  graph->cur_element_count = count;
  for (size_t i = 0; i < count; i++) {
    const auto size = in.read<unsigned int>();
    if (size % graph->size_links_per_element_ != 0 || size / graph->size_links_per_element_ > static_cast<size_t>(std::max(maxLevel, 0))) {
      corrupt("upper-level links");
    }
    graph->element_levels_[i] = static_cast<int>(size / graph->size_links_per_element_);
    graph->linkLists_[i] = nullptr;
    if (size == 0) continue;
    const char* links = in.take(size);
    graph->linkLists_[i] = static_cast<char*>(std::malloc(size));
    if (graph->linkLists_[i] == nullptr) throw std::runtime_error("Not enough memory: links file upper levels");
    std::memcpy(graph->linkLists_[i], links, size);
  }
  if (!in.ended()) corrupt("trailing bytes");
  waiting->missing.store(missing, std::memory_order_relaxed);
  waiting->file = std::move(bytes);
  unplaced = std::move(waiting);
  return graph;
}

void layOut(hnswlib::HierarchicalNSW<float>& graph, Unplaced& unplaced) {
  if (unplaced.laidOut.load()) return;
  const size_t recordBytes = graph.size_data_per_element_;
  for (size_t i = 0; i < unplaced.slots; i++) {
    char* record = graph.data_level0_memory_ + i * recordBytes;
    const char* source = unplaced.record(i);
    if (unplaced.deleted(i)) {
      std::memcpy(record, source, recordBytes);
    } else {
      std::memcpy(record, source, unplaced.dataOffset);
      std::memcpy(record + unplaced.labelOffset, source + unplaced.dataOffset, sizeof(hnswlib::labeltype));
    }
  }
  unplaced.laidOut.store(true);
}

}  // namespace ragdesk
