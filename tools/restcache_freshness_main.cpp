// SPDX-License-Identifier: Apache-2.0
// restcache-freshness: does restcached serve what PostgreSQL holds?
//
//   restcache-freshness --dsn DSN --url http://127.0.0.1:PORT [--writes demo|shop]
//                       [--documents FILE] [--duration S] [--writes-per-second W]
//                       [--read-delay-ms MS] [--readers N] [--reads-per-second R]
//                       [--kinds K,K...] [--in-turn] [--seed N] [--json] [--version] [--help]
//
// Makes random writes through SQL, one transaction each, with an example's
// write generator (tools/freshness: the demo's departments and employees,
// the shop's orders, lines and customers), and read_delay after each COMMIT
// reads every affected document back through the service and compares it
// byte for byte with the database's truth at that moment, read by the
// kind's own statement and written by its plan (pg::read_document, what the
// daemon runs): the checking half knows no kind and checks every kind of
// the key spaces a change logged. Meanwhile `readers` threads keep a random
// read load on the generator's documents. For a sample of writes it also
// polls the service right after COMMIT until it serves the new documents:
// the invalidation latency seen from outside. An answer marked
// `Cache-Status: ...; detail=stale-if-error` (the daemon could not reach
// PostgreSQL and served the copy it held from before) that differs from the
// truth is counted apart, as stale_if_error, not as stale.
//
// Exit status: 0 when every check was fresh and error-free (and at least one
// document was checked), 1 otherwise, 2 bad arguments.

#include <csignal>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "declarations/declaration_file.hpp"
#include "demo/demo_catalogue.hpp"
#include "messages/doc_catalogue.hpp"
#include "persistence/pg/connection.hpp"
#include "tools/cli_args.hpp"
#include "tools/freshness/http_get.hpp"
#include "tools/freshness/write_generator.hpp"

namespace pg = restcache::pg;
namespace freshness = restcache::freshness;
using restcache::freshness::checked_doc;
using restcache::freshness::planned_write;
using restcache::freshness::truth;
using http_client = restcache::freshness::http_get;
using http_response = restcache::freshness::get_response;
using steady = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

// ---- options -------------------------------------------------------------------

constexpr const char* usage_text =
  "usage: restcache-freshness --dsn DSN --url http://127.0.0.1:PORT [--writes demo|shop]\n"
  "                           [--documents FILE] [--duration S] [--writes-per-second W]\n"
  "                           [--read-delay-ms MS] [--readers N] [--reads-per-second R]\n"
  "                           [--kinds K,K...] [--in-turn] [--seed N] [--json] [--version]\n"
  "                           [--help]\n";

constexpr const char* help_text =
  "\n"
  "Writes random changes through SQL (each in its own transaction) and, read-delay\n"
  "after each COMMIT, reads every affected document back through the service; a\n"
  "document that differs from the database's truth at that moment (read by its\n"
  "kind's statement and encoded as the daemon does) is stale, a removed one must\n"
  "answer 404; one marked Cache-Status ...; detail=stale-if-error (PostgreSQL could\n"
  "not be reached) is counted apart as stale_if_error, not stale. Assumes it is the\n"
  "only writer. Writes of kinds marked (replica) run under session_replication_role =\n"
  "replica, as logical replication applies them (superuser only, else left out).\n"
  "\n"
  "  demo: the demo's dept and emp, checked as deptemps and emp: rename_dept\n"
  "    change_sal move_emp insert_emp delete_emp insert_dept delete_dept\n"
  "    replica_rename (replica) truncate_reload (TRUNCATE emp or dept CASCADE\n"
  "    reloaded without one row; only while emp has at most 100,000 rows)\n"
  "  shop: examples/shop's tables, checked as orders and customers (run it with\n"
  "    --documents examples/shop/shop.toml): set_status change_qty move_line\n"
  "    (a line to another order) add_line remove_line insert_order (codes that\n"
  "    need escaping) delete_order recode_order (a new code; its lines follow)\n"
  "    rename_customer insert_customer set_note replica_status (replica)\n"
  "    truncate_reload (TRUNCATE shop_line or shop_order CASCADE reloaded\n"
  "    without one order's rows; only while shop_line has at most 100,000 rows)\n"
  "\n"
  "  --dsn DSN                 libpq connection string for writes and the truth\n"
  "  --url URL                 the service, http://127.0.0.1:PORT (default port 8080)\n"
  "  --writes NAME             the write generator: demo (default) or shop\n"
  "  --documents FILE          the declaration file the service serves (documents.file);\n"
  "                            default: the demo's kinds\n"
  "  --duration S              seconds of writing (default 30); checks drain after\n"
  "  --writes-per-second W     write rate (default 10)\n"
  "  --read-delay-ms MS        delay between COMMIT and the check (default 1000)\n"
  "  --readers N               background read-load threads, keep-alive (default 2)\n"
  "  --reads-per-second R      their total rate, 0 = as fast as they go (default 500)\n"
  "  --latency-every K         poll for the invalidation latency after every K-th\n"
  "                            write, 0 = never (default 1)\n"
  "  --latency-limit-ms MS     give up polling after MS (default 2000)\n"
  "  --unavailable-grace-ms MS keep retrying a check answered 502/503/504 or with no\n"
  "                            connection this long before counting an error\n"
  "                            (default 30000: restarts of PostgreSQL or the daemon)\n"
  "  --pg-retry-s S            wait this long for PostgreSQL to come back (default 60)\n"
  "  --no-prewarm              do not GET the affected documents before each write\n"
  "                            (by default they are, so they are cached with the old\n"
  "                            content when the write commits; an id an insert creates\n"
  "                            is asked twice, so it is cached as missing first:\n"
  "                            primed_missing counts those the service said it held)\n"
  "  --kinds K,K...            only these kinds of write (the generator's, above), at\n"
  "                            their usual relative weights (default: all)\n"
  "  --in-turn                 make the kinds of write in turn rather than by weight:\n"
  "                            each is made once the run has that many writes\n"
  "  --seed N                  random seed (default: from the clock; printed)\n"
  "  --json                    print the summary as one JSON line on stdout\n"
  "  -q, --quiet               no progress lines on stderr\n"
  "  --version                 print the version (the same as restcached --version)\n"
  "  -h, --help                show this help\n"
  "\n"
  "Exit status: 0 no stale document and no error, 1 otherwise, 2 bad arguments.\n";

struct options {
  std::string dsn;
  std::string host = "127.0.0.1";
  uint16_t port = 8080;
  double duration_s = 30;
  double writes_per_second = 10;
  int64_t read_delay_ms = 1000;
  int64_t readers = 2;
  double reads_per_second = 500;
  int64_t latency_every = 1;
  int64_t latency_limit_ms = 2000;
  int64_t unavailable_grace_ms = 30000;
  int64_t pg_retry_s = 60;
  bool prewarm = true;
  bool in_turn = false; ///< --in-turn: the kinds of write in turn, not drawn by weight
  std::string writes = "demo"; ///< --writes: whose write generator
  std::string documents;        ///< --documents: a declaration file; empty: the demo's kinds
  std::string kinds; ///< --kinds: the kinds of write to make, comma-separated; empty = all
  std::optional<uint64_t> seed;
  bool json = false;
  bool quiet = false;
};

[[noreturn]] void usage_error(const std::string& msg) {
  std::fprintf(stderr, "restcache-freshness: %s\n%s", msg.c_str(), usage_text);
  std::exit(2);
}

int64_t parse_int(std::string_view opt, std::string_view s, int64_t min, int64_t max) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || end != s.data() + s.size() || v < min || v > max)
    usage_error("invalid value for " + std::string{opt} + ": '" + std::string{s} + "' (expected an integer in "
                + std::to_string(min) + ".." + std::to_string(max) + ")");
  return v;
}

double parse_double(std::string_view opt, std::string_view s, double min) {
  std::string str{s};
  char* end = nullptr;
  double v = std::strtod(str.c_str(), &end);
  if (str.empty() || end != str.c_str() + str.size() || !std::isfinite(v) || v < min)
    usage_error("invalid value for " + std::string{opt} + ": '" + str + "'");
  return v;
}

/// http://HOST:PORT[/]; HOST an IPv4 literal or localhost.
void parse_url(options& o, std::string_view url) {
  constexpr std::string_view scheme = "http://";
  if (url.substr(0, scheme.size()) != scheme)
    usage_error("--url must start with http://: '" + std::string{url} + "'");
  url.remove_prefix(scheme.size());
  while (!url.empty() && url.back() == '/')
    url.remove_suffix(1);
  auto colon = url.rfind(':');
  std::string_view host = colon == std::string_view::npos ? url : url.substr(0, colon);
  if (colon != std::string_view::npos)
    o.port = uint16_t(parse_int("--url port", url.substr(colon + 1), 1, 65535));
  else
    o.port = 80;
  o.host = host == "localhost" ? "127.0.0.1" : std::string{host};
  if (o.host.empty() || o.host.find('/') != std::string::npos)
    usage_error("--url: bad host in '" + std::string{url} + "'");
}

options parse_args(int argc, char** argv) {
  options o;
  restcache::tools::cli_args cli{argc, argv, usage_error};
  while (cli.next()) {
    const std::string_view arg = cli.name();
    auto value = [&] { return cli.value(); };
    auto flag = [&] { cli.flag(); };
    if (arg == "-h" || arg == "--help") {
      std::fputs(usage_text, stdout);
      std::fputs(help_text, stdout);
      std::exit(0);
    } else if (arg == "--version") {
      flag();
      restcache::tools::print_version_and_exit();
    } else if (arg == "--dsn") {
      o.dsn = std::string{value()};
    } else if (arg == "--url") {
      parse_url(o, value());
    } else if (arg == "--duration") {
      o.duration_s = parse_double(arg, value(), 0);
    } else if (arg == "--writes-per-second") {
      o.writes_per_second = parse_double(arg, value(), 0.001);
    } else if (arg == "--read-delay-ms") {
      o.read_delay_ms = parse_int(arg, value(), 0, 3'600'000);
    } else if (arg == "--readers") {
      o.readers = parse_int(arg, value(), 0, 256);
    } else if (arg == "--reads-per-second") {
      o.reads_per_second = parse_double(arg, value(), 0);
    } else if (arg == "--latency-every") {
      o.latency_every = parse_int(arg, value(), 0, 1'000'000);
    } else if (arg == "--latency-limit-ms") {
      o.latency_limit_ms = parse_int(arg, value(), 1, 600'000);
    } else if (arg == "--unavailable-grace-ms") {
      o.unavailable_grace_ms = parse_int(arg, value(), 0, 3'600'000);
    } else if (arg == "--pg-retry-s") {
      o.pg_retry_s = parse_int(arg, value(), 0, 3600);
    } else if (arg == "--no-prewarm") {
      flag();
      o.prewarm = false;
    } else if (arg == "--writes") {
      o.writes = std::string{value()};
      if (o.writes != "demo" && o.writes != "shop")
        usage_error("--writes: no write generator '" + o.writes + "' (demo, shop)");
    } else if (arg == "--documents") {
      o.documents = std::string{value()};
    } else if (arg == "--in-turn") {
      flag();
      o.in_turn = true;
    } else if (arg == "--kinds") {
      o.kinds = std::string{value()};
    } else if (arg == "--seed") {
      o.seed = uint64_t(parse_int(arg, value(), 0, std::numeric_limits<int64_t>::max()));
    } else if (arg == "--json") {
      flag();
      o.json = true;
    } else if (arg == "-q" || arg == "--quiet") {
      flag();
      o.quiet = true;
    } else {
      usage_error("unknown argument '" + std::string{arg} + "'");
    }
  }
  return o;
}

std::atomic<bool> interrupted{false};

extern "C" void on_signal(int) {
  interrupted.store(true);
}

double ms_between(steady::time_point a, steady::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// ---- the checker ---------------------------------------------------------------

std::string describe(const std::optional<std::string>& doc) {
  return doc ? *doc : std::string{"<404>"};
}

/// Where two documents first differ, with some context from each.
std::string diff_excerpt(const std::optional<std::string>& served, const std::optional<std::string>& db) {
  std::string a = describe(served), b = describe(db);
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i])
    ++i;
  size_t from = i > 60 ? i - 60 : 0;
  return "at byte " + std::to_string(i) + ": service '" + a.substr(from, 160) + "' vs database '"
         + b.substr(from, 160) + "'";
}

struct check {
  uint64_t write_no;
  size_t op;
  checked_doc key;
  steady::time_point commit;
  steady::time_point due;
  steady::time_point give_up;
  bool truth_retry = false;
  bool operator>(const check& o) const { return due > o.due; }
};

struct counters {
  uint64_t writes = 0;
  uint64_t write_failures = 0;   ///< rolled back or failed before COMMIT (not counted in writes)
  uint64_t write_ambiguous = 0;  ///< connection lost at COMMIT: outcome unknown, still checked
  uint64_t deferred = 0;         ///< ticks skipped: every pick touched a key still awaiting its check
  uint64_t checked = 0;          ///< documents compared
  uint64_t fresh = 0;
  uint64_t stale = 0;
  uint64_t stale_if_error = 0;   ///< differed, but marked stale-if-error: not counted as stale
  uint64_t errors = 0;
  uint64_t superseded = 0;       ///< checks dropped because a later write touched the key
  uint64_t unavailable_retries = 0;
  uint64_t late_checks = 0;      ///< compared more than 500 ms after they were due
  uint64_t trigger_gaps = 0;     ///< keys the write changed but the change log did not name
  uint64_t primed_missing = 0;   ///< ids a write created, answered as remembered missing before it
  std::vector<uint64_t> per_op; ///< writes by kind, in the generator's order
  std::vector<double> latencies_ms;
  uint64_t latency_timeouts = 0;
  uint64_t latency_unavailable = 0;
};

double percentile(std::vector<double> v, double p) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  size_t rank = size_t(std::ceil(p / 100.0 * double(v.size())));
  return v[std::min(v.size() - 1, rank > 0 ? rank - 1 : 0)];
}

class checker {
public:
  checker(const options& o, std::unique_ptr<freshness::write_generator> gen)
    : opt_(o), gen_(std::move(gen)), db_(o.dsn, o.pg_retry_s, o.quiet), svc_(o.port, milliseconds{5000}, o.host),
      poller_(o.port, milliseconds{5000}, o.host), rng_(o.seed.value_or(0)) {
    for (const auto& op : gen_->ops())
      op_weights_.push_back(op.weight);
    n_.per_op.assign(op_weights_.size(), 0);
    if (!o.kinds.empty())
      choose_kinds(o.kinds);
  }

  int run();

private:
  // setup and state
  /// --kinds: every kind not named gets weight 0.
  void choose_kinds(std::string_view list);
  /// Turns off the kinds of write this database does not allow (replica
  /// mode needs a superuser), saying so.
  void check_write_kinds();
  // writes
  std::optional<planned_write> pick_write();
  void write_once();
  // reads
  void prewarm(const std::set<checked_doc>& keys);
  void measure_latency(const std::map<checked_doc, std::optional<std::string>>& expected, steady::time_point commit);
  void run_due_checks(steady::time_point now);
  void run_check(check c);
  void finish_check(const check& c);
  http_response get(http_client& cl, const std::string& target);
  // readers
  void reader_loop(unsigned idx);
  void report(steady::time_point start, bool final);

  const options& opt_;
  std::unique_ptr<freshness::write_generator> gen_;
  freshness::database db_;
  http_client svc_;    ///< checks and prewarm
  http_client poller_; ///< latency polling
  std::mt19937_64 rng_;
  std::vector<int> op_weights_; ///< by the generator's ops(), 0 = not made
  size_t next_turn_ = 0;        ///< --in-turn: the kind of write to make next
  std::priority_queue<check, std::vector<check>, std::greater<check>> checks_;
  std::map<checked_doc, int> pending_;           ///< keys with a check not yet done
  std::map<checked_doc, uint64_t> last_write_;   ///< key -> number of the last write touching it
  counters n_;
  int stale_printed_ = 0;
  int error_printed_ = 0;
  // read load
  std::atomic<bool> stop_readers_{false};
  std::atomic<uint64_t> reads_{0};
  std::atomic<uint64_t> read_errors_{0};
};

std::optional<planned_write> checker::pick_write() {
  int total = 0;
  for (int w : op_weights_)
    total += w;
  if (total == 0)
    return std::nullopt;
  for (int attempt = 0; attempt < 20; ++attempt) {
    size_t i = 0;
    if (opt_.in_turn) {
      // The same kind until it is made: one whose documents still await
      // their checks is deferred rather than skipped.
      while (op_weights_[next_turn_ % op_weights_.size()] == 0)
        ++next_turn_;
      i = next_turn_ % op_weights_.size();
    } else {
      int x = std::uniform_int_distribution<int>{0, total - 1}(rng_);
      while (x >= op_weights_[i])
        x -= op_weights_[i++];
    }
    auto p = gen_->plan(i, db_, rng_);
    if (!p) {
      if (opt_.in_turn)
        ++next_turn_; // none to make now: the next kind's turn
      continue;
    }
    bool busy = std::any_of(p->docs.begin(), p->docs.end(), [&](const checked_doc& k) { return pending_.count(k) > 0; });
    if (!busy) {
      if (opt_.in_turn)
        ++next_turn_;
      return p;
    }
  }
  return std::nullopt;
}

http_response checker::get(http_client& cl, const std::string& target) {
  // A kept-alive connection may have been closed by the server meanwhile
  // (idle timeout, restart): one retry on a fresh connection.
  bool reused = cl.is_open();
  auto r = cl.get(target);
  if (r.status == 0 && reused) {
    cl.close();
    r = cl.get(target);
  }
  return r;
}

bool unavailable(const http_response& r) {
  return r.status == 0 || r.status == 502 || r.status == 503 || r.status == 504;
}

void checker::prewarm(const std::set<checked_doc>& keys) {
  if (!opt_.prewarm)
    return;
  for (auto& k : keys) {
    // An id the write creates: asked twice, so the service holds it as
    // missing when the INSERT commits, and the check sees whether the
    // INSERT's change dropped that.
    if (get(svc_, k.target()).status != 404)
      continue;
    auto again = get(svc_, k.target());
    if (again.status == 404 && again.header_or_empty("Cache-Status").find("detail=negative") != std::string::npos)
      ++n_.primed_missing;
  }
}

void checker::write_once() {
  auto p = pick_write();
  if (!p) {
    ++n_.deferred;
    return;
  }
  prewarm(p->docs);
  uint64_t write_no = n_.writes + n_.write_failures + n_.write_ambiguous + 1;
  std::map<checked_doc, std::optional<std::string>> expected;
  std::set<checked_doc> logged;
  bool truncated = false;
  bool commit_sent = false;
  bool committed = false;
  steady::time_point commit_time;
  try {
    auto& c = db_.conn();
    c.exec("BEGIN");
    if (gen_->ops()[p->op].replica_role)
      c.exec("SET LOCAL session_replication_role = replica"); // as logical replication applies it
    p->statements(c);
    // What the change triggers recorded for this transaction. A TRUNCATE
    // names no key: it stands for every document. Under a savepoint: a log
    // of another schema version (an older build's, before a rolling
    // upgrade's migration) cannot be read this way, and then the write's
    // own keys stand in for it.
    pg::result r;
    c.exec("SAVEPOINT read_log");
    try {
      // Under the WAL feed nothing is logged in the writer's transaction:
      // its own keys stand in (the feed reads them from the WAL).
      if (c.exec("SELECT restcache_feed()").text(0, 0) == "wal")
        logged = p->docs;
      else
        r = c.exec("SELECT split_part(u.k, ':', 1), substr(u.k, strpos(u.k, ':') + 1)"
                   " FROM change_log c, unnest(c.keys) AS u (k) WHERE c.xid = pg_current_xact_id()");
      c.exec("RELEASE SAVEPOINT read_log");
    } catch (const pg::error& e) {
      if (db_.lost(e))
        throw;
      c.exec("ROLLBACK TO SAVEPOINT read_log");
      logged = p->docs;
    }
    for (int i = 0; i < r.rows(); ++i) {
      if (r.text(i, 0) == "!")
        continue; // DDL, logged by the event trigger
      auto space = r.text(i, 0);
      if (space == "*")
        truncated = true;
      else
        for (const auto& kind : restcache::doc_catalogue()) // every kind of the key space
          if (kind.entity == space)
            logged.insert({kind.name, std::string{r.text(i, 1)}});
    }
    // The documents as they will be once committed (we are the only writer).
    for (auto& k : p->docs)
      expected[k] = truth(c, k);
    for (auto& k : logged)
      if (!expected.count(k))
        expected[k] = truth(c, k);
    commit_sent = true;
    c.exec("COMMIT");
    commit_time = steady::now();
    committed = true;
  } catch (const pg::error& e) {
    bool lost = db_.lost(e);
    if (!lost) {
      try {
        db_.conn().exec("ROLLBACK");
      } catch (const pg::error&) {
        db_.drop();
      }
    } else {
      db_.drop();
    }
    if (!(lost && commit_sent)) {
      ++n_.write_failures;
      if (!opt_.quiet)
        std::fprintf(stderr, "restcache-freshness: write %s failed (rolled back): %s\n", gen_->ops()[p->op].name,
                     e.what());
      return;
    }
    // The COMMIT may or may not have happened: check the keys anyway (the
    // truth decides) and re-read the ids.
    ++n_.write_ambiguous;
    if (!opt_.quiet)
      std::fprintf(stderr, "restcache-freshness: connection lost at COMMIT of %s; checking its keys anyway\n",
                   gen_->ops()[p->op].name);
    commit_time = steady::now();
    try {
      gen_->load(db_);
    } catch (const pg::error& e2) {
      std::fprintf(stderr, "restcache-freshness: cannot re-read ids: %s\n", e2.what());
    }
    expected.clear();
    logged = p->docs;
  }
  if (committed) {
    ++n_.writes;
    ++n_.per_op[p->op];
    if (p->committed)
      p->committed();
    for (auto& k : p->docs)
      if (!logged.count(k) && !truncated) {
        ++n_.trigger_gaps;
        std::fprintf(stderr, "restcache-freshness: %s changed %s but the change log does not name it\n",
                     gen_->ops()[p->op].name, k.name().c_str());
      }
  }
  std::set<checked_doc> keys = p->docs;
  keys.insert(logged.begin(), logged.end());
  if (committed && opt_.latency_every > 0 && n_.writes % uint64_t(opt_.latency_every) == 0)
    measure_latency(expected, commit_time);
  for (auto& k : keys) {
    check c{write_no, p->op, k, commit_time, commit_time + milliseconds{opt_.read_delay_ms},
            steady::time_point{}, false};
    c.give_up = c.due + milliseconds{opt_.unavailable_grace_ms};
    checks_.push(c);
    ++pending_[k];
    last_write_[k] = write_no;
  }
}

void checker::measure_latency(const std::map<checked_doc, std::optional<std::string>>& expected,
                              steady::time_point commit) {
  auto limit = commit + milliseconds{opt_.latency_limit_ms};
  std::map<checked_doc, std::optional<std::string>> left = expected;
  steady::time_point last_match = commit;
  bool saw_unavailable = false;
  while (!left.empty() && steady::now() < limit) {
    for (auto it = left.begin(); it != left.end();) {
      auto r = get(poller_, it->first.target());
      auto now = steady::now();
      if (unavailable(r)) {
        saw_unavailable = true;
        ++it;
        continue;
      }
      std::optional<std::string> served;
      if (r.status == 200)
        served = std::move(r.body);
      if ((r.status == 200 || r.status == 404) && served == it->second) {
        last_match = now;
        it = left.erase(it);
      } else {
        ++it;
      }
    }
    if (!left.empty())
      std::this_thread::sleep_for(milliseconds{2});
  }
  // A sample that saw the service unavailable (restarting daemon, 503 while
  // PostgreSQL restarts) measures the outage, not the invalidation: left out.
  if (saw_unavailable)
    ++n_.latency_unavailable;
  else if (left.empty())
    n_.latencies_ms.push_back(ms_between(commit, last_match));
  else
    ++n_.latency_timeouts;
}

void checker::finish_check(const check& c) {
  if (auto it = pending_.find(c.key); it != pending_.end() && --it->second <= 0)
    pending_.erase(it);
}

void checker::run_check(check c) {
  if (auto it = last_write_.find(c.key); it != last_write_.end() && it->second != c.write_no) {
    ++n_.superseded; // a later write touched the key; its own check covers it
    finish_check(c);
    return;
  }
  std::optional<std::string> before, after;
  http_response r;
  try {
    before = db_.run([&](pg::connection& conn) { return truth(conn, c.key); });
    r = get(svc_, c.key.target());
    if (!unavailable(r) && (r.status == 200 || r.status == 404))
      after = db_.run([&](pg::connection& conn) { return truth(conn, c.key); });
  } catch (const pg::error& e) {
    ++n_.errors;
    std::fprintf(stderr, "restcache-freshness: cannot read the truth of %s: %s\n", c.key.name().c_str(), e.what());
    finish_check(c);
    return;
  }
  auto now = steady::now();
  if (unavailable(r) && now < c.give_up) {
    ++n_.unavailable_retries;
    c.due = now + milliseconds{100};
    checks_.push(c);
    return;
  }
  if (r.status != 200 && r.status != 404) {
    ++n_.errors;
    if (error_printed_++ < 10)
      std::fprintf(stderr, "restcache-freshness: error: GET %s -> %d %s\n", c.key.target().c_str(), r.status,
                   r.status == 0 ? r.error.c_str() : r.reason.c_str());
    finish_check(c);
    return;
  }
  std::optional<std::string> served;
  if (r.status == 200)
    served = std::move(r.body);
  bool fresh = served == before || served == after;
  const bool marked_stale_if_error =
    r.status == 200 && r.header_or_empty("Cache-Status").find("detail=stale-if-error") != std::string::npos;
  if (!fresh && before != after && !c.truth_retry) {
    // The row changed while we looked (another writer): compare once more.
    c.truth_retry = true;
    c.due = now;
    checks_.push(c);
    return;
  }
  ++n_.checked;
  if (now - c.due > milliseconds{500})
    ++n_.late_checks;
  if (fresh) {
    ++n_.fresh;
  } else if (marked_stale_if_error) {
    // The daemon said it could not check this copy against PostgreSQL: an
    // expected answer during an outage, counted apart.
    ++n_.stale_if_error;
    if (stale_printed_++ < 10)
      std::fprintf(stderr,
                   "restcache-freshness: stale-if-error %s after write #%llu (%s), read %.0f ms after COMMIT "
                   "(Age %s)\n",
                   c.key.name().c_str(), (unsigned long long)c.write_no, gen_->ops()[c.op].name,
                   ms_between(c.commit, now), r.header_or_empty("Age").c_str());
  } else {
    ++n_.stale;
    if (stale_printed_++ < 10)
      std::fprintf(stderr, "restcache-freshness: STALE %s after write #%llu (%s), read %.0f ms after COMMIT: %s\n",
                   c.key.name().c_str(), (unsigned long long)c.write_no, gen_->ops()[c.op].name,
                   ms_between(c.commit, now), diff_excerpt(served, after).c_str());
  }
  finish_check(c);
}

void checker::run_due_checks(steady::time_point now) {
  while (!checks_.empty() && checks_.top().due <= now) {
    check c = checks_.top();
    checks_.pop();
    run_check(c);
    now = steady::now();
  }
}

void checker::reader_loop(unsigned idx) {
  http_client cl{opt_.port, milliseconds{5000}, opt_.host};
  std::mt19937_64 rng{opt_.seed.value_or(0) * 7919 + idx + 1};
  double per_thread = opt_.reads_per_second > 0 ? opt_.reads_per_second / double(opt_.readers) : 0;
  auto period = per_thread > 0 ? std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(1.0 / per_thread))
                               : steady::duration::zero();
  auto next = steady::now();
  while (!stop_readers_.load(std::memory_order_relaxed)) {
    auto r = get(cl, gen_->read_target(rng));
    reads_.fetch_add(1, std::memory_order_relaxed);
    if (r.status != 200 && r.status != 404) {
      read_errors_.fetch_add(1, std::memory_order_relaxed);
      std::this_thread::sleep_for(milliseconds{20});
    }
    if (period > steady::duration::zero()) {
      next += period;
      auto now = steady::now();
      if (next < now - std::chrono::seconds{1})
        next = now; // fell behind (daemon down): do not burst
      std::this_thread::sleep_until(next);
    }
  }
}

void checker::report(steady::time_point start, bool final) {
  double elapsed = ms_between(start, steady::now()) / 1000.0;
  auto& l = n_.latencies_ms;
  double p50 = percentile(l, 50), p99 = percentile(l, 99);
  double mx = l.empty() ? 0 : *std::max_element(l.begin(), l.end());
  if (!final) {
    std::fprintf(stderr,
                 "restcache-freshness: t=%.0fs writes=%llu checked=%llu stale=%llu stale_if_error=%llu errors=%llu "
                 "pending=%zu reads=%llu latency_p50=%.1fms\n",
                 elapsed, (unsigned long long)n_.writes, (unsigned long long)n_.checked,
                 (unsigned long long)n_.stale, (unsigned long long)n_.stale_if_error, (unsigned long long)n_.errors,
                 checks_.size(), (unsigned long long)reads_.load(), p50);
    return;
  }
  auto u = [](uint64_t v) { return (unsigned long long)v; };
  std::printf("freshness: writes=%llu checked=%llu stale=%llu stale_if_error=%llu errors=%llu latency_p50_ms=%.1f "
              "latency_p99_ms=%.1f latency_max_ms=%.1f latency_samples=%zu latency_timeouts=%llu latency_unavailable=%llu "
              "write_failures=%llu write_ambiguous=%llu superseded=%llu late_checks=%llu unavailable_retries=%llu "
              "trigger_gaps=%llu primed_missing=%llu deferred=%llu reads=%llu read_errors=%llu seconds=%.1f\n",
              u(n_.writes), u(n_.checked), u(n_.stale), u(n_.stale_if_error), u(n_.errors), p50, p99, mx, l.size(),
              u(n_.latency_timeouts),
              u(n_.latency_unavailable), u(n_.write_failures), u(n_.write_ambiguous), u(n_.superseded),
              u(n_.late_checks), u(n_.unavailable_retries), u(n_.trigger_gaps), u(n_.primed_missing), u(n_.deferred),
              u(reads_.load()), u(read_errors_.load()), elapsed);
  std::printf("freshness: writes by kind:");
  for (size_t i = 0; i < n_.per_op.size(); ++i)
    std::printf(" %s=%llu", gen_->ops()[i].name, u(n_.per_op[i]));
  std::printf("\n");
  if (opt_.json) {
    std::printf("{\"writes\":%llu,\"checked\":%llu,\"fresh\":%llu,\"stale\":%llu,\"stale_if_error\":%llu,"
                "\"errors\":%llu,"
                "\"latency_p50_ms\":%.2f,\"latency_p99_ms\":%.2f,\"latency_max_ms\":%.2f,\"latency_samples\":%zu,"
                "\"latency_timeouts\":%llu,\"latency_unavailable\":%llu,\"write_failures\":%llu,"
                "\"write_ambiguous\":%llu,\"superseded\":%llu,\"late_checks\":%llu,\"unavailable_retries\":%llu,"
                "\"trigger_gaps\":%llu,\"primed_missing\":%llu,\"deferred\":%llu,\"reads\":%llu,\"read_errors\":%llu,\"seconds\":%.1f,"
                "\"seed\":%llu,\"ops\":{",
                u(n_.writes), u(n_.checked), u(n_.fresh), u(n_.stale), u(n_.stale_if_error), u(n_.errors), p50, p99,
                mx, l.size(),
                u(n_.latency_timeouts), u(n_.latency_unavailable), u(n_.write_failures), u(n_.write_ambiguous),
                u(n_.superseded), u(n_.late_checks), u(n_.unavailable_retries), u(n_.trigger_gaps),
                u(n_.primed_missing), u(n_.deferred),
                u(reads_.load()), u(read_errors_.load()), elapsed, u(opt_.seed.value_or(0)));
    for (size_t i = 0; i < n_.per_op.size(); ++i)
      std::printf("%s\"%s\":%llu", i ? "," : "", gen_->ops()[i].name, u(n_.per_op[i]));
    std::printf("}}\n");
  }
  std::fflush(stdout);
}

void checker::choose_kinds(std::string_view list) {
  std::fill(op_weights_.begin(), op_weights_.end(), 0);
  auto ops = gen_->ops();
  while (!list.empty()) {
    auto comma = list.find(',');
    auto name = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    auto i = size_t(std::find_if(ops.begin(), ops.end(), [&](const auto& op) { return op.name == name; })
                    - ops.begin());
    if (i == ops.size())
      usage_error("--kinds: unknown kind of write '" + std::string{name} + "' for --writes " + opt_.writes);
    op_weights_[i] = ops[i].weight;
  }
}

void checker::check_write_kinds() {
  try {
    db_.run([](pg::connection& c) {
      c.exec("SET session_replication_role = replica");
      c.exec("RESET session_replication_role");
      return 0;
    });
  } catch (const pg::error& e) {
    for (size_t i = 0; i < op_weights_.size(); ++i)
      if (gen_->ops()[i].replica_role)
        op_weights_[i] = 0;
    if (!opt_.quiet)
      std::fprintf(stderr, "restcache-freshness: no replica-mode writes (needs a superuser): %s\n", e.what());
  }
}

int checker::run() {
  gen_->load(db_);
  check_write_kinds();
  if (auto why = gen_->not_ready()) {
    std::fprintf(stderr, "restcache-freshness: %s\n", why->c_str());
    return 1;
  }
  if (!opt_.quiet)
    std::fprintf(stderr,
                 "restcache-freshness: %s writes on %s; seed %llu; %.1f writes/s "
                 "for %.0f s, check %lld ms after COMMIT, %lld readers\n",
                 opt_.writes.c_str(), gen_->describe().c_str(), (unsigned long long)opt_.seed.value_or(0),
                 opt_.writes_per_second, opt_.duration_s, (long long)opt_.read_delay_ms, (long long)opt_.readers);
  std::vector<std::thread> readers;
  for (int64_t i = 0; i < opt_.readers; ++i)
    readers.emplace_back([this, i] { reader_loop(unsigned(i)); });

  auto start = steady::now();
  auto end = start + std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(opt_.duration_s));
  auto interval = std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(1.0 / opt_.writes_per_second));
  auto next_write = start;
  auto next_report = start + std::chrono::seconds{10};
  int rc = 0;
  try {
    for (;;) {
      auto now = steady::now();
      run_due_checks(now);
      now = steady::now();
      bool writing = now < end && !interrupted.load();
      if (!writing && checks_.empty())
        break;
      if (writing && now >= next_write) {
        write_once();
        next_write += interval;
        now = steady::now();
        if (next_write < now - std::chrono::seconds{1})
          next_write = now; // stalled (PostgreSQL down, latency polls): no burst
        continue;
      }
      if (!opt_.quiet && now >= next_report) {
        report(start, false);
        next_report += std::chrono::seconds{10};
      }
      auto wake = writing ? std::min(next_write, end) : now + milliseconds{50};
      if (!checks_.empty())
        wake = std::min(wake, checks_.top().due);
      wake = std::min(wake, now + milliseconds{100});
      if (wake > now)
        std::this_thread::sleep_until(wake);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "restcache-freshness: giving up: %s\n", e.what());
    rc = 1;
  }
  stop_readers_.store(true);
  for (auto& t : readers)
    t.join();
  report(start, true);
  if (!checks_.empty()) {
    std::fprintf(stderr, "restcache-freshness: %zu checks left undone\n", checks_.size());
    rc = 1;
  }
  if (n_.stale > 0 || n_.errors > 0)
    rc = 1;
  if (n_.checked == 0) {
    std::fprintf(stderr, "restcache-freshness: nothing was checked\n");
    rc = 1;
  }
  return rc;
}

} // namespace

int main(int argc, char** argv) {
  auto opt = parse_args(argc, argv);
  if (opt.documents.empty()) {
    restcache::demo::install_demo_catalogue(); // the demo's documents, the daemon's default
  } else {
    // The kinds the daemon serves from the same file: their routes and statements.
    auto declared = restcache::declarations::read_declaration_file(opt.documents);
    if (!declared.ok()) {
      std::fprintf(stderr, "restcache-freshness: --documents is refused:\n%s", declared.error_text().c_str());
      return 2;
    }
    restcache::install_catalogue(std::move(declared.kinds));
  }
  if (!opt.seed)
    opt.seed = uint64_t(std::chrono::system_clock::now().time_since_epoch().count()) & 0x7fffffffffffffffULL;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGPIPE, SIG_IGN);
  try {
    checker c{opt, opt.writes == "shop" ? restcache::freshness::make_shop_writes()
                                        : restcache::freshness::make_demo_writes()};
    return c.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "restcache-freshness: %s\n", e.what());
    return 1;
  }
}
