// SPDX-License-Identifier: Apache-2.0
// restcache-inspect: shows the daemon's long-lived actors (mailbox sizes and
// what each holds) through the inspector restcached serves on a Unix socket
// when started with --inspect.socket=PATH (the protocol:
// messages/inspect_wire.hpp).
//
//   restcache-inspect --socket PATH [--watch[=SECONDS]] [--key <name>:<id>]
//                     [--version] [--help]
//
// Exit status: 0 done, 1 the daemon cannot be reached or did not answer,
// 2 bad arguments (including a key the daemon refuses).

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "demo/demo_catalogue.hpp"
#include "messages/inspect_types.hpp"
#include "messages/inspect_wire.hpp"
#include "tools/cli_args.hpp"

using namespace restcache;

namespace {

/// How long the daemon has to answer one request: it gives the inspector
/// 3 s, the inspector gives each actor 1 s.
constexpr auto answer_deadline = std::chrono::seconds{5};

constexpr const char* usage_text =
  "usage: restcache-inspect --socket PATH [--watch[=SECONDS]] [--key <name>:<id>] [--version] [--help]\n";

constexpr const char* help_text =
  "\n"
  "Asks the inspector of a running restcached (started with --inspect.socket=PATH;\n"
  "only the daemon's user and root may connect to that socket) and prints every\n"
  "long-lived actor: its name, CAF actor id, mailbox size, and what it holds\n"
  "(entries and bytes of each cache shard, connections of the pools, the batch\n"
  "writer's queue, the notify listener's sequence and watermark, ...).\n"
  "\n"
  "  --socket PATH       the daemon's inspect.socket (required)\n"
  "  --watch[=SECONDS]   clear the screen and refresh every SECONDS (default 1)\n"
  "                      like top, until Ctrl-C\n"
  "  --key <name>:<id>  what the daemon holds for the documents of change-log\n"
  "                      key <name>:<id> (dept:42: department 42's deptemps and\n"
  "                      dept documents) or of one kind (deptemps:42): for\n"
  "                      each, whether it is in memory\n"
  "                      (bytes, ETag) and in LMDB, a fill in flight, shielded\n"
  "                      from LMDB reads, and the change sequences involved\n"
  "  --version           print the version (the same as restcached --version)\n"
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
  std::string socket;
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
    bool takes_next = (a == "--socket" || a == "--key" || a == "--port" || a == "--host");
    if (a == "--watch")
      raw[i] = watch_default;
    else if (takes_next)
      ++i; // its value, whatever it looks like
  }
  args out;
  restcache::tools::cli_args cli{argc, raw.data(), usage_error};
  while (cli.next()) {
    auto name = cli.name();
    if (name == "--help" || name == "-h") {
      cli.flag();
      std::printf("%s%s", usage_text, help_text);
      std::exit(0);
    } else if (name == "--version") {
      cli.flag();
      restcache::tools::print_version_and_exit();
    } else if (name == "--port" || name == "--host") {
      usage_error(std::string{name}
                  + " was removed: the daemon no longer serves the inspector on TCP; use --socket PATH "
                    "(restcached's inspect.socket)");
    } else if (name == "--socket") {
      out.socket = std::string{cli.value()};
      if (out.socket.empty() || out.socket.size() >= sizeof(sockaddr_un::sun_path))
        usage_error("--socket needs a path of 1 to " + std::to_string(sizeof(sockaddr_un::sun_path) - 1)
                    + " bytes");
    } else if (name == "--watch") {
      auto v = std::string{cli.value()};
      char* end = nullptr;
      double s = std::strtod(v.c_str(), &end);
      if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(s) || s < 0.1 || s > 86400)
        usage_error("--watch=SECONDS needs a number of seconds between 0.1 and 86400, not '" + v + "'");
      out.watch = s;
    } else if (name == "--key") {
      out.key = std::string{cli.value()};
      // The key travels in the request line: one line, of the daemon's bound.
      if (out.key->size() + 5 > inspect_wire::max_request_bytes)
        usage_error("--key is too long (expected <name>:<id>)");
      for (unsigned char c : *out.key)
        if (c < 0x20 || c > 0x7e)
          usage_error("--key holds a character that cannot be sent (expected <name>:<id>)");
    } else {
      usage_error("unknown argument '" + std::string{name} + "'");
    }
  }
  if (out.socket.empty())
    usage_error("--socket is required (the daemon's inspect.socket)");
  return out;
}

std::atomic<bool> interrupted{false};

void on_interrupt(int) {
  interrupted = true;
}

/// One request's answer: its status and payload, or why there is none.
struct exchange {
  std::optional<inspect_wire::answer_header> header;
  std::string payload;
  std::string failure; ///< set when there is no answer
};

class connection {
public:
  ~connection() {
    if (fd_ >= 0)
      close(fd_);
  }

  /// Sends `line` to the socket at `path` and reads the answer, bounded in
  /// size (inspect_wire::max_answer_bytes) and time (answer_deadline).
  exchange ask(const std::string& path, const std::string& line) {
    exchange x;
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) {
      x.failure = "socket: " + std::string{std::strerror(errno)};
      return x;
    }
    // A Unix socket's connect waits up to the send timeout while the
    // daemon's backlog is full (it serves one client at a time).
    timeval limit{static_cast<time_t>(answer_deadline.count()), 0};
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1); // length checked with the arguments
    if (connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
      int err = errno;
      x.failure = "cannot reach the daemon's inspector at " + path + " (" + std::strerror(err) + "); ";
      x.failure += err == EACCES ? "only the daemon's user and root may connect"
                                 : "is restcached running with --inspect.socket=" + path + "?";
      return x;
    }
    deadline_ = std::chrono::steady_clock::now() + answer_deadline;
    if (!send_all(line)) {
      x.failure = "cannot send the request to " + path + " (" + error_ + ")";
      return x;
    }
    std::string head;
    if (!read_exact(inspect_wire::header_bytes, head)) {
      x.failure = "no answer from " + path + " (" + error_ + ")";
      return x;
    }
    std::string why;
    x.header = inspect_wire::parse_header(head, why);
    if (!x.header) {
      x.failure = path + " is not restcached's inspector socket: " + why;
      return x;
    }
    if (!read_exact(x.header->length, x.payload)) {
      x.header.reset();
      x.failure = "the answer from " + path + " was cut short (" + error_ + ")";
    }
    return x;
  }

private:
  /// Waits for `events` until the deadline; false (and error_) when it passed.
  bool wait(short events) {
    for (;;) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        error_ = "no answer within " + std::to_string(answer_deadline.count()) + " s";
        return false;
      }
      pollfd p{fd_, events, 0};
      int rc = poll(&p, 1, static_cast<int>(left.count()));
      if (rc > 0)
        return true;
      if (rc < 0 && errno != EINTR) {
        error_ = std::strerror(errno);
        return false;
      }
    }
  }

  bool send_all(std::string_view bytes) {
    while (!bytes.empty()) {
      if (!wait(POLLOUT))
        return false;
      auto n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EINTR))
        continue;
      if (n < 0) {
        error_ = std::strerror(errno);
        return false;
      }
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  /// `n` is at most max_answer_bytes (parse_header checked it).
  bool read_exact(size_t n, std::string& out) {
    out.resize(n);
    size_t got = 0;
    while (got < n) {
      if (!wait(POLLIN))
        return false;
      auto r = recv(fd_, out.data() + got, n - got, MSG_DONTWAIT);
      if (r < 0 && (errno == EAGAIN || errno == EINTR))
        continue;
      if (r <= 0) {
        error_ = r == 0 ? "it closed the connection" : std::strerror(errno);
        return false;
      }
      got += static_cast<size_t>(r);
    }
    return true;
  }

  int fd_ = -1;
  std::chrono::steady_clock::time_point deadline_;
  std::string error_;
};

/// One snapshot: the table, or the key report. 0 on success, else the exit status.
int show(const args& a, std::string& out, std::string& error_line) {
  inspect_wire::request req;
  if (a.key) {
    req.what = inspect_wire::request::kind::key;
    req.key = *a.key;
  }
  auto x = connection{}.ask(a.socket, req.line());
  if (!x.header) {
    error_line = x.failure;
    return 1;
  }
  switch (x.header->st) {
    case inspect_wire::status::bad_request:
      error_line = x.payload;
      return 2;
    case inspect_wire::status::unavailable:
      error_line = x.payload;
      return 1;
    case inspect_wire::status::ok:
      break;
  }
  bool decoded = false;
  if (a.key) {
    std::vector<key_report> reports;
    if ((decoded = inspect_wire::decode(x.payload, reports)))
      out = render_key_reports(*a.key, reports);
  } else {
    std::vector<actor_report> reports;
    if ((decoded = inspect_wire::decode(x.payload, reports)))
      out = render_actor_table(reports);
  }
  if (!decoded) {
    error_line = "the answer from " + a.socket + " could not be read (a restcached of another version?)";
    return 1;
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  restcache::demo::install_demo_catalogue(); // the demo's documents, the daemon's default
  auto a = parse_args(argc, argv);
  if (!a.watch) {
    std::string out, error_line;
    int status = show(a, out, error_line);
    if (status == 0)
      std::fputs(out.c_str(), stdout);
    else
      std::fprintf(stderr, "restcache-inspect: %s\n", error_line.c_str());
    return status;
  }
  struct sigaction sa{};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  auto every = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>{*a.watch});
  int status = 0;
  while (!interrupted) {
    std::string out, error_line;
    status = show(a, out, error_line);
    if (status != 0) {
      std::fprintf(stderr, "restcache-inspect: %s\n", error_line.c_str());
      break;
    }
    auto now = std::time(nullptr);
    char stamp[64];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", std::localtime(&now));
    // Clear the screen and home the cursor, as top does.
    std::printf("\033[H\033[2Jrestcache-inspect %s  every %gs  %s  (Ctrl-C to stop)\n\n%s", a.socket.c_str(),
                *a.watch, stamp, out.c_str());
    std::fflush(stdout);
    auto until = std::chrono::steady_clock::now() + every;
    while (!interrupted && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds{50});
  }
  return status;
}
