// SPDX-License-Identifier: Apache-2.0
// restcached: reads its options, starts the daemon (app/daemon.hpp), and runs
// until SIGINT or SIGTERM (SIGHUP reopens the log files).

#include <signal.h>

#include <cstdio>
#include <cstring>
#include <memory>

#include <spdlog/spdlog.h>

#include "app/daemon.hpp"
#include "app/startup.hpp"
#include "config/options.hpp"
#include "config/version_text.hpp"
#include "demo/demo_routes.hpp"
#include "logging/log_setup.hpp"

using namespace restcache;

int main(int argc, char** argv) {
  // Signals are taken synchronously by the main thread (sigwait below); every
  // thread started from here on (the loggers' too) inherits the blocked
  // mask, so no other thread takes them with the default action (exit). A
  // second SIGTERM while stopping stays pending: SIGKILL forces.
  sigset_t handled_signals;
  sigemptyset(&handled_signals);
  sigaddset(&handled_signals, SIGINT);
  sigaddset(&handled_signals, SIGTERM);
  sigaddset(&handled_signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &handled_signals, nullptr);
  // sigwait never sees a signal whose disposition is "ignore" (nohup, some
  // supervisors and test runners pass SIGHUP ignored): take them back.
  for (int sig : {SIGINT, SIGTERM, SIGHUP})
    signal(sig, SIG_DFL);
  // The demo's documents until the options name others: what the options'
  // checks see.
  demo::install_demo();
  restcache_config cfg;
  if (auto exit_code = cfg.read_options(argc, argv)) // --help, --version, --dump-config, bad input
    return *exit_code;
  auto& o = cfg.opts;
  std::unique_ptr<logging::log_setup> logs;
  try {
    logs = std::make_unique<logging::log_setup>(
      logging::log_options{o.log_level, o.log_format, o.log_file, o.log_access, o.log_access_file});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "restcached: %s\n", e.what());
    return 1;
  }
  spdlog::info("{} starting (config file {}{})", restcache_version_text(), cfg.config_file_used,
               cfg.config_file_found ? "" : ", not found: defaults and command line only");
  try {
    startup::install_documents(o, startup::read_applied_declarations(o.db_dsn));
  } catch (const std::exception& e) {
    spdlog::critical("{}", e.what());
    return 1;
  }
  startup::raise_open_file_limit();
  signal(SIGPIPE, SIG_IGN);

  int exit_code = 0;
  {
    restcache::daemon d{cfg, *logs};
    try {
      d.start();
      // A line scripts and tests can wait for.
      std::printf("restcached: listening on %s:%u\n", o.http_address.c_str(), d.http_port());
      std::fflush(stdout);
      for (;;) {
        int sig = 0;
        sigwait(&handled_signals, &sig);
        if (sig != SIGHUP) {
          spdlog::info("{} received: stopping (requests in flight get {} ms)", strsignal(sig),
                       o.http_shutdown_timeout_ms);
          break;
        }
        if (auto problems = logs->reopen(); problems.empty())
          spdlog::info("SIGHUP: log files reopened");
        else
          spdlog::error("SIGHUP: cannot reopen {}; still writing to the old file", problems);
      }
    } catch (const std::exception& e) {
      spdlog::critical("{}", e.what());
      exit_code = 1;
    }
    d.stop();
  }
  spdlog::info("restcached stopped");
  return exit_code;
}
