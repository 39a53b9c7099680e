// hnswlib's inner-product distance (1 - dot), with the widest SIMD kernel the running CPU has.
#pragma once

#include <cstddef>

namespace ragdesk {

using DistanceFunction = float (*)(const void*, const void*, const void*);

// The kernel for this CPU, chosen once: AVX-512, AVX2 + FMA, or portable C++. The parameter the
// kernel takes is a pointer to the dimension count (size_t), as in hnswlib's spaces.
DistanceFunction innerProductDistance();

// Which kernel innerProductDistance() returns: "avx512", "avx2" or "portable".
const char* innerProductKernel();

}  // namespace ragdesk
