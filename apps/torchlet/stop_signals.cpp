// The SIGINT/SIGTERM handler. It only touches lock-free atomics and calls _exit, both safe in a
// signal handler.
#include "stop_signals.h"

#include <fmt/core.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <csignal>

#include "commands.h"
#include "json_output.h"

namespace torchlet::cli {
namespace {

std::atomic<int> g_received{0};
std::atomic<int> g_final_writes{0};
static_assert(std::atomic<int>::is_always_lock_free);

void note_signal(int signal) {
  int none = 0;
  if (g_received.compare_exchange_strong(none, signal)) return;  // the first: stop cleanly
  if (g_final_writes.load() == 0) _exit(StopSignals::exit_status(signal));
}

}  // namespace

void StopSignals::install() {
  struct sigaction action {};
  action.sa_handler = note_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigset_t ours;
  sigemptyset(&ours);
  for (int signal : {SIGINT, SIGTERM}) {
    struct sigaction previous {};
    sigaction(signal, nullptr, &previous);
    // A signal the parent ignores stays ignored (a shell's background job ignores SIGINT).
    if (previous.sa_handler == SIG_IGN) continue;
    sigaction(signal, &action, nullptr);
    sigaddset(&ours, signal);
  }
  // A mask inherited from the parent would hold them back; one already pending arrives now.
  pthread_sigmask(SIG_UNBLOCK, &ours, nullptr);
}

int StopSignals::received() noexcept { return g_received.load(); }

const char* StopSignals::name(int signal) noexcept {
  return signal == SIGTERM ? "SIGTERM" : "SIGINT";
}

int StopSignals::exit_status(int signal) noexcept { return 128 + signal; }

void StopSignals::stop_if_received(const std::string& when, bool json) {
  const int signal = received();
  if (signal == 0) return;
  fmt::print(stderr, "torchlet: stopped by {} {}; nothing written\n", name(signal), when);
  if (json) print_json_line({{"interrupted", true}, {"stopped", when}});
  throw ExitStatus{exit_status(signal)};
}

FinalWrites::FinalWrites() { g_final_writes.fetch_add(1); }
FinalWrites::~FinalWrites() { g_final_writes.fetch_sub(1); }

}  // namespace torchlet::cli
