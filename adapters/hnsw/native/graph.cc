// ragdesk's binding to hnswlib: one cosine-space HNSW graph, the calls the graph thread makes
// (graph-worker.ts). What it does that hnswlib-node does not: inserts a batch on several threads
// (hnswlib's addPoint is thread-safe for distinct labels), takes vectors as typed arrays instead
// of plain arrays, filters by ragdesk's label tables in C++ instead of a JavaScript callback per
// candidate, and measures distances with the widest SIMD kernel the CPU has (inner-product.cc).
// The file format is hnswlib's own, so files written by hnswlib-node read here and back.
#include <napi.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <thread>
#include <unordered_set>
#include <vector>

#include "hnswlib/hnswlib.h"
#include "inner-product.h"
#include "links-file.h"
#include "partial-search.h"
#include "reachability.h"
#include "similarity.h"

namespace {

class CosineSpace : public hnswlib::SpaceInterface<float> {
 public:
  explicit CosineSpace(size_t dimensions) : dimensions_(dimensions) {}
  size_t get_data_size() override { return dimensions_ * sizeof(float); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return ragdesk::innerProductDistance(); }
  void* get_dist_func_param() override { return &dimensions_; }

 private:
  size_t dimensions_;
};

using Index = hnswlib::HierarchicalNSW<float>;

struct State {
  explicit State(size_t dimensions) : dimensions(dimensions), space(dimensions) {}
  size_t dimensions;
  CosineSpace space;
  std::unique_ptr<Index> index;
  // Set for a graph read from a links file (Graph.restore): which live slots still lack a vector.
  std::unique_ptr<ragdesk::Unplaced> unplaced;
  // hnswlib lets inserts, deletions and searches run at once, except a resize, which moves the
  // graph's memory: it takes this lock alone, everything else shares it.
  std::shared_mutex resizing;
};

// Graphs shared between threads: the graph thread registers each graph it creates or reads, and
// the thread that searches attaches to it by number (share / attach). Entries are weak: a graph
// lives as long as one thread holds it.
class Registry {
 public:
  static Registry& instance() {
    static Registry registry;
    return registry;
  }
  uint32_t add(const std::shared_ptr<State>& state) {
    std::lock_guard<std::mutex> guard(lock_);
    for (auto it = states_.begin(); it != states_.end();) it = it->second.expired() ? states_.erase(it) : std::next(it);
    const uint32_t handle = next_++;
    states_[handle] = state;
    return handle;
  }
  std::shared_ptr<State> find(uint32_t handle) {
    std::lock_guard<std::mutex> guard(lock_);
    auto found = states_.find(handle);
    return found == states_.end() ? nullptr : found->second.lock();
  }

 private:
  std::mutex lock_;
  uint32_t next_ = 1;
  std::unordered_map<uint32_t, std::weak_ptr<State>> states_;
};

// The cosine space stores unit vectors. Normalised exactly as hnswlib-node does it (a float sum of
// squares in order, its square root, one float division per component): files written by either
// binding hold the same points, and a restore (place) puts back exactly the points a file lost.
void normalise(float* vector, size_t dimensions) {
  const float norm = std::sqrt(std::fabs(std::inner_product(vector, vector + dimensions, vector, 0.0f)));
  if (norm > 0.0f) {
    for (size_t i = 0; i < dimensions; i++) vector[i] /= norm;
  }
}

// Which labels a search may return: ragdesk's label tables (datasource and custom-id numbers per
// label, -1 for a removed label) and the labels whose point in the graph is stale.
class LabelFilter : public hnswlib::BaseFilterFunctor {
 public:
  bool tables = false;
  const int32_t* source = nullptr;
  const int32_t* tenant = nullptr;
  size_t tableLength = 0;
  uint32_t nextLabel = 0;
  bool anySource = true;
  bool anyTenant = true;
  std::unordered_set<int32_t> sources;
  std::unordered_set<int32_t> tenants;
  std::unordered_set<uint32_t> hidden;

  bool operator()(hnswlib::labeltype label) override {
    if (!hidden.empty() && hidden.count(static_cast<uint32_t>(label)) > 0) return false;
    if (!tables) return true;
    if (label >= nextLabel || label >= tableLength) return false;
    const int32_t from = source[label];
    if (from < 0) return false;
    if (!anySource && sources.count(from) == 0) return false;
    return anyTenant || tenants.count(tenant[label]) > 0;
  }
};

void throwError(Napi::Env env, const std::string& message) { Napi::Error::New(env, message).ThrowAsJavaScriptException(); }

// Runs body and returns what went wrong in it: a C++ exception (hnswlib throws std::runtime_error,
// an allocation std::bad_alloc) as its message after "hnswlib: ", or an empty string.
template <typename Body>
std::string failureOf(Body&& body) {
  try {
    body();
    return {};
  } catch (const std::exception& error) {
    return std::string("hnswlib: ") + error.what();
  }
}

// failureOf on the JavaScript thread: the failure is thrown as a JavaScript error. False when it was.
template <typename Body>
bool hnswlibCall(Napi::Env env, Body&& body) {
  const std::string failure = failureOf(std::forward<Body>(body));
  if (failure.empty()) return true;
  throwError(env, failure);
  return false;
}

bool isNullish(const Napi::Value& value) { return value.IsNull() || value.IsUndefined(); }

template <typename T>
Napi::TypedArrayOf<T> typedArray(const Napi::Value& value) {
  return value.As<Napi::TypedArrayOf<T>>();
}

// filter: { source: Int32Array, tenant: Int32Array, sources: Int32Array | null,
// tenants: Int32Array | null, nextLabel: number } or null; hidden: Uint32Array or null.
void readFilter(const Napi::Value& filterValue, const Napi::Value& hiddenValue, LabelFilter& filter) {
  if (!isNullish(filterValue)) {
    const Napi::Object object = filterValue.As<Napi::Object>();
    const auto source = typedArray<int32_t>(object.Get("source"));
    const auto tenant = typedArray<int32_t>(object.Get("tenant"));
    filter.tables = true;
    filter.source = source.Data();
    filter.tenant = tenant.Data();
    filter.tableLength = std::min(source.ElementLength(), tenant.ElementLength());
    filter.nextLabel = object.Get("nextLabel").As<Napi::Number>().Uint32Value();
    const Napi::Value sources = object.Get("sources");
    if (!isNullish(sources)) {
      const auto list = typedArray<int32_t>(sources);
      filter.anySource = false;
      filter.sources.insert(list.Data(), list.Data() + list.ElementLength());
    }
    const Napi::Value tenants = object.Get("tenants");
    if (!isNullish(tenants)) {
      const auto list = typedArray<int32_t>(tenants);
      filter.anyTenant = false;
      filter.tenants.insert(list.Data(), list.Data() + list.ElementLength());
    }
  }
  if (!isNullish(hiddenValue)) {
    const auto list = typedArray<uint32_t>(hiddenValue);
    filter.hidden.insert(list.Data(), list.Data() + list.ElementLength());
  }
}

Napi::Object hits(Napi::Env env, const std::vector<uint32_t>& labels, const std::vector<double>& scores,
                  const std::vector<uint32_t>& missing) {
  auto labelArray = Napi::Uint32Array::New(env, labels.size());
  auto scoreArray = Napi::Float64Array::New(env, scores.size());
  std::copy(labels.begin(), labels.end(), labelArray.Data());
  std::copy(scores.begin(), scores.end(), scoreArray.Data());
  Napi::Object result = Napi::Object::New(env);
  result.Set("labels", labelArray);
  result.Set("scores", scoreArray);
  if (!missing.empty()) {
    std::vector<uint32_t> distinct(missing);
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    auto missingArray = Napi::Uint32Array::New(env, distinct.size());
    std::copy(distinct.begin(), distinct.end(), missingArray.Data());
    result.Set("missing", missingArray);
  }
  return result;
}

// hnswlib's searchKnn with two changes for a search that runs while another thread inserts: the
// entry point and the top level are read together (ragdesk::entryPoint), and the beam is an
// argument instead of the shared ef_.
std::priority_queue<std::pair<float, hnswlib::labeltype>> nearest(Index& graph, const void* query, size_t k, size_t ef,
                                                                 hnswlib::BaseFilterFunctor* filter) {
  std::priority_queue<std::pair<float, hnswlib::labeltype>> result;
  hnswlib::tableint current;
  int top;
  if (!ragdesk::entryPoint(graph, current, top)) return result;
  float closest = graph.fstdistfunc_(query, graph.getDataByInternalId(current), graph.dist_func_param_);
  for (int level = top; level > 0; level--) {
    bool changed = true;
    while (changed) {
      changed = false;
      hnswlib::linklistsizeint* links = graph.get_linklist(current, level);
      const int size = graph.getListCount(links);
      const hnswlib::tableint* neighbours = reinterpret_cast<const hnswlib::tableint*>(links + 1);
      for (int i = 0; i < size; i++) {
        const hnswlib::tableint candidate = neighbours[i];
        if (candidate > graph.max_elements_) throw std::runtime_error("cand error");
        const float distance = graph.fstdistfunc_(query, graph.getDataByInternalId(candidate), graph.dist_func_param_);
        if (distance < closest) {
          closest = distance;
          current = candidate;
          changed = true;
        }
      }
    }
  }
  const size_t beam = std::max(ef, k);
  auto top_candidates = graph.num_deleted_ == 0 && filter == nullptr
                            ? graph.searchBaseLayerST<true>(current, query, beam, filter)
                            : graph.searchBaseLayerST<false>(current, query, beam, filter);
  while (top_candidates.size() > k) top_candidates.pop();
  for (; !top_candidates.empty(); top_candidates.pop()) {
    result.emplace(top_candidates.top().first, graph.getExternalLabel(top_candidates.top().second));
  }
  return result;
}

class Graph : public Napi::ObjectWrap<Graph> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Graph",
                       {
                           StaticMethod("read", &Graph::Read),
                           StaticMethod("restore", &Graph::Restore),
                           StaticMethod("kernel", &Graph::Kernel),
                           StaticMethod("attach", &Graph::Attach),
                           InstanceMethod("share", &Graph::Share),
                           InstanceMethod("release", &Graph::Release),
                           InstanceMethod("write", &Graph::Write),
                           InstanceMethod("place", &Graph::Place),
                           InstanceMethod("lend", &Graph::Lend),
                           InstanceMethod("layOut", &Graph::LayOut),
                           InstanceMethod("settle", &Graph::Settle),
                           InstanceMethod("missing", &Graph::Missing),
                           InstanceMethod("add", &Graph::Add),
                           InstanceMethod("remove", &Graph::Remove),
                           InstanceMethod("resize", &Graph::Resize),
                           InstanceMethod("count", &Graph::Count),
                           InstanceMethod("capacity", &Graph::Capacity),
                           InstanceMethod("labels", &Graph::Labels),
                           InstanceMethod("search", &Graph::Search),
                           InstanceMethod("exact", &Graph::Exact),
                           InstanceMethod("similarities", &Graph::Similarities),
                           InstanceMethod("unreachable", &Graph::Unreachable),
                           InstanceMethod("reconnect", &Graph::Reconnect),
                       });
  }

  // new Graph(dimensions, capacity, m, efConstruction), or the state of a graph just read.
  explicit Graph(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Graph>(info) {
    Napi::Env env = info.Env();
    if (info.Length() == 1 && info[0].IsExternal()) {
      state_ = *info[0].As<Napi::External<std::shared_ptr<State>>>().Data();
      return;
    }
    if (info.Length() != 4) {
      throwError(env, "Graph(dimensions, capacity, m, efConstruction)");
      return;
    }
    const size_t dimensions = info[0].As<Napi::Number>().Uint32Value();
    const size_t capacity = info[1].As<Napi::Number>().Uint32Value();
    const size_t m = info[2].As<Napi::Number>().Uint32Value();
    const size_t efConstruction = info[3].As<Napi::Number>().Uint32Value();
    hnswlibCall(env, [&] {
      auto state = std::make_shared<State>(dimensions);
      // Seed 100, as hnswlib-node's default; deleted slots are reused by new labels.
      state->index = std::make_unique<Index>(&state->space, capacity, m, efConstruction, 100, true);
      state_ = std::move(state);
    });
  }

 private:
  std::shared_ptr<State> state_;

  Index& index() { return *state_->index; }

  // Every method but release starts here: a released object refuses the call.
  bool released(const Napi::CallbackInfo& info) {
    if (state_) return false;
    throwError(info.Env(), "the graph was released");
    return true;
  }

  // release(): this object lets go of the graph; its memory is freed once no thread holds it. A
  // graph is held by the graph thread and by the thread that searches it, and the garbage
  // collector knows nothing of its size, so both let go explicitly instead of waiting for it.
  Napi::Value Release(const Napi::CallbackInfo& info) {
    state_.reset();
    return info.Env().Undefined();
  }

  static Napi::Value Kernel(const Napi::CallbackInfo& info) {
    return Napi::String::New(info.Env(), ragdesk::innerProductKernel());
  }

  // share(): a number another thread passes to Graph.attach for the same graph.
  Napi::Value Share(const Napi::CallbackInfo& info) {
    if (released(info)) return info.Env().Undefined();
    return Napi::Number::New(info.Env(), Registry::instance().add(state_));
  }

  // Graph.attach(handle): this thread's object for a graph shared by another; null once it is gone.
  static Napi::Value Attach(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    std::shared_ptr<State> state = Registry::instance().find(info[0].As<Napi::Number>().Uint32Value());
    if (!state) return env.Null();
    auto* constructor = env.GetInstanceData<Napi::FunctionReference>();
    return constructor->New({Napi::External<std::shared_ptr<State>>::New(env, &state)});
  }

  // Graph.read(path, dimensions): Promise<Graph>, hnswlib's own file read on libuv's pool.
  static Napi::Value Read(const Napi::CallbackInfo& info) { return ReadWorker::Start(info, ReadWorker::Kind::full); }

  // Graph.restore(linksPath, dimensions): Promise<Graph> from a links-only file, read on libuv's
  // pool; every live slot waits for its vector (place) before the graph may be searched.
  static Napi::Value Restore(const Napi::CallbackInfo& info) { return ReadWorker::Start(info, ReadWorker::Kind::links); }

  class ReadWorker : public Napi::AsyncWorker {
   public:
    enum class Kind { full, links };
    static Napi::Value Start(const Napi::CallbackInfo& info, Kind kind) {
      Napi::Env env = info.Env();
      auto* worker = new ReadWorker(env, kind, info[0].As<Napi::String>().Utf8Value(), info[1].As<Napi::Number>().Uint32Value());
      Napi::Promise promise = worker->deferred_.Promise();
      worker->Queue();
      return promise;
    }
    ReadWorker(Napi::Env env, Kind kind, std::string path, size_t dimensions)
        : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), kind_(kind), path_(std::move(path)), dimensions_(dimensions) {}
    void Execute() override {
      const std::string failure = failureOf([&] {
        state_ = std::make_shared<State>(dimensions_);
        if (kind_ == Kind::full) {
          state_->index = std::make_unique<Index>(&state_->space, path_, false, 0, true);
        } else {
          state_->index = ragdesk::readLinksFile(path_, &state_->space, dimensions_, state_->unplaced);
        }
      });
      if (!failure.empty()) SetError(failure);
    }
    void OnOK() override {
      Napi::Env env = Env();
      auto* constructor = env.GetInstanceData<Napi::FunctionReference>();
      deferred_.Resolve(constructor->New({Napi::External<std::shared_ptr<State>>::New(env, &state_)}));
    }
    void OnError(const Napi::Error& error) override { deferred_.Reject(error.Value()); }

   private:
    Napi::Promise::Deferred deferred_;
    Kind kind_;
    std::string path_;
    size_t dimensions_;
    std::shared_ptr<State> state_;
  };

  class WriteWorker : public Napi::AsyncWorker {
   public:
    WriteWorker(Napi::Env env, std::shared_ptr<State> state, std::string path)
        : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), state_(std::move(state)), path_(std::move(path)) {}
    Napi::Promise Promise() { return deferred_.Promise(); }
    void Execute() override {
      const std::string failure = failureOf([&] {
        std::shared_lock<std::shared_mutex> shared(state_->resizing);
        state_->index->saveIndex(path_);
      });
      if (!failure.empty()) SetError(failure);
    }
    void OnOK() override { deferred_.Resolve(Env().Undefined()); }
    void OnError(const Napi::Error& error) override { deferred_.Reject(error.Value()); }

   private:
    Napi::Promise::Deferred deferred_;
    std::shared_ptr<State> state_;
    std::string path_;
  };

  // write(path): Promise<void>, written on libuv's pool. The caller applies no op meanwhile.
  Napi::Value Write(const Napi::CallbackInfo& info) {
    if (released(info)) return info.Env().Undefined();
    auto* worker = new WriteWorker(info.Env(), state_, info[0].As<Napi::String>().Utf8Value());
    Napi::Promise promise = worker->Promise();
    worker->Queue();
    return promise;
  }

  // place(labels, vectors): the store's pass over a restored graph's live vectors, one per label,
  // back to back, each normalised into its slot. A label that is not a live element of the file, or
  // comes again, is an error: the store and the file do not match. A slot a search was lent a
  // vector for already holds this one (the store has one vector per entry) and is only counted.
  Napi::Value Place(const Napi::CallbackInfo& info) { return PutVectors(info, false); }

  // lend(labels, vectors): vectors a search fetched ahead of the store's pass; a slot that has its
  // vector or is being written is skipped.
  Napi::Value Lend(const Napi::CallbackInfo& info) { return PutVectors(info, true); }

  Napi::Value PutVectors(const Napi::CallbackInfo& info, bool lending) {
    if (released(info)) return info.Env().Undefined();
    Napi::Env env = info.Env();
    const auto labels = typedArray<uint32_t>(info[0]);
    const auto vectors = typedArray<float>(info[1]);
    const size_t dimensions = state_->dimensions;
    if (vectors.ElementLength() != labels.ElementLength() * dimensions) {
      throwError(env, "vectors and labels differ in length");
      return env.Undefined();
    }
    // Under the lock settle takes alone to free the restore's state.
    std::shared_lock<std::shared_mutex> shared(state_->resizing);
    ragdesk::Unplaced* unplaced = state_->unplaced.get();
    if (unplaced == nullptr) {
      // A search's vectors that arrive after the store's pass ended are not needed any more.
      if (!lending) throwError(env, "the graph was not restored");
      return env.Undefined();
    }
    using ragdesk::Unplaced;
    Index& graph = index();
    for (size_t i = 0; i < labels.ElementLength(); i++) {
      const uint32_t label = labels.Data()[i];
      size_t slot;
      {
        std::lock_guard<std::mutex> lookup(graph.label_lookup_lock);
        const auto found = graph.label_lookup_.find(label);
        slot = found == graph.label_lookup_.end() ? unplaced->slots : found->second;
      }
      uint8_t state = Unplaced::kMissing;
      const bool claimed = slot < unplaced->slots && unplaced->placed[slot].compare_exchange_strong(state, Unplaced::kWriting);
      if (!claimed) {
        if (lending) continue;
        // A search may be lending this slot its vector at this moment (on its own thread): the
        // copy of one vector, waited for.
        while (state == Unplaced::kWriting) {
          std::this_thread::yield();
          state = unplaced->placed[slot].load(std::memory_order_acquire);
        }
        if (state == Unplaced::kLent && unplaced->placed[slot].compare_exchange_strong(state, Unplaced::kPlaced)) {
          unplaced->lent.fetch_sub(1);
          continue;
        }
        throwError(env, "label " + std::to_string(label) + " is not a live element of the index file, or came twice");
        return env.Undefined();
      }
      float* target = reinterpret_cast<float*>(graph.getDataByInternalId(static_cast<hnswlib::tableint>(slot)));
      std::copy(vectors.Data() + i * dimensions, vectors.Data() + (i + 1) * dimensions, target);
      normalise(target, dimensions);
      if (lending) unplaced->lent.fetch_add(1);
      unplaced->placed[slot].store(lending ? Unplaced::kLent : Unplaced::kPlaced, std::memory_order_release);
      unplaced->missing.fetch_sub(1);
    }
    return env.Undefined();
  }

  // missing(): live slots of a restored graph the store's pass has not given a vector yet, lent ones
  // included; 0 for any other graph.
  Napi::Value Missing(const Napi::CallbackInfo& info) {
    if (released(info)) return info.Env().Undefined();
    const ragdesk::Unplaced* unplaced = state_->unplaced.get();
    return Napi::Number::New(info.Env(), unplaced == nullptr ? 0 : static_cast<double>(unplaced->missing.load() + unplaced->lent.load()));
  }

  // A restored graph whose searches must still check each point (partial-search.h), else null.
  const ragdesk::Unplaced* filling() const {
    const ragdesk::Unplaced* unplaced = state_->unplaced.get();
    return unplaced != nullptr && (unplaced->missing.load() > 0 || !unplaced->laidOut.load()) ? unplaced : nullptr;
  }

  // settle(): ends a restore once the store's pass has given every live vector: level 0 laid out,
  // the file and the slot states freed (after the searches still reading them). Throws, leaving
  // the graph as it is, when a live slot got no vector: the store and the file do not match.
  Napi::Value Settle(const Napi::CallbackInfo& info) {
    if (released(info)) return info.Env().Undefined();
    Napi::Env env = info.Env();
    ragdesk::Unplaced* unplaced = state_->unplaced.get();
    if (unplaced == nullptr) return env.Undefined();
    const size_t missing = unplaced->missing.load() + unplaced->lent.load();
    if (missing > 0) {
      throwError(env, "the source gave no vector for " + std::to_string(missing) + " live elements of the index file");
      return env.Undefined();
    }
    ragdesk::layOut(index(), *unplaced);
    std::unique_lock<std::shared_mutex> alone(state_->resizing);
    state_->unplaced.reset();
    return env.Undefined();
  }

  // layOut(): copies a restored graph's level 0 from its file into hnswlib's memory (links-file.h),
  // once; on the graph thread, before the graph is searched as a whole.
  Napi::Value LayOut(const Napi::CallbackInfo& info) {
    if (released(info)) return info.Env().Undefined();
    if (state_->unplaced) ragdesk::layOut(index(), *state_->unplaced);
    return info.Env().Undefined();
  }

  // add(labels, update, vectors, from, to, threads): inserts entries [from, to). update[i] is 1 when
  // label i is in the graph already (its point is replaced), else it takes a deleted slot or a new
  // one; the caller resizes first. Labels of one call must be distinct when threads > 1.
  Napi::Value Add(const Napi::CallbackInfo& info) {
    if (released(info)) return info.Env().Undefined();
    Napi::Env env = info.Env();
    const auto labels = typedArray<uint32_t>(info[0]);
    const auto update = typedArray<uint8_t>(info[1]);
    const auto vectors = typedArray<float>(info[2]);
    const size_t from = info[3].As<Napi::Number>().Uint32Value();
    const size_t to = info[4].As<Napi::Number>().Uint32Value();
    const size_t threads = std::max<uint32_t>(1, info[5].As<Napi::Number>().Uint32Value());
    const size_t dimensions = state_->dimensions;
    if (to > labels.ElementLength() || to > update.ElementLength() || to * dimensions > vectors.ElementLength() || from > to) {
      throwError(env, "add: range out of bounds");
      return env.Undefined();
    }
    const uint32_t* labelData = labels.Data();
    const uint8_t* updateData = update.Data();
    const float* vectorData = vectors.Data();
    Index& graph = index();
    std::shared_lock<std::shared_mutex> shared(state_->resizing);
    std::atomic<size_t> next{from};
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    std::mutex errorLock;
    auto insert = [&]() {
      std::vector<float> point(dimensions);
      for (size_t i = next++; i < to && !failed; i = next++) {
        try {
          std::copy(vectorData + i * dimensions, vectorData + (i + 1) * dimensions, point.begin());
          normalise(point.data(), dimensions);
          graph.addPoint(point.data(), labelData[i], updateData[i] != 1);
        } catch (...) {
          std::lock_guard<std::mutex> guard(errorLock);
          if (!error) error = std::current_exception();
          failed = true;
        }
      }
    };
    // This thread inserts too: threads - 1 helpers, none for fewer entries than threads.
    const size_t helpers = std::min(threads, std::max<size_t>(1, to - from)) - 1;
    std::vector<std::thread> pool;
    pool.reserve(helpers);
    for (size_t t = 0; t < helpers; t++) pool.emplace_back(insert);
    insert();
    for (auto& thread : pool) thread.join();
    if (error) hnswlibCall(env, [&] { std::rethrow_exception(error); });
    return env.Undefined();
  }

  // unreachable(): the labels of live points no level-0 walk from the entry point reaches
  // (reachability.h); empty for a sound graph. Not for a restored graph before settle.
  Napi::Value Unreachable(const Napi::CallbackInfo& info) {
    if (released(info)) return info.Env().Undefined();
    std::vector<uint32_t> labels;
    {
      std::shared_lock<std::shared_mutex> shared(state_->resizing);
      for (const hnswlib::tableint slot : ragdesk::unreachableSlots(index())) labels.push_back(static_cast<uint32_t>(index().getExternalLabel(slot)));
    }
    auto array = Napi::Uint32Array::New(info.Env(), labels.size());
    std::copy(labels.begin(), labels.end(), array.Data());
    return array;
  }

  // reconnect(): links every unreachable live point from reachable points near it; returns how
  // many links it made (reachability.h). On the graph thread, between ops; not for a restored
  // graph before settle.
  Napi::Value Reconnect(const Napi::CallbackInfo& info) {
    if (released(info)) return info.Env().Undefined();
    Napi::Env env = info.Env();
    if (state_->unplaced) {
      throwError(env, "reconnect: the graph's vectors are not all in place");
      return env.Undefined();
    }
    size_t relinked = 0;
    const bool done = hnswlibCall(env, [&] {
      std::shared_lock<std::shared_mutex> shared(state_->resizing);
      relinked = ragdesk::reconnectUnreachable(index());
    });
    return done ? Napi::Number::New(env, static_cast<double>(relinked)) : env.Undefined();
  }

  Napi::Value Remove(const Napi::CallbackInfo& info) {
    if (released(info)) return info.Env().Undefined();
    hnswlibCall(info.Env(), [&] {
      std::shared_lock<std::shared_mutex> shared(state_->resizing);
      index().markDelete(info[0].As<Napi::Number>().Uint32Value());
    });
    return info.Env().Undefined();
  }

  Napi::Value Resize(const Napi::CallbackInfo& info) {
    if (released(info)) return info.Env().Undefined();
    hnswlibCall(info.Env(), [&] {
      std::unique_lock<std::shared_mutex> alone(state_->resizing);
      index().resizeIndex(info[0].As<Napi::Number>().Uint32Value());
    });
    return info.Env().Undefined();
  }

  Napi::Value Count(const Napi::CallbackInfo& info) {
    if (released(info)) return info.Env().Undefined();
    return Napi::Number::New(info.Env(), static_cast<double>(index().getCurrentElementCount()));
  }

  Napi::Value Capacity(const Napi::CallbackInfo& info) {
    if (released(info)) return info.Env().Undefined();
    return Napi::Number::New(info.Env(), static_cast<double>(index().getMaxElements()));
  }

  // Every label in the graph, deleted ones included (they keep their slot).
  Napi::Value Labels(const Napi::CallbackInfo& info) {
    if (released(info)) return info.Env().Undefined();
    Index& graph = index();
    std::vector<uint32_t> labels;
    {
      std::lock_guard<std::mutex> guard(graph.label_lookup_lock);
      labels.reserve(graph.label_lookup_.size());
      for (const auto& entry : graph.label_lookup_) labels.push_back(static_cast<uint32_t>(entry.first));
    }
    auto array = Napi::Uint32Array::New(info.Env(), labels.size());
    std::copy(labels.begin(), labels.end(), array.Data());
    return array;
  }

  std::vector<float> unitQuery(const Napi::Value& value) {
    const auto query = typedArray<float>(value);
    std::vector<float> point(query.Data(), query.Data() + query.ElementLength());
    normalise(point.data(), point.size());
    return point;
  }

  // search(query, k, ef, filter, hidden): the k nearest allowed labels, nearest first, with their
  // cosine (1 - hnswlib's distance). k must not exceed the capacity.
  Napi::Value Search(const Napi::CallbackInfo& info) {
    if (released(info)) return info.Env().Undefined();
    Napi::Env env = info.Env();
    if (typedArray<float>(info[0]).ElementLength() != state_->dimensions) {
      throwError(env, "search: the query has the wrong number of dimensions");
      return env.Undefined();
    }
    const std::vector<float> query = unitQuery(info[0]);
    const size_t k = info[1].As<Napi::Number>().Uint32Value();
    const size_t ef = info[2].As<Napi::Number>().Uint32Value();
    LabelFilter filter;
    readFilter(info[3], info[4], filter);
    const bool filtered = filter.tables || !filter.hidden.empty();
    Index& graph = index();
    std::vector<uint32_t> labels;
    std::vector<double> scores;
    std::vector<uint32_t> missing;
    const bool searched = hnswlibCall(env, [&] {
      std::shared_lock<std::shared_mutex> shared(state_->resizing);
      const ragdesk::Unplaced* unplaced = filling();
      auto found = unplaced != nullptr ? ragdesk::partialNearest(graph, *unplaced, query.data(), k, ef, filtered ? &filter : nullptr, missing)
                                       : nearest(graph, query.data(), k, ef, filtered ? &filter : nullptr);
      labels.resize(found.size());
      scores.resize(found.size());
      for (size_t i = found.size(); i-- > 0; found.pop()) {
        labels[i] = static_cast<uint32_t>(found.top().second);
        scores[i] = 1.0 - static_cast<double>(found.top().first);
      }
    });
    return searched ? hits(env, labels, scores, missing) : env.Undefined();
  }

  // exact(query, filter, hidden): every allowed live label below the filter's nextLabel with its
  // cosine, in label order. Stored points are unit vectors, so the dot product with the unit query
  // (in double) is the cosine. Labels, not slots: a slot being filled by an insert may still show
  // an older label, while a label is in the lookup only for its own slot.
  Napi::Value Exact(const Napi::CallbackInfo& info) {
    if (released(info)) return info.Env().Undefined();
    Napi::Env env = info.Env();
    const auto raw = typedArray<float>(info[0]);
    if (raw.ElementLength() != state_->dimensions) {
      throwError(env, "exact: the query has the wrong number of dimensions");
      return env.Undefined();
    }
    LabelFilter filter;
    readFilter(info[1], info[2], filter);
    if (!filter.tables) {
      throwError(env, "exact: a filter with label tables is required");
      return env.Undefined();
    }
    const size_t dimensions = state_->dimensions;
    std::vector<double> query(raw.Data(), raw.Data() + dimensions);
    double norm = 0;
    for (double value : query) norm += value * value;
    norm = std::sqrt(norm);
    if (norm > 0) {
      for (double& value : query) value /= norm;
    }
    Index& graph = index();
    std::vector<uint32_t> labels;
    std::vector<double> scores;
    std::vector<uint32_t> missing;
    std::shared_lock<std::shared_mutex> shared(state_->resizing);
    const ragdesk::Unplaced* unplaced = filling();
    std::lock_guard<std::mutex> lookup(graph.label_lookup_lock);
    for (uint32_t label = 0; label < filter.nextLabel; label++) {
      if (!filter(label)) continue;
      const auto found = graph.label_lookup_.find(label);
      if (found == graph.label_lookup_.end()) continue;
      if (unplaced != nullptr ? unplaced->deleted(found->second) : graph.isMarkedDeleted(found->second)) continue;
      if (unplaced != nullptr && !unplaced->ready(found->second)) {
        missing.push_back(label);
        continue;
      }
      const float* stored = reinterpret_cast<const float*>(unplaced != nullptr ? unplaced->vector(graph, found->second)
                                                                                : graph.getDataByInternalId(found->second));
      double score = 0;
      for (size_t d = 0; d < dimensions; d++) score += query[d] * static_cast<double>(stored[d]);
      labels.push_back(label);
      scores.push_back(score);
    }
    return hits(env, labels, scores, missing);
  }

  // similarities(query, labels): per label, the cosine of the query with the label's point, in the
  // order given; NaN where the graph cannot tell (no live point has the label, or a restored graph
  // still waits for its vector). The caller passes no label an unanswered op is changing. Each
  // point's own norm divides its dot product: the graph's unit vectors were normalised in float,
  // and dividing by their norm in double undoes that rounding of the scale.
  Napi::Value Similarities(const Napi::CallbackInfo& info) {
    if (released(info)) return info.Env().Undefined();
    Napi::Env env = info.Env();
    const auto raw = typedArray<float>(info[0]);
    const auto labelArray = typedArray<uint32_t>(info[1]);
    const size_t dimensions = state_->dimensions;
    if (raw.ElementLength() != dimensions) {
      throwError(env, "similarities: the query has the wrong number of dimensions");
      return env.Undefined();
    }
    const std::vector<uint32_t> labels(labelArray.Data(), labelArray.Data() + labelArray.ElementLength());
    std::vector<double> query(raw.Data(), raw.Data() + dimensions);
    double queryNorm = 0;
    for (double value : query) queryNorm += value * value;
    queryNorm = std::sqrt(queryNorm);
    if (queryNorm > 0) {
      for (double& value : query) value /= queryNorm;
    }
    auto result = Napi::Float64Array::New(env, labels.size());
    double* scores = result.Data();
    std::fill(scores, scores + labels.size(), std::numeric_limits<double>::quiet_NaN());
    Index& graph = index();
    std::shared_lock<std::shared_mutex> shared(state_->resizing);
    const ragdesk::Unplaced* unplaced = filling();
    // Slots first, under the lookup's lock (an insert takes it); the sums after, without it.
    std::vector<std::pair<size_t, const float*>> points;
    points.reserve(labels.size());
    {
      std::lock_guard<std::mutex> lookup(graph.label_lookup_lock);
      for (size_t i = 0; i < labels.size(); i++) {
        const auto found = graph.label_lookup_.find(labels[i]);
        if (found == graph.label_lookup_.end()) continue;
        const hnswlib::tableint slot = found->second;
        if (unplaced != nullptr ? unplaced->deleted(slot) || !unplaced->ready(slot) : graph.isMarkedDeleted(slot)) continue;
        points.emplace_back(i, reinterpret_cast<const float*>(graph.getDataByInternalId(slot)));
      }
    }
    const ragdesk::DotAndNorm measure = ragdesk::dotAndNorm();
    for (const auto& [i, point] : points) {
      double dot = 0;
      double norm = 0;
      measure(query.data(), point, dimensions, dot, norm);
      // As the JavaScript cosine: a zero vector on either side is similar to nothing.
      scores[i] = queryNorm > 0 && norm > 0 ? dot / std::sqrt(norm) : 0;
    }
    return result;
  }
};

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  Napi::Function graph = Graph::Define(env);
  env.SetInstanceData<Napi::FunctionReference>(new Napi::FunctionReference(Napi::Persistent(graph)));
  exports.Set("Graph", graph);
  return exports;
}

}  // namespace

NODE_API_MODULE(ragdesk_hnsw, Init)
