// Every live point of a graph must be reachable: a search walks level 0 from where the upper
// levels lead it, so a point no level-0 link leads to is never returned, whatever the beam.
// hnswlib does not promise this: when a list is full, or when an update or the reuse of a deleted
// slot rewrites the lists around a point (updatePoint), its pruning heuristic keeps a diverse few
// neighbours and may drop the only link to some point. On tight clusters of vectors (near-duplicate
// texts) about 1 in 100 seeded runs of 300 changes (graphs of 40 to 250 points) left one point so.
// These checks find such points and link them again (graph-worker.ts says when they run).
#pragma once

#include <cstddef>
#include <vector>

#include "hnswlib/hnswlib.h"

namespace ragdesk {

// Live slots that no walk over level-0 links from the entry point reaches (deleted points are
// walked through, as a search does). Needs level 0 in hnswlib's memory (after layOut).
std::vector<hnswlib::tableint> unreachableSlots(const hnswlib::HierarchicalNSW<float>& graph);

// Links every unreachable live point from reachable points near it, in rounds until none is left
// (up to 8); returns how many links it made. Needs every vector in place. Only a graph where every
// reachable list is full can keep points unreachable after that (unreachableSlots says which); the
// next check retries them.
size_t reconnectUnreachable(hnswlib::HierarchicalNSW<float>& graph);

}  // namespace ragdesk
