// restcache-freshness: does restcached serve what PostgreSQL holds?
//
//   restcache-freshness --dsn DSN --url http://127.0.0.1:PORT [--duration S]
//                       [--writes-per-second W] [--read-delay-ms MS] [--readers N]
//                       [--reads-per-second R] [--kinds K,K...] [--seed N] [--json] [--version]
//                       [--help]
//
// Changes random departments and employees through SQL, one transaction per
// write (renames, salary changes, moves, inserts, deletes, renames applied
// with session_replication_role = replica as logical replication applies
// them, and TRUNCATE of emp or of dept CASCADE reloaded without one row), and read_delay
// after each COMMIT reads every affected document back through the service
// and compares it byte for byte with the database's truth at that moment,
// read by the kind's own statement and written by its plan (pg::read_document,
// what the daemon runs): the checking half knows no kind and checks every
// kind of the key spaces a change logged. Meanwhile `readers`
// threads keep a random read load on GET /deptemps/{id}. For a sample of
// writes it also polls the service right after COMMIT until it serves the new
// documents: the invalidation latency seen from outside. An answer marked
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

#include "demo/demo_catalogue.hpp"
#include "tools/cli_args.hpp"
#include "messages/document_encoder.hpp"
#include "persistence/pg/connection.hpp"
#include "persistence/pg/doc_queries.hpp"
#include "persistence/pg/statements.hpp"
#include "test/fixtures/http_client.hpp"

namespace pg = restcache::pg;
using restcache::test::http_client;
using restcache::test::http_response;
using steady = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

// ---- options -------------------------------------------------------------------

constexpr const char* usage_text =
  "usage: restcache-freshness --dsn DSN --url http://127.0.0.1:PORT [--duration S]\n"
  "                           [--writes-per-second W] [--read-delay-ms MS] [--readers N]\n"
  "                           [--reads-per-second R] [--kinds K,K...] [--seed N] [--json] [--version]\n"
  "                           [--help]\n";

constexpr const char* help_text =
  "\n"
  "Writes random changes to dept/emp through SQL (each in its own transaction) and,\n"
  "read-delay after each COMMIT, reads every affected document back through the\n"
  "service (GET /deptemps/{deptno}, GET /depts/emps/{empno}); a document that differs\n"
  "from the database's truth at that moment (encoded as the daemon does) is stale, a\n"
  "deleted row must answer 404; one marked Cache-Status ...; detail=stale-if-error\n"
  "(PostgreSQL could not be reached) is counted apart as stale_if_error, not stale.\n"
  "Assumes it is the only writer. Kinds of write: renames,\n"
  "salary changes, moves, inserts and deletes of employees and departments, renames\n"
  "under session_replication_role = replica (as logical replication applies them;\n"
  "superuser only, else left out) and TRUNCATE of emp or dept CASCADE reloaded without\n"
  "one employee or department (only while emp has at most 100,000 rows).\n"
  "\n"
  "  --dsn DSN                 libpq connection string for writes and the truth\n"
  "  --url URL                 the service, http://127.0.0.1:PORT (default port 8080)\n"
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
  "  --kinds K,K...            only these kinds of write, at their usual relative weights:\n"
  "                            rename_dept change_sal move_emp insert_emp delete_emp\n"
  "                            insert_dept delete_dept replica_rename truncate_reload\n"
  "                            (default: all)\n"
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

// ---- documents -----------------------------------------------------------------

/// A cached document: a kind of the installed catalogue and its key's
/// spelling. The checking half knows no kind: the path comes from the kind's
/// route and the truth from its own statement and plan (pg::read_document),
/// so it checks any declared kind; the write generator below is the demo's.
struct doc_key {
  std::string kind;
  std::string key;
  auto operator<=>(const doc_key&) const = default;
  std::string name() const { return kind + ":" + key; }
  /// The kind's route followed by the key, percent-encoded where a path
  /// needs it.
  std::string target() const {
    const auto* entry = restcache::find_doc_kind(kind);
    std::string t = entry != nullptr ? entry->route : "/" + kind + "/";
    static constexpr char hex[] = "0123456789ABCDEF";
    for (unsigned char ch : key) {
      if (std::isalnum(ch) || ch == '-' || ch == '.' || ch == '_' || ch == '~') {
        t += static_cast<char>(ch);
      } else {
        t += '%';
        t += hex[ch >> 4];
        t += hex[ch & 15];
      }
    }
    return t;
  }
};

/// The demo's department (with its employees) and employee documents.
doc_key dept_doc(int32_t deptno) {
  return {"deptemps", std::to_string(deptno)};
}
doc_key emp_doc(int32_t empno) {
  return {"emp", std::to_string(empno)};
}

/// The document as the daemon would encode it now, by its kind's statement
/// and plan; nullopt: no such document (404).
std::optional<std::string> truth(pg::connection& c, const doc_key& k) {
  const auto* entry = restcache::find_doc_kind(k.kind);
  if (entry == nullptr)
    throw std::runtime_error("no kind '" + k.kind + "' is installed");
  restcache::doc_key key;
  if (restcache::parse_key(entry->key, entry->kind, k.key, key) != restcache::key_error::none)
    throw std::runtime_error("'" + k.key + "' is no key of kind '" + k.kind + "'");
  auto doc = pg::read_document(c, key);
  return doc.empty() ? std::nullopt : std::optional<std::string>{std::move(doc)};
}

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

// ---- PostgreSQL, reconnecting ----------------------------------------------------

bool is_connection_failure(const pg::error& e, const std::optional<pg::connection>& c) {
  return e.connection_lost() || !c || !c->ok();
}

class database {
public:
  database(std::string dsn, int64_t retry_s, bool quiet) : dsn_(std::move(dsn)), retry_s_(retry_s), quiet_(quiet) {}

  /// The connection, connecting (and waiting up to retry_s) when needed.
  pg::connection& conn() {
    auto deadline = steady::now() + std::chrono::seconds{retry_s_};
    while (!conn_ || !conn_->ok()) {
      try {
        conn_.reset();
        pg::connection c{dsn_};
        pg::prepare_statements(c);
        c.exec("SET application_name = 'restcache-freshness'");
        conn_.emplace(std::move(c));
        if (reconnects_++ > 0 && !quiet_)
          std::fprintf(stderr, "restcache-freshness: reconnected to PostgreSQL\n");
      } catch (const pg::error& e) {
        if (steady::now() >= deadline)
          throw;
        if (!waiting_ && !quiet_)
          std::fprintf(stderr, "restcache-freshness: PostgreSQL unavailable, waiting: %s\n", e.what());
        waiting_ = true;
        std::this_thread::sleep_for(milliseconds{200});
        continue;
      }
      waiting_ = false;
    }
    return *conn_;
  }

  /// Runs f(conn), again on a new connection when the connection broke
  /// (bounded by retry_s). f must be safe to repeat (reads).
  template <class F>
  auto run(F&& f) -> decltype(f(std::declval<pg::connection&>())) {
    auto deadline = steady::now() + std::chrono::seconds{retry_s_};
    for (;;) {
      try {
        return f(conn());
      } catch (const pg::error& e) {
        if (!is_connection_failure(e, conn_) || steady::now() >= deadline)
          throw;
        conn_.reset();
        std::this_thread::sleep_for(milliseconds{100});
      }
    }
  }

  bool lost(const pg::error& e) const { return is_connection_failure(e, conn_); }
  void drop() { conn_.reset(); }

private:
  std::string dsn_;
  int64_t retry_s_;
  bool quiet_;
  std::optional<pg::connection> conn_;
  int reconnects_ = 0;
  bool waiting_ = false;
};

std::string param(int64_t v) {
  return std::to_string(v);
}

// ---- the checker ---------------------------------------------------------------

enum class op_kind {
  rename_dept, change_sal, move_emp, insert_emp, delete_emp, insert_dept, delete_dept, replica_rename,
  truncate_reload
};
constexpr int op_count = 9;
constexpr const char* op_names[op_count] = {"rename_dept", "change_sal",  "move_emp",       "insert_emp",
                                            "delete_emp",  "insert_dept", "delete_dept",    "replica_rename",
                                            "truncate_reload"};
// Relative weights: mostly updates; inserts a little ahead of deletes; a
// truncate reloads the whole table (and drops every cached document), so it
// is rare.
constexpr int op_default_weights[op_count] = {20, 25, 15, 12, 10, 10, 8, 6, 2};
// A truncate-and-reload rewrites every employee row: not on larger tables.
constexpr int64_t truncate_max_emps = 100'000;

struct plan {
  op_kind op;
  std::set<doc_key> keys; ///< documents the write changes (computed beforehand)
  int32_t deptno = 0, deptno2 = 0, empno = 0, value = 0;
  std::vector<int32_t> new_empnos;
  std::string text;
  bool whole_dept = false; ///< truncate_reload: TRUNCATE dept CASCADE (else TRUNCATE emp)
};

struct check {
  uint64_t write_no;
  op_kind op;
  doc_key key;
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
  uint64_t per_op[op_count] = {};
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
  explicit checker(const options& o)
    : opt_(o), db_(o.dsn, o.pg_retry_s, o.quiet), svc_(o.port, milliseconds{5000}, o.host),
      poller_(o.port, milliseconds{5000}, o.host), rng_(o.seed.value_or(0)) {
    std::copy(std::begin(op_default_weights), std::end(op_default_weights), op_weights_);
    if (!o.kinds.empty())
      choose_kinds(o.kinds);
  }

  int run();

private:
  // setup and state
  /// --kinds: every kind not named gets weight 0.
  void choose_kinds(std::string_view list);
  void load_ids();
  /// Turns off the kinds of write this database does not allow (replica
  /// mode needs a superuser), saying so.
  void check_write_kinds();
  int32_t random_dept();
  std::optional<std::pair<int32_t, int32_t>> random_emp(); ///< (empno, deptno)
  std::set<doc_key> dependents(const std::vector<int32_t>& empnos, std::optional<int32_t> except_dept);
  std::set<doc_key> emp_removal_keys(int32_t empno, int32_t deptno);
  std::set<doc_key> dept_removal_keys(int32_t deptno);
  // writes
  std::optional<plan> make_plan(op_kind op);
  std::optional<plan> pick_plan();
  void write_once();
  void apply_local(const plan& p);
  // reads
  void prewarm(const std::set<doc_key>& keys);
  void measure_latency(const std::map<doc_key, std::optional<std::string>>& expected, steady::time_point commit);
  void run_due_checks(steady::time_point now);
  void run_check(check c);
  void finish_check(const check& c);
  http_response get(http_client& cl, const std::string& target);
  // readers
  void reader_loop(unsigned idx);
  void report(steady::time_point start, bool final);

  const options& opt_;
  database db_;
  http_client svc_;    ///< checks and prewarm
  http_client poller_; ///< latency polling
  std::mt19937_64 rng_;
  int op_weights_[op_count];
  std::vector<int32_t> dept_ids_;
  int32_t next_deptno_ = 1;
  int32_t next_empno_ = 1;
  std::atomic<int32_t> max_deptno_{1};
  std::priority_queue<check, std::vector<check>, std::greater<check>> checks_;
  std::map<doc_key, int> pending_;           ///< keys with a check not yet done
  std::map<doc_key, uint64_t> last_write_;   ///< key -> number of the last write touching it
  counters n_;
  int stale_printed_ = 0;
  int error_printed_ = 0;
  // read load
  std::atomic<bool> stop_readers_{false};
  std::atomic<uint64_t> reads_{0};
  std::atomic<uint64_t> read_errors_{0};
};

void checker::load_ids() {
  dept_ids_ = db_.run([](pg::connection& c) { return pg::fetch_dept_ids(c); });
  auto r = db_.run([](pg::connection& c) {
    return c.exec("SELECT COALESCE(max(deptno), 0), (SELECT COALESCE(max(empno), 0) FROM emp) FROM dept");
  });
  next_deptno_ = std::max<int32_t>(next_deptno_, int32_t(r.int64(0, 0)) + 1);
  next_empno_ = std::max<int32_t>(next_empno_, int32_t(r.int64(0, 1)) + 1);
  max_deptno_.store(std::max<int32_t>(1, next_deptno_ - 1));
}

int32_t checker::random_dept() {
  if (dept_ids_.empty())
    return 0;
  return dept_ids_[std::uniform_int_distribution<size_t>{0, dept_ids_.size() - 1}(rng_)];
}

std::optional<std::pair<int32_t, int32_t>> checker::random_emp() {
  for (int attempt = 0; attempt < 8; ++attempt) {
    int32_t d = random_dept();
    if (d == 0)
      return std::nullopt;
    auto r = db_.run([&](pg::connection& c) {
      return c.exec_params("SELECT empno FROM emp WHERE deptno = $1 ORDER BY empno", {param(d)});
    });
    if (r.rows() == 0)
      continue;
    int row = std::uniform_int_distribution<int>{0, r.rows() - 1}(rng_);
    return std::pair{int32_t(r.int64(row, 0)), d};
  }
  return std::nullopt;
}

/// Employees (outside `except_dept`) whose mgr is one of `empnos`: deleting
/// those sets their mgr to NULL, which changes their document and their
/// department's.
std::set<doc_key> checker::dependents(const std::vector<int32_t>& empnos, std::optional<int32_t> except_dept) {
  std::set<doc_key> keys;
  if (empnos.empty())
    return keys;
  std::string arr = "{";
  for (size_t i = 0; i < empnos.size(); ++i) {
    if (i > 0)
      arr += ',';
    arr += std::to_string(empnos[i]);
  }
  arr += "}";
  auto r = db_.run([&](pg::connection& c) {
    return c.exec_params("SELECT empno, deptno FROM emp WHERE mgr = ANY($1::int[])", {arr});
  });
  for (int i = 0; i < r.rows(); ++i) {
    auto dept = r.opt_int32(i, 1);
    if (except_dept && dept == except_dept)
      continue;
    keys.insert(emp_doc(int32_t(r.int64(i, 0))));
    if (dept)
      keys.insert(dept_doc(*dept));
  }
  return keys;
}

/// What removing employee `empno` of department `deptno` changes: the
/// employee, its department, and the employees it managed.
std::set<doc_key> checker::emp_removal_keys(int32_t empno, int32_t deptno) {
  auto keys = dependents({empno}, std::nullopt);
  keys.insert(emp_doc(empno));
  keys.insert(dept_doc(deptno));
  return keys;
}

/// What removing department `deptno` with its employees changes: the
/// department, its employees, and the employees elsewhere they managed.
std::set<doc_key> checker::dept_removal_keys(int32_t deptno) {
  auto r = db_.run([&](pg::connection& c) {
    return c.exec_params("SELECT empno FROM emp WHERE deptno = $1", {param(deptno)});
  });
  std::vector<int32_t> emps;
  for (int i = 0; i < r.rows(); ++i)
    emps.push_back(int32_t(r.int64(i, 0)));
  auto keys = dependents(emps, deptno);
  keys.insert(dept_doc(deptno));
  for (auto e : emps)
    keys.insert(emp_doc(e));
  return keys;
}

std::optional<plan> checker::make_plan(op_kind op) {
  plan p;
  p.op = op;
  switch (op) {
    case op_kind::rename_dept:
    case op_kind::replica_rename: {
      p.deptno = random_dept();
      if (p.deptno == 0)
        return std::nullopt;
      p.text = std::string{op == op_kind::rename_dept ? "Renamed " : "Replicated "}
               + std::to_string(std::uniform_int_distribution<int>{0, 999'999}(rng_));
      p.keys = {dept_doc(p.deptno)};
      break;
    }
    case op_kind::change_sal: {
      auto e = random_emp();
      if (!e)
        return std::nullopt;
      std::tie(p.empno, p.deptno) = *e;
      p.value = std::uniform_int_distribution<int>{800, 9999}(rng_);
      p.keys = {emp_doc(p.empno), dept_doc(p.deptno)};
      break;
    }
    case op_kind::move_emp: {
      auto e = random_emp();
      if (!e || dept_ids_.size() < 2)
        return std::nullopt;
      std::tie(p.empno, p.deptno) = *e;
      do
        p.deptno2 = random_dept();
      while (p.deptno2 == p.deptno);
      p.keys = {emp_doc(p.empno), dept_doc(p.deptno), dept_doc(p.deptno2)};
      break;
    }
    case op_kind::insert_emp: {
      p.deptno = random_dept();
      if (p.deptno == 0)
        return std::nullopt;
      p.empno = next_empno_;
      p.value = std::uniform_int_distribution<int>{800, 9999}(rng_);
      p.keys = {emp_doc(p.empno), dept_doc(p.deptno)};
      break;
    }
    case op_kind::delete_emp: {
      auto e = random_emp();
      if (!e)
        return std::nullopt;
      std::tie(p.empno, p.deptno) = *e;
      p.keys = emp_removal_keys(p.empno, p.deptno);
      break;
    }
    case op_kind::insert_dept: {
      p.deptno = next_deptno_;
      int emps = std::uniform_int_distribution<int>{2, 3}(rng_);
      p.keys = {dept_doc(p.deptno)};
      for (int i = 0; i < emps; ++i) {
        p.new_empnos.push_back(next_empno_ + i);
        p.keys.insert(emp_doc(next_empno_ + i));
      }
      p.text = "Fresh " + std::to_string(p.deptno);
      break;
    }
    case op_kind::truncate_reload: {
      auto n = db_.run([](pg::connection& c) { return c.exec("SELECT count(*) FROM emp").int64(0, 0); });
      if (n > truncate_max_emps)
        return std::nullopt;
      p.whole_dept = std::uniform_int_distribution<int>{0, 1}(rng_) == 1;
      if (!p.whole_dept) {
        // TRUNCATE emp, reloaded without one employee: only the TRUNCATE
        // names it (the reload's inserts name every other row).
        auto e = random_emp();
        if (!e)
          return std::nullopt;
        std::tie(p.empno, p.deptno) = *e;
        p.keys = emp_removal_keys(p.empno, p.deptno);
        break;
      }
      // TRUNCATE dept CASCADE, reloaded without one department and its employees.
      p.deptno = random_dept();
      if (p.deptno == 0 || dept_ids_.size() < 10)
        return std::nullopt;
      p.keys = dept_removal_keys(p.deptno);
      break;
    }
    case op_kind::delete_dept: {
      p.deptno = random_dept();
      if (p.deptno == 0 || dept_ids_.size() < 10)
        return std::nullopt; // keep some departments around
      p.keys = dept_removal_keys(p.deptno);
      break;
    }
  }
  return p;
}

std::optional<plan> checker::pick_plan() {
  int total = 0;
  for (int w : op_weights_)
    total += w;
  if (total == 0)
    return std::nullopt;
  for (int attempt = 0; attempt < 20; ++attempt) {
    int x = std::uniform_int_distribution<int>{0, total - 1}(rng_);
    int i = 0;
    while (x >= op_weights_[i])
      x -= op_weights_[i++];
    auto p = make_plan(op_kind(i));
    if (!p)
      continue;
    bool busy = std::any_of(p->keys.begin(), p->keys.end(), [&](const doc_key& k) { return pending_.count(k) > 0; });
    if (!busy)
      return p;
  }
  return std::nullopt;
}

void checker::apply_local(const plan& p) {
  switch (p.op) {
    case op_kind::insert_emp:
      next_empno_ = std::max(next_empno_, p.empno + 1);
      break;
    case op_kind::insert_dept:
      dept_ids_.push_back(p.deptno);
      next_deptno_ = std::max(next_deptno_, p.deptno + 1);
      for (auto e : p.new_empnos)
        next_empno_ = std::max(next_empno_, e + 1);
      max_deptno_.store(std::max(max_deptno_.load(), p.deptno));
      break;
    case op_kind::delete_dept:
      dept_ids_.erase(std::remove(dept_ids_.begin(), dept_ids_.end(), p.deptno), dept_ids_.end());
      break;
    case op_kind::truncate_reload:
      if (p.whole_dept)
        dept_ids_.erase(std::remove(dept_ids_.begin(), dept_ids_.end(), p.deptno), dept_ids_.end());
      break;
    default:
      break;
  }
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

void checker::prewarm(const std::set<doc_key>& keys) {
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
  auto p = pick_plan();
  if (!p) {
    ++n_.deferred;
    return;
  }
  prewarm(p->keys);
  uint64_t write_no = n_.writes + n_.write_failures + n_.write_ambiguous + 1;
  std::map<doc_key, std::optional<std::string>> expected;
  std::set<doc_key> logged;
  bool truncated = false;
  bool commit_sent = false;
  bool committed = false;
  steady::time_point commit_time;
  try {
    auto& c = db_.conn();
    c.exec("BEGIN");
    switch (p->op) {
      case op_kind::replica_rename:
        // As logical replication applies it on a subscriber.
        c.exec("SET LOCAL session_replication_role = replica");
        [[fallthrough]];
      case op_kind::rename_dept:
        c.exec_params("UPDATE dept SET dname = $2 WHERE deptno = $1", {param(p->deptno), p->text});
        break;
      case op_kind::change_sal:
        c.exec_params("UPDATE emp SET sal = $2 WHERE empno = $1", {param(p->empno), param(p->value)});
        break;
      case op_kind::move_emp:
        c.exec_params("UPDATE emp SET deptno = $2 WHERE empno = $1", {param(p->empno), param(p->deptno2)});
        break;
      case op_kind::insert_emp:
        c.exec_params("INSERT INTO emp (empno, ename, job, mgr, hiredate, sal, comm, deptno) "
                      "SELECT $1::int, $4::text, 'CLERK', (SELECT min(empno) FROM emp WHERE deptno = $2::int), "
                      "DATE '2026-01-02', $3::int, NULL, $2::int",
                      {param(p->empno), param(p->deptno), param(p->value), "Fresh Hire " + param(p->empno)});
        break;
      case op_kind::delete_emp:
        c.exec_params("DELETE FROM emp WHERE empno = $1", {param(p->empno)});
        break;
      case op_kind::insert_dept: {
        c.exec_params("INSERT INTO dept (deptno, dname, loc) VALUES ($1, $2, 'Freshville')",
                      {param(p->deptno), p->text});
        std::optional<std::string> mgr;
        for (size_t i = 0; i < p->new_empnos.size(); ++i) {
          int32_t e = p->new_empnos[i];
          c.exec_params("INSERT INTO emp (empno, ename, job, mgr, hiredate, sal, comm, deptno) "
                        "VALUES ($1::int, $5::text, $3::text, $4::int, DATE '2026-02-03', 1500, 100, $2::int)",
                        {param(e), param(p->deptno), std::string{i == 0 ? "MANAGER" : "ANALYST"}, mgr,
                         "New Staff " + param(e)});
          if (i == 0)
            mgr = param(e);
        }
        break;
      }
      case op_kind::delete_dept:
        c.exec_params("DELETE FROM dept WHERE deptno = $1", {param(p->deptno)});
        break;
      case op_kind::truncate_reload:
        // The rows that stay, with references to the dropped employees
        // cleared (as ON DELETE SET NULL would), then TRUNCATE and reload.
        // Foreign keys are checked at the end of each INSERT statement, so
        // the reload's order does not matter.
        if (p->whole_dept) {
          c.exec_params("CREATE TEMP TABLE keep_dept ON COMMIT DROP AS SELECT * FROM dept WHERE deptno <> $1",
                        {param(p->deptno)});
          c.exec_params("CREATE TEMP TABLE keep_emp ON COMMIT DROP AS"
                        " SELECT * FROM emp WHERE deptno IS DISTINCT FROM $1",
                        {param(p->deptno)});
          c.exec_params("UPDATE keep_emp SET mgr = NULL WHERE mgr IN (SELECT empno FROM emp WHERE deptno = $1)",
                        {param(p->deptno)});
          c.exec("TRUNCATE dept CASCADE");
          c.exec("INSERT INTO dept SELECT * FROM keep_dept");
        } else {
          c.exec_params("CREATE TEMP TABLE keep_emp ON COMMIT DROP AS SELECT * FROM emp WHERE empno <> $1",
                        {param(p->empno)});
          c.exec_params("UPDATE keep_emp SET mgr = NULL WHERE mgr = $1", {param(p->empno)});
          c.exec("TRUNCATE emp");
        }
        c.exec("INSERT INTO emp SELECT * FROM keep_emp");
        break;
    }
    // What the change triggers recorded for this transaction. A TRUNCATE
    // names no key: it stands for every document. Under a savepoint: a log
    // of another schema version (an older build's, before a rolling
    // upgrade's migration) cannot be read this way, and then the write's
    // own keys stand in for it.
    pg::result r;
    c.exec("SAVEPOINT read_log");
    try {
      r = c.exec("SELECT split_part(u.k, ':', 1), substr(u.k, strpos(u.k, ':') + 1)"
                 " FROM change_log c, unnest(c.keys) AS u (k) WHERE c.xid = pg_current_xact_id()");
      c.exec("RELEASE SAVEPOINT read_log");
    } catch (const pg::error& e) {
      if (db_.lost(e))
        throw;
      c.exec("ROLLBACK TO SAVEPOINT read_log");
      logged = p->keys;
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
    for (auto& k : p->keys)
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
        std::fprintf(stderr, "restcache-freshness: write %s failed (rolled back): %s\n", op_names[int(p->op)],
                     e.what());
      return;
    }
    // The COMMIT may or may not have happened: check the keys anyway (the
    // truth decides) and re-read the ids.
    ++n_.write_ambiguous;
    if (!opt_.quiet)
      std::fprintf(stderr, "restcache-freshness: connection lost at COMMIT of %s; checking its keys anyway\n",
                   op_names[int(p->op)]);
    commit_time = steady::now();
    try {
      load_ids();
    } catch (const pg::error& e2) {
      std::fprintf(stderr, "restcache-freshness: cannot re-read ids: %s\n", e2.what());
    }
    expected.clear();
    logged = p->keys;
  }
  if (committed) {
    ++n_.writes;
    ++n_.per_op[int(p->op)];
    apply_local(*p);
    for (auto& k : p->keys)
      if (!logged.count(k) && !truncated) {
        ++n_.trigger_gaps;
        std::fprintf(stderr, "restcache-freshness: %s changed %s but the change log does not name it\n",
                     op_names[int(p->op)], k.name().c_str());
      }
  }
  std::set<doc_key> keys = p->keys;
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

void checker::measure_latency(const std::map<doc_key, std::optional<std::string>>& expected,
                              steady::time_point commit) {
  auto limit = commit + milliseconds{opt_.latency_limit_ms};
  std::map<doc_key, std::optional<std::string>> left = expected;
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
                   c.key.name().c_str(), (unsigned long long)c.write_no, op_names[int(c.op)],
                   ms_between(c.commit, now), r.header_or_empty("Age").c_str());
  } else {
    ++n_.stale;
    if (stale_printed_++ < 10)
      std::fprintf(stderr, "restcache-freshness: STALE %s after write #%llu (%s), read %.0f ms after COMMIT: %s\n",
                   c.key.name().c_str(), (unsigned long long)c.write_no, op_names[int(c.op)],
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
    int32_t id = std::uniform_int_distribution<int32_t>{1, std::max<int32_t>(1, max_deptno_.load())}(rng);
    auto r = get(cl, "/deptemps/" + std::to_string(id));
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
  for (int i = 0; i < op_count; ++i)
    std::printf(" %s=%llu", op_names[i], u(n_.per_op[i]));
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
    for (int i = 0; i < op_count; ++i)
      std::printf("%s\"%s\":%llu", i ? "," : "", op_names[i], u(n_.per_op[i]));
    std::printf("}}\n");
  }
  std::fflush(stdout);
}

void checker::choose_kinds(std::string_view list) {
  std::fill(std::begin(op_weights_), std::end(op_weights_), 0);
  while (!list.empty()) {
    auto comma = list.find(',');
    auto name = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    auto i = std::find(std::begin(op_names), std::end(op_names), name) - std::begin(op_names);
    if (i == op_count)
      usage_error("--kinds: unknown kind of write '" + std::string{name} + "'");
    op_weights_[i] = op_default_weights[i];
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
    op_weights_[int(op_kind::replica_rename)] = 0;
    if (!opt_.quiet)
      std::fprintf(stderr, "restcache-freshness: no replica-mode writes (needs a superuser): %s\n", e.what());
  }
}

int checker::run() {
  load_ids();
  check_write_kinds();
  if (dept_ids_.size() < 2) {
    std::fprintf(stderr, "restcache-freshness: the database has %zu departments; load some first\n",
                 dept_ids_.size());
    return 1;
  }
  if (!opt_.quiet)
    std::fprintf(stderr,
                 "restcache-freshness: %zu departments, next deptno %d, next empno %d; seed %llu; %.1f writes/s "
                 "for %.0f s, check %lld ms after COMMIT, %lld readers\n",
                 dept_ids_.size(), next_deptno_, next_empno_, (unsigned long long)opt_.seed.value_or(0),
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
  restcache::demo::install_demo_catalogue(); // the demo's documents, the daemon's default
  auto opt = parse_args(argc, argv);
  if (!opt.seed)
    opt.seed = uint64_t(std::chrono::system_clock::now().time_since_epoch().count()) & 0x7fffffffffffffffULL;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGPIPE, SIG_IGN);
  try {
    checker c{opt};
    return c.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "restcache-freshness: %s\n", e.what());
    return 1;
  }
}
