// SPDX-License-Identifier: Apache-2.0
// What each job of the async driver sends and how it reads the answer.

#include "db/pg_async_driver_impl.hpp"
#include "db/document_pages.hpp"
#include "persistence/pg/doc_queries.hpp"

namespace restcache::pg_async {

bool statement_sender::send(const char* stmt, std::initializer_list<const std::string*> params) {
  const char* values[4] = {};
  int n = 0;
  for (const auto* p : params)
    values[n++] = p->c_str();
  as_text_ = -1;
  for (size_t i = 0; i < states_.size(); ++i)
    if (states_[i] != statement_state::prepared && std::strcmp(texts_[i].first, stmt) == 0) {
      as_text_ = static_cast<int>(i);
      return PQsendQueryParams(conn_, texts_[i].second, n, nullptr, values, nullptr, nullptr, 0) == 1;
    }
  return PQsendQueryPrepared(conn_, stmt, n, values, nullptr, nullptr, 0) == 1;
}

namespace {

/// Calls a callback at most once and survives it throwing.
template <class Outcome>
class once_callback {
public:
  explicit once_callback(std::function<void(Outcome)> f) : f_(std::move(f)) {}
  void operator()(Outcome o) {
    if (answered_)
      return;
    answered_ = true;
    try {
      f_(std::move(o));
    } catch (const std::exception& e) {
      spdlog::error("db callback threw: {}", e.what());
    } catch (...) {
      spdlog::error("db callback threw");
    }
  }
private:
  std::function<void(Outcome)> f_;
  bool answered_ = false;
};

class document_job final : public async_job {
public:
  document_job(doc_key key, std::function<void(fetch_outcome)> done, bool ask_replay_lsn)
    : key_(key), id_(key_spelling(doc_kind_info(key.kind()).key, key)), done_(std::move(done)),
      asking_lsn_(ask_replay_lsn) {}

  bool send(statement_sender& out) override {
    if (asking_lsn_)
      return out.send(pg::replay_lsn_statement, {});
    return out.send(doc_kind_info(key_.kind()).statement.name.c_str(), {&id_});
  }

  bool on_result(pg::result r) override {
    if (asking_lsn_) {
      // A statement of its own, answered before the document's is sent.
      replay_lsn_ = pg::decode_replay_lsn(r);
      asking_lsn_ = false;
      return true;
    }
    // Encoded here, from the result's own text: the rows are never decoded
    // into strings and integers only to be written out again.
    fetch_outcome out{rc_error::not_found, nullptr};
    const auto& kind = doc_kind_info(key_.kind());
    auto body = pg::encode_result(r, kind);
    if (!body.empty()) {
      out.doc = make_doc(std::move(body), pg::result_rows(r, kind));
      out.error = rc_error::none;
    }
    out.on_standby = replay_lsn_.has_value();
    out.replay_lsn = replay_lsn_.value_or(0);
    done_(std::move(out));
    return false;
  }

  void fail(rc_error e) override { done_(fetch_outcome{e, nullptr}); }

private:
  doc_key key_;
  std::string id_;
  once_callback<fetch_outcome> done_;
  bool asking_lsn_;
  std::optional<uint64_t> replay_lsn_;
};

/// A page of a kind's documents (cache.populate): its count first when
/// asked, then the page, both with the kind's populate statements.
class page_job final : public async_job {
public:
  page_job(doc_kind kind, std::string after, int32_t limit, bool count, std::function<void(page_outcome)> done)
    : kind_(doc_kind_info(kind)), after_(std::move(after)), limit_(std::to_string(limit)), counting_(count),
      done_(std::move(done)) {}

  bool send(statement_sender& out) override {
    if (counting_)
      return out.send(kind_.populate.count.name.c_str(), {});
    return out.send(kind_.populate.statement.name.c_str(), {&after_, &limit_});
  }

  bool on_result(pg::result r) override {
    if (counting_) {
      total_ = r.int64(0, 0);
      counting_ = false;
      return true;
    }
    done_(make_page_outcome(pg::encode_page(r, kind_), total_));
    return false;
  }

  void fail(rc_error e) override { done_(page_failure(e)); }

private:
  const doc_kind_entry& kind_;
  std::string after_;
  std::string limit_;
  bool counting_;
  int64_t total_ = 0;
  once_callback<page_outcome> done_;
};

class prepare_job final : public async_job {
public:
  prepare_job(const char* name, const char* sql, std::function<void(bool)> done)
    : name_(name), sql_(sql), done_(std::move(done)) {}

  bool send(statement_sender& out) override { return PQsendPrepare(out.conn(), name_, sql_, 0, nullptr) == 1; }

  bool on_result(pg::result) override {
    done_(true);
    return false;
  }

  void fail(rc_error) override { done_(false); }

private:
  const char* name_;
  const char* sql_;
  once_callback<bool> done_;
};

} // namespace

std::unique_ptr<async_job> make_prepare_job(const char* name, const char* sql, std::function<void(bool)> done) {
  return std::make_unique<prepare_job>(name, sql, std::move(done));
}

std::unique_ptr<async_job> make_document_job(doc_key key, std::function<void(fetch_outcome)> done,
                                             bool ask_replay_lsn) {
  return std::make_unique<document_job>(key, std::move(done), ask_replay_lsn);
}

std::unique_ptr<async_job> make_page_job(doc_kind kind, std::string after, int32_t limit, bool count,
                                         std::function<void(page_outcome)> done) {
  return std::make_unique<page_job>(kind, std::move(after), limit, count, std::move(done));
}

} // namespace restcache::pg_async
