// The one way the editor runs work that outlives an event (seam maps, video exports, autosave
// writes): a worker thread, progress, cancel, and a result or an error, collected by the thread
// that started it. The worker never calls back into the session or a widget; the owner polls
// (a GUI timer, Session::poll) and takes the outcome on its own thread, so no tool or panel
// state is touched from two threads.
#pragma once

#include <lacuna/core/error.hpp>

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>

namespace lacuna::session {

/// What the work sees of its job: report progress, and learn whether it was cancelled. Shared
/// between the worker and the owner; every member is safe from both threads.
class JobControl {
  public:
    /// Records progress (`total` 0: unknown yet) and returns false once cancel was asked, in
    /// the shape the engine's progress callbacks take (`return control.report(d, t);`).
    bool report(const int done, const int total) {
        done_.store(done);
        total_.store(total);
        return !cancelled_.load();
    }
    /// Records progress without changing the total.
    bool report(const int done) {
        done_.store(done);
        return !cancelled_.load();
    }
    void cancel() { cancelled_.store(true); }
    [[nodiscard]] bool cancelled() const { return cancelled_.load(); }
    [[nodiscard]] int done() const { return done_.load(); }
    [[nodiscard]] int total() const { return total_.load(); }

  private:
    std::atomic<int> done_{0};
    std::atomic<int> total_{0};
    std::atomic<bool> cancelled_{false};
};

/// How a job ended: its value, or why not. `cancelled` is set when the work stopped by throwing
/// Error(Cancelled) (what the engine's operations do when their progress callback returns
/// false); `error` holds any other exception's sentence. Work that returns after a late cancel
/// still has its value: what it wrote is there.
template <class Result>
struct JobOutcome {
    std::optional<Result> value;
    std::string error;
    bool cancelled = false;
    [[nodiscard]] bool ok() const { return value.has_value(); }
};

/// One background job. Starting runs `work` on a new thread; destroying (or starting another)
/// cancels the running one and waits for it, so the work's captures outlive it. Movable, not
/// copyable; used from one owning thread (the control is shared with the worker).
template <class Result>
class BackgroundJob {
  public:
    using Work = std::function<Result(JobControl&)>;

    BackgroundJob() = default;
    explicit BackgroundJob(Work work) { start(std::move(work)); }
    ~BackgroundJob() { stop(); }
    BackgroundJob(BackgroundJob&&) noexcept = default;
    BackgroundJob& operator=(BackgroundJob&& other) noexcept {
        if (this != &other) {
            stop();
            state_ = std::move(other.state_);
        }
        return *this;
    }
    BackgroundJob(const BackgroundJob&) = delete;
    BackgroundJob& operator=(const BackgroundJob&) = delete;

    /// Starts `work` (a running job is cancelled and waited for first).
    void start(Work work) {
        stop();
        state_ = std::make_unique<State>();
        State* state = state_.get();
        state->thread = std::thread([state, work = std::move(work)] {
            try {
                state->outcome.value = work(state->control);
            } catch (const Error& e) {
                if (e.code() == ErrorCode::Cancelled)
                    state->outcome.cancelled = true;
                else
                    state->outcome.error = e.what();
            } catch (const std::exception& e) {
                state->outcome.error = e.what();
            } catch (...) {
                state->outcome.error = "the background work failed with an unknown error";
            }
            state->finished.store(true);
        });
    }

    /// A job was started and its outcome not taken yet.
    [[nodiscard]] bool started() const { return state_ != nullptr; }
    /// Started and its work has not returned.
    [[nodiscard]] bool running() const { return state_ && !state_->finished.load(); }
    /// The work has returned; take() gives its outcome without waiting.
    [[nodiscard]] bool finished() const { return state_ && state_->finished.load(); }
    /// Asks the work to stop (it sees control.cancelled() and its progress calls return false).
    void cancel() {
        if (state_) state_->control.cancel();
    }
    [[nodiscard]] bool cancel_requested() const { return state_ && state_->control.cancelled(); }
    /// The work's last reported progress (0, 0 before the first report or without a job).
    [[nodiscard]] int done() const { return state_ ? state_->control.done() : 0; }
    [[nodiscard]] int total() const { return state_ ? state_->control.total() : 0; }
    /// The control the work reports to (for callers that hand it on, such as an engine
    /// progress callback built before the work starts). Null without a job.
    [[nodiscard]] JobControl* control() { return state_ ? &state_->control : nullptr; }

    /// The outcome once finished (the job is then forgotten: started() is false); nullopt while
    /// it runs or when none was started.
    std::optional<JobOutcome<Result>> take() {
        if (!finished()) return std::nullopt;
        return wait();
    }
    /// Waits for the work to return and takes its outcome; nullopt when none was started.
    std::optional<JobOutcome<Result>> wait() {
        if (!state_) return std::nullopt;
        if (state_->thread.joinable()) state_->thread.join();
        JobOutcome<Result> outcome = std::move(state_->outcome);
        state_.reset();
        return outcome;
    }

  private:
    struct State {
        JobControl control;
        std::atomic<bool> finished{false};
        JobOutcome<Result> outcome;  ///< written by the worker before `finished`
        std::thread thread;
    };
    void stop() {
        if (!state_) return;
        state_->control.cancel();
        if (state_->thread.joinable()) state_->thread.join();
        state_.reset();
    }
    std::unique_ptr<State> state_;
};

}  // namespace lacuna::session
