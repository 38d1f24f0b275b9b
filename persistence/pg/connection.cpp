// SPDX-License-Identifier: Apache-2.0
#include "persistence/pg/connection.hpp"

#include <poll.h>

#include <charconv>
#include <limits>

namespace restcache::pg {

std::string trimmed_message(const char* msg) {
  std::string s = msg != nullptr ? msg : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r'))
    s.pop_back();
  return s;
}

namespace {

error make_error(PGconn* conn, const PGresult* r, std::string_view what) {
  std::string msg{what};
  std::string sqlstate;
  std::string detail;
  if (r != nullptr) {
    detail = trimmed_message(PQresultErrorMessage(r));
    if (const char* st = PQresultErrorField(r, PG_DIAG_SQLSTATE))
      sqlstate = st;
  }
  if (detail.empty() && conn != nullptr)
    detail = trimmed_message(PQerrorMessage(conn));
  if (detail.empty())
    detail = r != nullptr ? PQresStatus(PQresultStatus(r)) : "no result from libpq";
  msg += ": ";
  msg += detail;
  if (!sqlstate.empty()) {
    msg += " (SQLSTATE ";
    msg += sqlstate;
    msg += ')';
  }
  // A FATAL error (a terminated backend, a shutdown) ends the session even
  // before libpq has read the end of the stream, as does class 08.
  bool fatal = false;
  if (r != nullptr)
    if (const char* sev = PQresultErrorField(r, PG_DIAG_SEVERITY_NONLOCALIZED))
      fatal = std::string_view{sev} == "FATAL" || std::string_view{sev} == "PANIC";
  const bool lost = conn == nullptr || PQstatus(conn) != CONNECTION_OK || fatal || sqlstate.rfind("08", 0) == 0;
  error e{msg, std::move(sqlstate)};
  e.set_connection_lost(lost);
  return e;
}

/// Turns optional text parameters into what PQexecParams/PQexecPrepared take.
std::vector<const char*> param_values(const std::vector<std::optional<std::string>>& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params)
    values.push_back(p ? p->c_str() : nullptr);
  return values;
}

int param_count(const std::vector<std::optional<std::string>>& params) {
  if (params.size() > 65535)
    throw error("too many statement parameters: " + std::to_string(params.size()));
  return static_cast<int>(params.size());
}

} // namespace

// -- error --------------------------------------------------------------------

error::error(const std::string& what, std::string sqlstate)
  : std::runtime_error(what), sqlstate_(std::move(sqlstate)) {
  // nop
}

// -- result -------------------------------------------------------------------

int result::rows() const noexcept {
  return res_ ? PQntuples(res_.get()) : 0;
}

int result::columns() const noexcept {
  return res_ ? PQnfields(res_.get()) : 0;
}

bool result::is_null(int row, int col) const noexcept {
  return !res_ || PQgetisnull(res_.get(), row, col) != 0;
}

std::string_view result::text(int row, int col) const noexcept {
  if (!res_)
    return {};
  return {PQgetvalue(res_.get(), row, col),
          static_cast<size_t>(PQgetlength(res_.get(), row, col))};
}

void result::malformed_integer(int col, std::string_view text) const {
  std::string what = "malformed integer in column ";
  const char* name = res_ ? PQfname(res_.get(), col) : nullptr;
  what += name != nullptr ? name : std::to_string(col);
  what += ": '";
  what += text;
  what += '\'';
  throw error(what);
}

int64_t result::int64(int row, int col) const {
  auto s = text(row, col);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || s.empty()) {
    malformed_integer(col, s);
  }
  return v;
}

std::optional<int32_t> result::opt_int32(int row, int col) const {
  if (is_null(row, col))
    return std::nullopt;
  auto v = int64(row, col);
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    const char* name = res_ ? PQfname(res_.get(), col) : nullptr;
    throw error("integer out of int4 range in column "
                + std::string(name != nullptr ? name : std::to_string(col)) + ": "
                + std::to_string(v));
  }
  return static_cast<int32_t>(v);
}

std::optional<std::string> result::opt_text(int row, int col) const {
  if (is_null(row, col))
    return std::nullopt;
  return std::string{text(row, col)};
}

std::optional<std::string_view> result::opt_view(int row, int col) const noexcept {
  if (is_null(row, col))
    return std::nullopt;
  return text(row, col);
}

std::optional<int_text> result::opt_int_text(int row, int col) const {
  if (is_null(row, col))
    return std::nullopt;
  auto s = text(row, col);
  // What an integer column's output looks like: an optional minus sign and
  // up to 19 digits (int8). Anything else would not be a JSON number.
  size_t digits_from = !s.empty() && s[0] == '-' ? 1 : 0;
  bool ok = s.size() > digits_from && s.size() - digits_from <= 19;
  for (size_t i = digits_from; ok && i < s.size(); ++i)
    ok = s[i] >= '0' && s[i] <= '9';
  if (!ok) {
    malformed_integer(col, s);
  }
  return int_text{s};
}

// -- connection ---------------------------------------------------------------

connection::connection(const std::string& dsn, const char* application_name) {
  // expand_dbname: the DSN (key=value or URI) is expanded in place of dbname
  // and its settings override the ones before it, so a DSN may still pick its
  // own client_encoding or application_name. An empty DSN is ignored: libpq
  // defaults and PG* environment variables apply. A given application_name
  // comes last and wins: operators find that connection by it.
  const char* keys[] = {"client_encoding", "fallback_application_name", "dbname",
                        application_name ? "application_name" : nullptr, nullptr};
  const char* vals[] = {"UTF8", "restcache", dsn.c_str(), application_name, nullptr};
  conn_.reset(PQconnectdbParams(keys, vals, 1));
  if (!conn_) {
    error e{"cannot connect to PostgreSQL: out of memory"};
    e.set_connection_lost(true);
    throw e;
  }
  if (PQstatus(conn_.get()) != CONNECTION_OK) {
    error e{"cannot connect to PostgreSQL: " + trimmed_message(PQerrorMessage(conn_.get()))};
    e.set_connection_lost(true);
    conn_.reset();
    throw e;
  }
}

bool connection::ok() const noexcept {
  return conn_ && PQstatus(conn_.get()) == CONNECTION_OK;
}

bool connection::ended_by_server() noexcept {
  if (!ok())
    return true;
  // Nothing arrived: as alive as can be told without asking. A notice or a
  // parameter status is read and the session stays OK. A server ending the
  // session sends an error (libpq takes it as a notice while idle) and then
  // closes: the end of the stream, read by a later call, turns it bad.
  for (int reads = 0; reads < 4; ++reads) {
    pollfd p{PQsocket(conn_.get()), POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0)
      return false;
    if (PQconsumeInput(conn_.get()) != 1 || !ok())
      return true;
  }
  return false;
}

result connection::check(PGresult* r, std::string_view what) {
  result res{r}; // owns r from here on, also when we throw
  if (r != nullptr) {
    switch (PQresultStatus(r)) {
      case PGRES_COMMAND_OK:
      case PGRES_TUPLES_OK:
      case PGRES_SINGLE_TUPLE:
      case PGRES_EMPTY_QUERY:
        return res;
      default:
        break;
    }
  }
  throw make_error(conn_.get(), r, what);
}

namespace {

PGconn* require(PGconn* c, std::string_view what) {
  if (c == nullptr) {
    error e{std::string{what} + ": no connection (moved from)"};
    e.set_connection_lost(true);
    throw e;
  }
  return c;
}

/// A short form of a SQL text for error messages.
std::string sql_head(const std::string& sql) {
  constexpr size_t max_len = 60;
  std::string s;
  for (char ch : sql) {
    if (s.size() >= max_len) {
      s += "...";
      break;
    }
    bool space = ch == '\n' || ch == '\t' || ch == '\r' || ch == ' ';
    if (space && (s.empty() || s.back() == ' '))
      continue;
    s += space ? ' ' : ch;
  }
  return s;
}

} // namespace

result connection::exec(const std::string& sql) {
  auto* c = require(conn_.get(), "exec");
  return check(PQexec(c, sql.c_str()), "query '" + sql_head(sql) + "'");
}

result connection::exec_params(const std::string& sql,
                               const std::vector<std::optional<std::string>>& params) {
  auto* c = require(conn_.get(), "exec_params");
  auto n = param_count(params);
  auto values = param_values(params);
  return check(PQexecParams(c, sql.c_str(), n, nullptr, values.data(), nullptr, nullptr, 0),
               "query '" + sql_head(sql) + "'");
}

void connection::prepare(const std::string& name, const std::string& sql) {
  auto* c = require(conn_.get(), "prepare");
  if (auto i = prepared_.find(name); i != prepared_.end()) {
    if (i->second == sql)
      return; // prepared before on this connection
    throw error("prepare " + name + ": already prepared with a different text");
  }
  check(PQprepare(c, name.c_str(), sql.c_str(), 0, nullptr), "prepare " + name);
  prepared_.emplace(name, sql);
}

result connection::exec_prepared(const std::string& name,
                                 const std::vector<std::optional<std::string>>& params) {
  auto* c = require(conn_.get(), "exec_prepared");
  auto n = param_count(params);
  auto values = param_values(params);
  return check(PQexecPrepared(c, name.c_str(), n, values.data(), nullptr, nullptr, 0),
               "statement " + name);
}

result connection::describe_prepared(const std::string& name) {
  auto* c = require(conn_.get(), "describe_prepared");
  return check(PQdescribePrepared(c, name.c_str()), "describe " + name);
}

void connection::deallocate(const std::string& name) {
  if (prepared_.erase(name) == 0)
    return;
  auto* c = require(conn_.get(), "deallocate");
  std::string sql = "DEALLOCATE \"";
  for (char ch : name)
    sql += ch == '"' ? std::string{"\"\""} : std::string(1, ch);
  sql += '"';
  check(PQexec(c, sql.c_str()), "deallocate " + name);
}

void connection::prepare_again() {
  const auto texts = prepared_;
  for (const auto& [name, sql] : texts)
    deallocate(name);
  for (const auto& [name, sql] : texts)
    prepare(name, sql);
}

bool connection::is_prepared(const std::string& name) const noexcept {
  return prepared_.count(name) != 0;
}

} // namespace restcache::pg
