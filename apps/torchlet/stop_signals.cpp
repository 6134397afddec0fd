// The SIGINT/SIGTERM handlers of StopSignals. The flag is the one global a signal handler can
// safely write: a volatile sig_atomic_t.
#include "stop_signals.h"

#include <csignal>

namespace torchlet::cli {
namespace {

volatile std::sig_atomic_t g_received = 0;
struct sigaction g_previous_int {};
struct sigaction g_previous_term {};

void note_signal(int signal) { g_received = signal; }

}  // namespace

StopSignals::StopSignals() {
  g_received = 0;
  struct sigaction action {};
  action.sa_handler = note_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND | SA_RESTART;
  sigaction(SIGINT, &action, &g_previous_int);
  sigaction(SIGTERM, &action, &g_previous_term);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
}

int StopSignals::received() noexcept { return g_received; }

const char* StopSignals::name(int signal) noexcept {
  return signal == SIGTERM ? "SIGTERM" : "SIGINT";
}

}  // namespace torchlet::cli
