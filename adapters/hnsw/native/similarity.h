// The cosine of a query with points a graph already holds, for hits another retriever found: a
// lexical hit is reported with its similarity to the query too, and reading its vector back from
// the store cost more than the search that found it.
#pragma once

#include <cstddef>

namespace ragdesk {

// dot(query, point) and |point|², in double: the query already in double, the point as the graph
// stores it (float). Computed in double so that the cosine equals the one of the vectors the store
// holds to within rounding, whatever the dimensions.
using DotAndNorm = void (*)(const double* query, const float* point, size_t dimensions, double& dot, double& norm);

// The kernel for this CPU: AVX2 + FMA when it has them and innerProductKernel() is not the portable one.
DotAndNorm dotAndNorm();

}  // namespace ragdesk
