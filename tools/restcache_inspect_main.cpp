// restcache-inspect: shows the daemon's long-lived actors (mailbox sizes and
// what each holds) through the inspector actor restcached publishes on
// 127.0.0.1 when started with --inspect.port=N.
//
//   restcache-inspect --port N [--host 127.0.0.1] [--watch[=SECONDS]]
//                     [--key dept:<id>] [--help]
//
// Exit status: 0 done, 1 the daemon cannot be reached or did not answer,
// 2 bad arguments (including a key the daemon refuses).

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <signal.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "actors/actors.hpp"
#include "messages/inspect_types.hpp"
#include "tools/cli_args.hpp"

using namespace restcache;

namespace {

constexpr const char* usage_text =
  "usage: restcache-inspect --port N [--host 127.0.0.1] [--watch[=SECONDS]] [--key dept:<id>] [--help]\n";

constexpr const char* help_text =
  "\n"
  "Connects to the inspector actor of a running restcached (started with\n"
  "--inspect.port=N; it listens on 127.0.0.1 only) and prints every long-lived\n"
  "actor: its name, CAF actor id, mailbox size, and what it holds (entries and\n"
  "bytes of each cache shard, connections of the pools, the batch writer's\n"
  "queue, the notify listener's sequence and watermark, ...).\n"
  "\n"
  "  --port N            the daemon's inspect.port (required)\n"
  "  --host H            where the daemon runs (default 127.0.0.1)\n"
  "  --watch[=SECONDS]   clear the screen and refresh every SECONDS (default 1)\n"
  "                      like top, until Ctrl-C\n"
  "  --key dept:<id>     what the daemon holds for department <id>: for its\n"
  "                      deptemps and dept documents, whether each is in memory\n"
  "                      (bytes, ETag) and in LMDB, a fill in flight, shielded\n"
  "                      from LMDB reads, and the change sequences involved\n"
  "  -h, --help          show this help\n"
  "\n"
  "Exit status: 0 done, 1 the daemon cannot be reached or did not answer,\n"
  "2 bad arguments.\n";

[[noreturn]] void usage_error(const std::string& msg) {
  std::fprintf(stderr, "restcache-inspect: %s\n%s", msg.c_str(), usage_text);
  std::fprintf(stderr, "Try 'restcache-inspect --help' for more information.\n");
  std::exit(2);
}

struct args {
  uint16_t port = 0;
  std::string host = "127.0.0.1";
  std::optional<double> watch; ///< seconds between refreshes
  std::optional<std::string> key;
};

args parse_args(int argc, char** argv) {
  // "--watch" takes an optional value, but only inline (--watch=2): give the
  // bare flag its default so the scanner sees one shape.
  static char watch_default[] = "--watch=1";
  std::vector<char*> raw{argv, argv + argc};
  for (int i = 1; i < argc; ++i) {
    std::string_view a = raw[i];
    bool takes_next = (a == "--port" || a == "--host" || a == "--key");
    if (a == "--watch")
      raw[i] = watch_default;
    else if (takes_next)
      ++i; // its value, whatever it looks like
  }
  args out;
  bool have_port = false;
  restcache::tools::cli_args cli{argc, raw.data(), usage_error};
  while (cli.next()) {
    auto name = cli.name();
    if (name == "--help" || name == "-h") {
      cli.flag();
      std::printf("%s%s", usage_text, help_text);
      std::exit(0);
    } else if (name == "--port") {
      auto v = cli.value();
      int p = 0;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), p);
      if (ec != std::errc{} || end != v.data() + v.size() || p < 1 || p > 65535)
        usage_error("--port needs a port number between 1 and 65535, not '" + std::string{v} + "'");
      out.port = static_cast<uint16_t>(p);
      have_port = true;
    } else if (name == "--host") {
      out.host = std::string{cli.value()};
      if (out.host.empty())
        usage_error("--host needs a host name or address");
    } else if (name == "--watch") {
      auto v = std::string{cli.value()};
      char* end = nullptr;
      double s = std::strtod(v.c_str(), &end);
      if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(s) || s < 0.1 || s > 86400)
        usage_error("--watch=SECONDS needs a number of seconds between 0.1 and 86400, not '" + v + "'");
      out.watch = s;
    } else if (name == "--key") {
      out.key = std::string{cli.value()};
    } else {
      usage_error("unknown argument '" + std::string{name} + "'");
    }
  }
  if (!have_port)
    usage_error("--port is required (the daemon's inspect.port)");
  return out;
}

std::atomic<bool> interrupted{false};

void on_interrupt(int) {
  interrupted = true;
}

/// The text of an error: the daemon's own message when it sent one.
std::string describe(caf::actor_system& sys, const caf::error& err) {
  auto& ctx = err.context();
  if (ctx.match_elements<std::string>())
    return ctx.get_as<std::string>(0);
  return sys.render(err);
}

/// One snapshot: the table, or the key report. 0 on success, else the exit status.
int show(caf::actor_system& sys, caf::scoped_actor& self, const inspector_actor& inspector,
         const args& a, std::string& out, std::string& error_line) {
  // The inspector waits at most ~1 s for each actor: leave it room.
  constexpr auto limit = std::chrono::seconds{5};
  int status = 0;
  if (a.key) {
    self->request(inspector, limit, key_atom::value, *a.key)
      .receive([&](std::vector<key_report>& reports) { out = render_key_reports(*a.key, reports); },
               [&](caf::error& err) {
                 error_line = describe(sys, err);
                 status = err == caf::sec::invalid_argument ? 2 : 1;
               });
  } else {
    self->request(inspector, limit, list_atom::value)
      .receive([&](std::vector<actor_report>& reports) { out = render_actor_table(reports); },
               [&](caf::error& err) {
                 error_line = "the inspector did not answer: " + describe(sys, err);
                 status = 1;
               });
  }
  return status;
}

} // namespace

int main(int argc, char** argv) {
  auto a = parse_args(argc, argv);

  caf::actor_system_config cfg;
  cfg.load<caf::io::middleman>();
  add_inspect_message_types(cfg);
  cfg.set("scheduler.max-threads", size_t{1});
  int status = 0;
  {
    caf::actor_system sys{cfg};
    // A port that accepts but does not speak CAF (the HTTP port, say) would
    // leave the handshake waiting forever: give up after a deadline.
    std::mutex mtx;
    std::condition_variable cv;
    bool handshake_done = false;
    std::thread deadline{[&] {
      std::unique_lock lk{mtx};
      if (!cv.wait_for(lk, std::chrono::seconds{5}, [&] { return handshake_done; })) {
        std::fprintf(stderr,
                     "restcache-inspect: no CAF handshake from %s:%u within 5 s; is it restcached's "
                     "--inspect.port (not its HTTP port)?\n",
                     a.host.c_str(), a.port);
        std::_Exit(1);
      }
    }};
    auto inspector = sys.middleman().remote_actor<inspector_actor>(a.host, a.port);
    {
      std::lock_guard lk{mtx};
      handshake_done = true;
    }
    cv.notify_one();
    deadline.join();
    if (!inspector) {
      std::fprintf(stderr,
                   "restcache-inspect: cannot reach the daemon's inspector at %s:%u (%s); is restcached "
                   "running with --inspect.port=%u?\n",
                   a.host.c_str(), a.port, describe(sys, inspector.error()).c_str(), a.port);
      return 1;
    }
    caf::scoped_actor self{sys};
    if (!a.watch) {
      std::string out, error_line;
      status = show(sys, self, *inspector, a, out, error_line);
      if (status == 0)
        std::fputs(out.c_str(), stdout);
      else
        std::fprintf(stderr, "restcache-inspect: %s\n", error_line.c_str());
    } else {
      struct sigaction sa{};
      sa.sa_handler = on_interrupt;
      sigemptyset(&sa.sa_mask);
      sigaction(SIGINT, &sa, nullptr);
      sigaction(SIGTERM, &sa, nullptr);
      auto every = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::duration<double>{*a.watch});
      while (!interrupted) {
        std::string out, error_line;
        status = show(sys, self, *inspector, a, out, error_line);
        if (status != 0) {
          std::fprintf(stderr, "restcache-inspect: %s\n", error_line.c_str());
          break;
        }
        auto now = std::time(nullptr);
        char stamp[64];
        std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", std::localtime(&now));
        // Clear the screen and home the cursor, as top does.
        std::printf("\033[H\033[2Jrestcache-inspect %s:%u  every %gs  %s  (Ctrl-C to stop)\n\n%s",
                    a.host.c_str(), a.port, *a.watch, stamp, out.c_str());
        std::fflush(stdout);
        auto until = std::chrono::steady_clock::now() + every;
        while (!interrupted && std::chrono::steady_clock::now() < until)
          std::this_thread::sleep_for(std::chrono::milliseconds{50});
      }
    }
  }
  return status;
}
