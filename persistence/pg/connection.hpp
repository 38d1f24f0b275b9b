// SPDX-License-Identifier: Apache-2.0
#pragma once

// RAII wrappers over libpq: a connection, a result, and helpers for named
// prepared statements. Blocking calls; callers that must not block run them on
// a dedicated connection thread (actors/db_pool).

#include <libpq-fe.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>


namespace restcache {

/// An integer column's decimal text as PostgreSQL sent it, checked to be
/// decimal (pg::result::opt_int_text), as a view into its result.
struct int_text {
  std::string_view digits;
};

} // namespace restcache

namespace restcache::pg {

/// A libpq message (which ends with a newline, sometimes several lines)
/// without its trailing whitespace, so messages compose into log lines;
/// empty for nullptr.
std::string trimmed_message(const char* msg);

/// SQLSTATE query_canceled: what statement_timeout ends a statement with.
inline constexpr std::string_view sqlstate_query_canceled = "57014";

/// SQLSTATE feature_not_supported, which a prepared statement fails with for
/// good once its result's columns changed type ("cached plan must not change
/// result type"): only a new session prepares it again.
inline constexpr std::string_view sqlstate_plan_changed = "0A000";

/// SQLSTATEs of a write this role may not make: insufficient_privilege and
/// read_only_sql_transaction (a read-only role or default_transaction_read_only).
inline bool write_refused(std::string_view sqlstate) noexcept {
  return sqlstate == "42501" || sqlstate == "25006";
}

/// A statement failed because the database no longer has what it reads: a
/// table or column dropped or altered, a privilege revoked (class 42), or
/// its result changed type (sqlstate_plan_changed).
inline bool schema_changed(std::string_view sqlstate) noexcept {
  return sqlstate.size() == 5 && (sqlstate.substr(0, 2) == "42" || sqlstate == sqlstate_plan_changed);
}

/// Thrown for connection failures and failed statements. what() holds the
/// libpq message (for the log; never sent to a client). sqlstate() is the
/// five-character SQLSTATE when the server sent one, else empty.
class error : public std::runtime_error {
public:
  error(const std::string& what, std::string sqlstate = {});
  const std::string& sqlstate() const noexcept { return sqlstate_; }
  /// True when the failure broke the connection (it must be replaced).
  bool connection_lost() const noexcept { return connection_lost_; }
  void set_connection_lost(bool v) noexcept { connection_lost_ = v; }
private:
  std::string sqlstate_;
  bool connection_lost_ = false;
};

class result {
public:
  result() = default;
  explicit result(PGresult* r) noexcept : res_(r) {}
  PGresult* get() const noexcept { return res_.get(); }
  int rows() const noexcept;
  int columns() const noexcept;
  bool is_null(int row, int col) const noexcept;
  std::string_view text(int row, int col) const noexcept;
  /// Parses an int4/int8 column; throws pg::error on a malformed value.
  int64_t int64(int row, int col) const;
  std::optional<int32_t> opt_int32(int row, int col) const;
  std::optional<std::string> opt_text(int row, int col) const;
  /// The value's text as a view into this result; nullopt for NULL.
  std::optional<std::string_view> opt_view(int row, int col) const noexcept;
  /// An integer column's text, checked to be decimal (throws error if not);
  /// nullopt for NULL.
  std::optional<int_text> opt_int_text(int row, int col) const;
private:
  /// Throws error naming the column and the text that is not an integer.
  [[noreturn]] void malformed_integer(int col, std::string_view text) const;

  struct deleter { void operator()(PGresult* r) const noexcept { PQclear(r); } };
  std::unique_ptr<PGresult, deleter> res_;
};

class connection {
public:
  /// Connects (blocking) with a libpq connection string; an empty string
  /// means libpq's defaults and the PG* environment variables.
  /// Throws pg::error with libpq's message on failure.
  explicit connection(const std::string& dsn, const char* application_name = nullptr);
  connection(connection&&) noexcept = default;
  connection& operator=(connection&&) noexcept = default;

  PGconn* get() const noexcept { return conn_.get(); }
  bool ok() const noexcept;
  /// Whether the server ended this idle session (a terminated backend, a
  /// shutdown or restart: it sends an error and closes the socket), found
  /// without a round trip: a poll of the socket, and only when something
  /// arrived, reading it. False while nothing is known against it.
  bool ended_by_server() noexcept;

  /// Runs one or more statements without parameters; throws on failure.
  result exec(const std::string& sql);
  /// Runs a statement with text parameters; throws on failure.
  result exec_params(const std::string& sql, const std::vector<std::optional<std::string>>& params);
  /// Prepares a named statement once per connection; throws on failure.
  /// Preparing a name again with the same text is a no-op (with a different
  /// text it throws).
  void prepare(const std::string& name, const std::string& sql);
  /// What the server says of a statement prepared on this connection (by
  /// name, also one prepared outside prepare()): its parameters' and
  /// columns' types (PQnparams, PQparamtype, PQnfields, PQftype). Throws.
  result describe_prepared(const std::string& name);
  /// Drops a statement prepare() prepared (DEALLOCATE); nothing when none
  /// is. Throws on failure.
  void deallocate(const std::string& name);
  /// Deallocates every statement this connection prepared and prepares each
  /// again with its text: after a column it reads changed type ("cached plan
  /// must not change result type"), without a new session.
  void prepare_again();
  /// True when prepare(name, ...) succeeded on this connection.
  bool is_prepared(const std::string& name) const noexcept;
  /// Runs a named prepared statement with text parameters; throws on failure.
  result exec_prepared(const std::string& name, const std::vector<std::optional<std::string>>& params);

private:
  struct deleter { void operator()(PGconn* c) const noexcept { PQfinish(c); } };
  std::unique_ptr<PGconn, deleter> conn_;
  std::unordered_map<std::string, std::string> prepared_; ///< name -> SQL text
  result check(PGresult* r, std::string_view what);
};

} // namespace restcache::pg
