// Why a kernel of its own: hnswlib's distances are float sums, whose rounding grows with the
// dimensions, and a reported score must equal the cosine of the stored vectors; these are in double.
#include "similarity.h"

#include <cstring>

#include "inner-product.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define RAGDESK_X86 1
#endif

namespace ragdesk {
namespace {

// Four accumulators each: one chain of additions would wait on its own latency at every step.
void portable(const double* query, const float* point, size_t dimensions, double& dot, double& norm) {
  double dots[4] = {0, 0, 0, 0};
  double norms[4] = {0, 0, 0, 0};
  size_t i = 0;
  for (; i + 4 <= dimensions; i += 4) {
    for (size_t lane = 0; lane < 4; lane++) {
      const double value = point[i + lane];
      dots[lane] += query[i + lane] * value;
      norms[lane] += value * value;
    }
  }
  for (; i < dimensions; i++) {
    const double value = point[i];
    dots[0] += query[i] * value;
    norms[0] += value * value;
  }
  dot = (dots[0] + dots[1]) + (dots[2] + dots[3]);
  norm = (norms[0] + norms[1]) + (norms[2] + norms[3]);
}

#ifdef RAGDESK_X86
__attribute__((target("avx2,fma"))) double sum(__m256d lanes) {
  const __m128d half = _mm_add_pd(_mm256_castpd256_pd128(lanes), _mm256_extractf128_pd(lanes, 1));
  return _mm_cvtsd_f64(_mm_add_sd(half, _mm_unpackhi_pd(half, half)));
}

__attribute__((target("avx2,fma"))) void avx2(const double* query, const float* point, size_t dimensions, double& dot, double& norm) {
  __m256d dotA = _mm256_setzero_pd();
  __m256d dotB = _mm256_setzero_pd();
  __m256d normA = _mm256_setzero_pd();
  __m256d normB = _mm256_setzero_pd();
  size_t i = 0;
  for (; i + 8 <= dimensions; i += 8) {
    const __m256d a = _mm256_cvtps_pd(_mm_loadu_ps(point + i));
    const __m256d b = _mm256_cvtps_pd(_mm_loadu_ps(point + i + 4));
    dotA = _mm256_fmadd_pd(_mm256_loadu_pd(query + i), a, dotA);
    dotB = _mm256_fmadd_pd(_mm256_loadu_pd(query + i + 4), b, dotB);
    normA = _mm256_fmadd_pd(a, a, normA);
    normB = _mm256_fmadd_pd(b, b, normB);
  }
  double dotSum = sum(_mm256_add_pd(dotA, dotB));
  double normSum = sum(_mm256_add_pd(normA, normB));
  for (; i < dimensions; i++) {
    const double value = point[i];
    dotSum += query[i] * value;
    normSum += value * value;
  }
  dot = dotSum;
  norm = normSum;
}
#endif

DotAndNorm choose() {
#ifdef RAGDESK_X86
  // RAGDESK_HNSW_KERNEL=portable (see inner-product.cc) rules out the wide kernel here too.
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && std::strcmp(innerProductKernel(), "portable") != 0) return avx2;
#endif
  return portable;
}

}  // namespace

DotAndNorm dotAndNorm() {
  static const DotAndNorm chosen = choose();
  return chosen;
}

}  // namespace ragdesk
