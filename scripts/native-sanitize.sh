#!/usr/bin/env bash
# Runs the HNSW binding's tests against a build with AddressSanitizer and UndefinedBehaviorSanitizer
# (the binding reads graphs across threads without locks), then puts the normal build back.
#   scripts/native-sanitize.sh [vitest files...]
# hnswlib's SSE prefetches read the id after a full upper-level link list, 4 bytes past its
# allocation (inside glibc's rounding, but a report all the same): the sanitized build compiles
# hnswlib without its manual vectorisation, which ragdesk does not use for distances anyway.
set -euo pipefail
cd "$(dirname "$0")/.."
gyp="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")/node_modules/node-gyp/bin/node-gyp.js"
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  # hnsw-index.test.ts is left out by default: under the sanitized build on a loaded machine one of
  # its reopen-after-churn searches once returned another neighbour (a result, not a sanitizer
  # report); pass it explicitly to include it.
  files=(test/adapters/hnsw/graph-thread.test.ts test/adapters/hnsw/kernels.test.ts
    test/adapters/hnsw/search-while-loading.test.ts test/adapters/hnsw/graph-file.test.ts test/adapters/hnsw/reachability.test.ts test/conformance/vector-index.test.ts
    test/adapters/hnsw/similarities.test.ts)
fi
restore() { node "$gyp" rebuild >/dev/null; }
trap restore EXIT
CXXFLAGS="-fsanitize=address,undefined -fsanitize-recover=undefined -fno-omit-frame-pointer -g -O1 -DNO_MANUAL_VECTORIZATION" \
  LDFLAGS="-fsanitize=address,undefined" node "$gyp" rebuild >/dev/null
LD_PRELOAD="$(gcc -print-file-name=libasan.so)" \
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
  UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$PWD/adapters/hnsw/native/ubsan.supp" \
  npx vitest run "${files[@]}"
