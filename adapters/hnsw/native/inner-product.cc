// Why kernels of our own: hnswlib compiles its AVX and AVX-512 distances only when the whole
// translation unit is built for them (-march=native), and npm builds addons with the baseline
// flags, so every install ran the SSE kernel. Here each wide kernel carries its own target
// attribute and is chosen at run time, so one portable binary uses what the CPU has.
#include "inner-product.h"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define RAGDESK_X86 1
#endif

namespace ragdesk {
namespace {

float portable(const void* a, const void* b, const void* param) {
  const size_t n = *static_cast<const size_t*>(param);
  const float* x = static_cast<const float*>(a);
  const float* y = static_cast<const float*>(b);
  float sum = 0.0f;
  for (size_t i = 0; i < n; i++) sum += x[i] * y[i];
  return 1.0f - sum;
}

#ifdef RAGDESK_X86
__attribute__((target("avx512f"))) float avx512(const void* a, const void* b, const void* param) {
  const size_t n = *static_cast<const size_t*>(param);
  const float* x = static_cast<const float*>(a);
  const float* y = static_cast<const float*>(b);
  // Two accumulators: an FMA's latency is four cycles, one chain would wait on itself.
  __m512 first = _mm512_setzero_ps();
  __m512 second = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    first = _mm512_fmadd_ps(_mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i), first);
    second = _mm512_fmadd_ps(_mm512_loadu_ps(x + i + 16), _mm512_loadu_ps(y + i + 16), second);
  }
  for (; i + 16 <= n; i += 16) first = _mm512_fmadd_ps(_mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i), first);
  float sum = _mm512_reduce_add_ps(_mm512_add_ps(first, second));
  for (; i < n; i++) sum += x[i] * y[i];
  return 1.0f - sum;
}

__attribute__((target("avx2,fma"))) float avx2(const void* a, const void* b, const void* param) {
  const size_t n = *static_cast<const size_t*>(param);
  const float* x = static_cast<const float*>(a);
  const float* y = static_cast<const float*>(b);
  __m256 first = _mm256_setzero_ps();
  __m256 second = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    first = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), first);
    second = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(y + i + 8), second);
  }
  for (; i + 8 <= n; i += 8) first = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), first);
  const __m256 both = _mm256_add_ps(first, second);
  const __m128 half = _mm_add_ps(_mm256_castps256_ps128(both), _mm256_extractf128_ps(both, 1));
  const __m128 pairs = _mm_add_ps(half, _mm_movehl_ps(half, half));
  float sum = _mm_cvtss_f32(_mm_add_ss(pairs, _mm_shuffle_ps(pairs, pairs, 1)));
  for (; i < n; i++) sum += x[i] * y[i];
  return 1.0f - sum;
}
#endif

struct Choice {
  DistanceFunction function;
  const char* name;
};

// RAGDESK_HNSW_KERNEL=portable|avx2|avx512 asks for a narrower kernel than the widest (to compare
// kernels on one machine, or to rule one out); a kernel the CPU lacks is never chosen, and the
// loader refuses the mismatch it then sees in innerProductKernel().
bool allowed(const char* name) {
  const char* wanted = std::getenv("RAGDESK_HNSW_KERNEL");
  return wanted == nullptr || *wanted == '\0' || std::strcmp(wanted, name) == 0;
}

Choice choose() {
#ifdef RAGDESK_X86
  // GCC's and Clang's checks include the operating system's support for the wide registers.
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && allowed("avx512")) return {avx512, "avx512"};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && allowed("avx2")) return {avx2, "avx2"};
#endif
  return {portable, "portable"};
}

const Choice& chosen() {
  static const Choice choice = choose();
  return choice;
}

}  // namespace

DistanceFunction innerProductDistance() { return chosen().function; }

const char* innerProductKernel() { return chosen().name; }

}  // namespace ragdesk
