// The process-wide pool behind parallel_chunks: threads started on first use, each taking chunk
// indices from the calls in flight. A caller claims its own chunks too, so a call made from inside
// a chunk (or from several threads at once) never waits for a thread that is waiting itself.
#include <lacuna/core/parallel.hpp>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace lacuna::detail {
namespace {

/// One parallel_chunks call: its chunks are claimed by index until none is left.
struct Call {
    void (*task)(void*, int);
    void* context;
    int workers;
    std::atomic<int> next{0};
    std::atomic<int> unfinished;
    std::mutex error_mutex;
    std::exception_ptr error;

    Call(void (*t)(void*, int), void* c, const int w)
        : task(t), context(c), workers(w), unfinished(w) {}

    /// Runs one unclaimed chunk; false when all have been claimed.
    bool run_one() {
        const int w = next.fetch_add(1, std::memory_order_relaxed);
        if (w >= workers) return false;
        try {
            task(context, w);
        } catch (...) {
            const std::lock_guard lock(error_mutex);
            if (!error) error = std::current_exception();
        }
        if (unfinished.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            // The caller may be asleep waiting for the last chunk.
            unfinished.notify_all();
        }
        return true;
    }
    [[nodiscard]] bool claimable() const { return next.load(std::memory_order_relaxed) < workers; }
};

class Pool {
  public:
    Pool() {
        const unsigned n = worker_count() > 1 ? worker_count() - 1 : 0;
        threads_.reserve(n);
        for (unsigned i = 0; i < n; ++i) threads_.emplace_back([this] { serve(); });
    }
    ~Pool() {
        {
            const std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        for (std::thread& t : threads_) t.join();
    }
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;

    void run(Call& call) {
        {
            const std::lock_guard lock(mutex_);
            calls_.push_back(&call);
        }
        wake_.notify_all();
        while (call.run_one()) {
        }
        {
            // Every chunk is claimed: the call leaves the queue before its frame can go away.
            const std::lock_guard lock(mutex_);
            std::erase(calls_, &call);
        }
        for (int left = call.unfinished.load(std::memory_order_acquire); left > 0;
             left = call.unfinished.load(std::memory_order_acquire))
            call.unfinished.wait(left, std::memory_order_acquire);
    }

  private:
    void serve() {
        std::unique_lock lock(mutex_);
        for (;;) {
            wake_.wait(lock, [&] { return stopping_ || any_claimable(); });
            if (stopping_) return;
            Call* call = nullptr;
            for (Call* c : calls_)
                if (c->claimable()) {
                    call = c;
                    break;
                }
            if (!call) continue;
            // Claim under the lock: the caller removes its call only under it, so `call` is
            // alive until this claim has counted in `unfinished`.
            const int w = call->next.fetch_add(1, std::memory_order_relaxed);
            if (w >= call->workers) continue;
            lock.unlock();
            run_claimed(*call, w);
            lock.lock();
        }
    }
    static void run_claimed(Call& call, const int w) {
        try {
            call.task(call.context, w);
        } catch (...) {
            const std::lock_guard lock(call.error_mutex);
            if (!call.error) call.error = std::current_exception();
        }
        if (call.unfinished.fetch_sub(1, std::memory_order_acq_rel) == 1)
            call.unfinished.notify_all();
    }
    [[nodiscard]] bool any_claimable() const {
        for (const Call* c : calls_)
            if (c->claimable()) return true;
        return false;
    }

    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<Call*> calls_;
    std::vector<std::thread> threads_;
    bool stopping_ = false;
};

Pool& pool() {
    static Pool instance;
    return instance;
}

}  // namespace

void run_chunks(const int workers, void (*task)(void*, int), void* context) {
    Call call(task, context, workers);
    pool().run(call);
    if (call.error) std::rethrow_exception(call.error);
}

}  // namespace lacuna::detail
