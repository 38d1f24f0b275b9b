// SPDX-License-Identifier: Apache-2.0
#include "persistence/lmdb/store.hpp"

#include <sys/statvfs.h>

#include <algorithm>
#include <random>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include "messages/doc_catalogue.hpp"
#include "messages/text.hpp"

namespace restcache::lmdb {

namespace {

std::string_view view(const key_bytes& k) {
  return k.view();
}

// Cursor RAII, local to this file.
struct cursor {
  MDB_cursor* c = nullptr;
  cursor(MDB_txn* txn, MDB_dbi dbi) { check(mdb_cursor_open(txn, dbi, &c), "mdb_cursor_open"); }
  ~cursor() { mdb_cursor_close(c); }
  cursor(const cursor&) = delete;
  cursor& operator=(const cursor&) = delete;
};

std::optional<uint64_t> get_meta_u64(MDB_txn* txn, MDB_dbi meta, std::string_view key) {
  MDB_val k = to_val(key), v;
  int rc = mdb_get(txn, meta, &k, &v);
  if (rc == MDB_NOTFOUND)
    return std::nullopt;
  check(rc, "mdb_get(meta)");
  return decode_u64(to_view(v));
}

void put_meta_u64(MDB_txn* txn, MDB_dbi meta, std::string_view key, uint64_t value) {
  auto b = encode_u64(value);
  MDB_val k = to_val(key), v = to_val({b.data(), b.size()});
  check(mdb_put(txn, meta, &k, &v, 0), "mdb_put(meta)");
}

/// A text meta value; empty deletes it.
void put_meta_text(MDB_txn* txn, MDB_dbi meta, std::string_view key, const std::string& value) {
  MDB_val k = to_val(key);
  if (value.empty()) {
    int rc = mdb_del(txn, meta, &k, nullptr);
    if (rc != MDB_NOTFOUND)
      check(rc, "mdb_del(meta)");
    return;
  }
  MDB_val v = to_val(value);
  check(mdb_put(txn, meta, &k, &v, 0), "mdb_put(meta)");
}

std::string get_meta_text(MDB_txn* txn, MDB_dbi meta, std::string_view key) {
  MDB_val k = to_val(key), v;
  int rc = mdb_get(txn, meta, &k, &v);
  if (rc == MDB_NOTFOUND)
    return {};
  check(rc, "mdb_get(meta)");
  return std::string{to_view(v)};
}

/// The watermark with its position and witness, always together: a position
/// or witness left from an older watermark would mislead a replay.
void put_watermark(MDB_txn* txn, MDB_dbi meta, const replay_watermark& w) {
  put_meta_u64(txn, meta, meta_key::watermark, w.xmin);
  put_meta_text(txn, meta, meta_key::watermark_position, w.position);
  put_meta_text(txn, meta, meta_key::watermark_witness, w.witness);
  put_meta_text(txn, meta, meta_key::watermark_catalog, w.catalog);
}

uint64_t pages_of(MDB_txn* txn, MDB_dbi dbi) {
  MDB_stat st;
  check(mdb_stat(txn, dbi, &st), "mdb_stat");
  return st.ms_branch_pages + st.ms_leaf_pages + st.ms_overflow_pages;
}

} // namespace

store::store(const env_options& opts) : env_(opts), budget_pages_(env_.map_size() / env_.page_size()) {
  reconcile_kinds();
}

void store::reconcile_kinds() {
  std::vector<registered_kind> now;
  for (const auto& e : doc_catalogue())
    now.push_back({static_cast<uint8_t>(e.kind), kind_fingerprint(e), e.name});
  std::optional<std::vector<registered_kind>> was;
  {
    read_txn txn(env_);
    MDB_val k = to_val(meta_key::kinds), v;
    int rc = mdb_get(txn.handle(), env_.meta(), &k, &v);
    if (rc == MDB_SUCCESS)
      was = decode_kind_registry(to_view(v));
    else if (rc != MDB_NOTFOUND)
      check(rc, "mdb_get(kinds)");
  }
  if (was && *was == now)
    return;
  // Drop each kind id whose records another kind, or another statement or
  // plan of the same kind, wrote; without a readable registry, every kind.
  uint64_t drop = 0;
  std::vector<std::string> names;
  auto same = [&](const registered_kind& r) {
    return std::find(now.begin(), now.end(), r) != now.end();
  };
  if (was) {
    for (const auto& r : *was)
      if (r.id > 0 && r.id <= max_kinds && !same(r)) {
        drop |= uint64_t{1} << r.id;
        names.push_back(r.name);
      }
    for (const auto& n : now) // no record of an id the file never registered should exist
      if (std::none_of(was->begin(), was->end(), [&](const registered_kind& r) { return r.id == n.id; }))
        drop |= uint64_t{1} << n.id;
  } else {
    drop = ~uint64_t{1};
  }
  if (drop != 0 && count() > 0)
    erase_kinds(drop);
  dropped_kinds_ = join(names, ", ");
  write_txn txn(env_);
  auto b = encode_kind_registry(now);
  MDB_val k = to_val(meta_key::kinds), v = to_val(b);
  check(mdb_put(txn.handle(), env_.meta(), &k, &v, 0), "mdb_put(kinds)");
  txn.commit();
}

std::optional<stored_record> store::get(read_txn& txn, doc_key key) const {
  auto kb = encode_key(key);
  MDB_val k = to_val(view(kb)), v;
  int rc = mdb_get(txn.handle(), env_.records(), &k, &v);
  if (rc == MDB_NOTFOUND)
    return std::nullopt;
  check(rc, "mdb_get(records)");
  value_view val;
  if (decode_value(to_view(v), val) != decode_error::none) {
    garbled_.fetch_add(1, std::memory_order_relaxed);
    return std::nullopt;
  }
  // Copy out: the map's bytes are only valid while the snapshot lives.
  std::vector<std::string> rows;
  each_row(val.rows, [&](std::string_view row) { rows.emplace_back(row); });
  auto doc = std::make_shared<const cached_doc>(std::string(val.body), std::string(val.etag), std::move(rows));
  return stored_record{std::move(doc), val.seq};
}

scan_totals store::for_each(read_txn& txn,
                            const std::function<void(doc_key, const value_view&)>& visit) const {
  scan_totals totals;
  cursor c(txn.handle(), env_.records());
  MDB_val k, v;
  for (int rc = mdb_cursor_get(c.c, &k, &v, MDB_FIRST); rc != MDB_NOTFOUND;
       rc = mdb_cursor_get(c.c, &k, &v, MDB_NEXT)) {
    check(rc, "mdb_cursor_get(records)");
    auto key = decode_key(to_view(k));
    if (!key) {
      ++totals.bad_keys;
      continue;
    }
    value_view val;
    if (decode_value(to_view(v), val) != decode_error::none) {
      ++totals.garbled;
      continue;
    }
    ++totals.whole;
    if (visit)
      visit(*key, val);
  }
  return totals;
}

void store::remove_key(MDB_txn* txn, const key_bytes& kb) {
  MDB_val k = to_val(view(kb)), v;
  int rc = mdb_get(txn, env_.records(), &k, &v);
  if (rc == MDB_NOTFOUND)
    return;
  check(rc, "mdb_get(records)");
  // A garbled value has no readable write_seq: its write_order entry stays an
  // orphan that eviction recognises (the record no longer points back) and drops.
  if (auto val = decode_value(to_view(v))) {
    auto ws = encode_u64(val->write_seq);
    MDB_val wk = to_val({ws.data(), ws.size()});
    rc = mdb_del(txn, env_.write_order(), &wk, nullptr);
    if (rc != MDB_NOTFOUND)
      check(rc, "mdb_del(write_order)");
    remove_rows(txn, val->rows, view(kb));
  }
  check(mdb_del(txn, env_.records(), &k, nullptr), "mdb_del(records)");
}

namespace {

/// A rows key: the row's hash, then the records key.
std::string rows_key(std::string_view row, std::string_view records_key) {
  auto h = row_hash(row);
  std::string out(h.data(), h.size());
  out.append(records_key);
  return out;
}

} // namespace

void store::remove_rows(MDB_txn* txn, std::string_view rows, std::string_view records_key) {
  each_row(rows, [&](std::string_view row) {
    auto rk = rows_key(row, records_key);
    MDB_val k = to_val(rk);
    int rc = mdb_del(txn, env_.rows(), &k, nullptr);
    if (rc != MDB_NOTFOUND)
      check(rc, "mdb_del(rows)");
  });
}

void store::remove_holders(MDB_txn* txn, const std::vector<std::string>& rows) {
  std::vector<std::string> holders;
  for (const auto& row : rows) {
    auto h = row_hash(row);
    std::string_view prefix{h.data(), h.size()};
    cursor c(txn, env_.rows());
    MDB_val k = to_val(prefix), v;
    for (int rc = mdb_cursor_get(c.c, &k, &v, MDB_SET_RANGE); rc != MDB_NOTFOUND;
         rc = mdb_cursor_get(c.c, &k, &v, MDB_NEXT)) {
      check(rc, "mdb_cursor_get(rows)");
      auto key = to_view(k);
      if (!key.starts_with(prefix))
        break;
      holders.emplace_back(key.substr(prefix.size()));
    }
  }
  for (const auto& h : holders)
    if (auto kb = key_bytes::of(h))
      remove_key(txn, *kb); // its rows entries with it
}

void store::apply(MDB_txn* txn, const std::vector<record>& records, const std::vector<doc_key>& deletes,
                  const std::vector<std::string>& changed_rows, std::optional<replay_watermark> watermark) {
  for (const auto& key : deletes)
    remove_key(txn, encode_key(key));
  remove_holders(txn, changed_rows);
  if (!records.empty()) {
    // The next write sequence: from meta, but never at or below the last
    // write_order key (MDB_APPEND below relies on increasing keys).
    uint64_t next = get_meta_u64(txn, env_.meta(), meta_key::next_write_seq).value_or(1);
    {
      cursor c(txn, env_.write_order());
      MDB_val k, v;
      int rc = mdb_cursor_get(c.c, &k, &v, MDB_LAST);
      if (rc == MDB_SUCCESS)
        next = std::max(next, decode_u64(to_view(k)).value_or(0) + 1);
      else if (rc != MDB_NOTFOUND)
        check(rc, "mdb_cursor_get(write_order last)");
    }
    for (const auto& r : records) {
      if (!r.doc)
        continue;
      auto kb = encode_key(r.key);
      remove_key(txn, kb); // a replace drops the old write_order entry
      uint64_t wseq = next++;
      MDB_val k = to_val(view(kb));
      MDB_val v{encoded_value_size(r.doc->etag, r.doc->body, r.doc->rows), nullptr};
      // MDB_RESERVE: encode straight into the page, no temporary string.
      check(mdb_put(txn, env_.records(), &k, &v, MDB_RESERVE), "mdb_put(records)");
      encode_value_to(static_cast<char*>(v.mv_data), r.seq, wseq, r.doc->etag, r.doc->body, r.doc->rows);
      for (const auto& row : r.doc->rows) {
        auto rk = rows_key(row, view(kb));
        MDB_val rkv = to_val(rk), empty{0, nullptr};
        check(mdb_put(txn, env_.rows(), &rkv, &empty, 0), "mdb_put(rows)");
      }
      auto ws = encode_u64(wseq);
      MDB_val wk = to_val({ws.data(), ws.size()}), wv = to_val(view(kb));
      // Sequences only grow: appending fills write_order's pages completely.
      check(mdb_put(txn, env_.write_order(), &wk, &wv, MDB_APPEND), "mdb_put(write_order)");
    }
    put_meta_u64(txn, env_.meta(), meta_key::next_write_seq, next);
  }
  if (watermark)
    put_watermark(txn, env_.meta(), *watermark);
}

uint64_t store::used_pages(MDB_txn* txn) const {
  // The write txn's own view (its uncommitted changes included). The main DB
  // holds the three named roots; + 2 meta pages. Free pages are not counted:
  // they are reused, and the 10% above high_water is their headroom.
  return pages_of(txn, env_.records()) + pages_of(txn, env_.write_order()) + pages_of(txn, env_.rows())
         + pages_of(txn, env_.meta()) + pages_of(txn, env_.main_db()) + 2;
}

uint64_t store::pages_in_use() const {
  read_txn txn(env_);
  return used_pages(txn.handle());
}

uint64_t store::target_pages() const {
  uint64_t budget = budget_pages_.load(std::memory_order_relaxed);
  uint64_t high = uint64_t(double(budget) * high_water);
  uint64_t keep_free = commit_room_ + reserve_pages_;
  uint64_t target = std::min(high, budget > keep_free ? budget - keep_free : 0);
  // Keep at least a quarter of the budget usable for data whatever the room.
  return std::max(target, budget / 4);
}

store::free_list_state store::free_list() const {
  // LMDB opens no cursor on its free list (database 0) inside a write
  // transaction; a snapshot of the last commit is what is wanted anyway.
  read_txn txn(env_);
  free_list_state out;
  out.pages = pages_of(txn.handle(), 0);
  cursor c(txn.handle(), 0);
  MDB_val k, v;
  // Key: the id of the commit that freed the pages (size_t); value: an
  // array of page numbers led by their count. A few hundred entries at most.
  for (int rc = mdb_cursor_get(c.c, &k, &v, MDB_FIRST); rc != MDB_NOTFOUND;
       rc = mdb_cursor_get(c.c, &k, &v, MDB_NEXT)) {
    check(rc, "mdb_cursor_get(free list)");
    if (k.mv_size != sizeof(size_t) || v.mv_size < sizeof(size_t))
      continue;
    size_t id = 0, n = 0;
    std::memcpy(&id, k.mv_data, sizeof id);
    std::memcpy(&n, v.mv_data, sizeof n);
    out.freed += n;
    out.last_txn = id;
    out.last_freed = n;
  }
  return out;
}

uint64_t store::part_churn_pages() const {
  return std::max<uint64_t>(budget_pages_.load(std::memory_order_relaxed) / 10, 64);
}

uint64_t store::expected_churn(uint64_t pages, uint64_t records) const {
  return pages + uint64_t(churn_per_record_ * double(records)) + 1;
}

bool store::out_of_space(const error& e) const {
  if (is_out_of_space(e.code()))
    return true;
  // LMDB reports a short write of its pages as EIO ("filesystem full?"),
  // which is what a full disk gives once part of a write fits: tell the
  // two apart by the room the file system has left.
  if (e.code() != EIO)
    return false;
  struct statvfs fs_stat;
  if (::statvfs(env_.path().c_str(), &fs_stat) != 0)
    return false;
  uint64_t room = uint64_t(fs_stat.f_bavail) * fs_stat.f_frsize;
  return room < (commit_room_ + 16) * env_.page_size();
}

uint64_t store::budget_bytes() const noexcept {
  return budget_pages_.load(std::memory_order_relaxed) * env_.page_size();
}

void store::lower_budget_to_file() {
  disk_full_.fetch_add(1, std::memory_order_relaxed);
  // What the file holds is already allocated on the disk; a commit that
  // stays within it (reusing freed pages) needs no new blocks. A failed
  // commit may have grown the file part way: those pages count too.
  uint64_t held = std::max<uint64_t>(env_.file_pages(), 8);
  auto was = budget_pages_.load(std::memory_order_relaxed);
  if (held < was) {
    budget_pages_.store(held, std::memory_order_relaxed);
    notice_ = "the LMDB file's disk is full: its budget is lowered from " + std::to_string(was * env_.page_size() >> 10)
              + " KiB to the " + std::to_string(held * env_.page_size() >> 10)
              + " KiB the file holds (oldest records evicted; until the disk has room for the whole budget again)";
  }
}

void store::restore_budget_if_disk_has_room() {
  const uint64_t full = env_.map_size() / env_.page_size();
  const uint64_t was = budget_pages_.load(std::memory_order_relaxed);
  if (was >= full)
    return;
  struct statvfs fs_stat;
  if (::statvfs(env_.path().c_str(), &fs_stat) != 0)
    return;
  uint64_t room = uint64_t(fs_stat.f_bavail) * fs_stat.f_frsize / env_.page_size();
  uint64_t held = env_.file_pages();
  // The whole budget at once, and only with a tenth of it to spare: a budget
  // raised by whatever others free would creep up and fill the disk again.
  if (room < (full > held ? full - held : 0) + full / 10)
    return;
  budget_pages_.store(full, std::memory_order_relaxed);
  notice_ = "the LMDB file's disk has room again: its budget is raised from " + std::to_string(was * env_.page_size() >> 10)
            + " KiB back to " + std::to_string(full * env_.page_size() >> 10) + " KiB (lmdb.max-bytes)";
}

void store::evict_to(MDB_txn* txn, uint64_t target) {
  if (used_pages(txn) <= target)
    return;
  eviction_passes_.fetch_add(1, std::memory_order_relaxed);
  cursor c(txn, env_.write_order());
  uint64_t n = 0;
  // Oldest-written first. LMDB frees a page only when it empties or merges, so
  // the page count is re-checked after every record.
  while (used_pages(txn) > target) {
    MDB_val k, v;
    int rc = mdb_cursor_get(c.c, &k, &v, MDB_FIRST);
    if (rc == MDB_NOTFOUND)
      break;
    check(rc, "mdb_cursor_get(write_order first)");
    auto wseq = decode_u64(to_view(k));
    auto kb = key_bytes::of(to_view(v));
    check(mdb_cursor_del(c.c, 0), "mdb_cursor_del(write_order)");
    if (!kb)
      continue;
    MDB_val rk = to_val(view(*kb)), rv;
    rc = mdb_get(txn, env_.records(), &rk, &rv);
    if (rc == MDB_NOTFOUND)
      continue;
    check(rc, "mdb_get(records)");
    auto val = decode_value(to_view(rv));
    // Only the record this entry wrote (a newer write of the key has its own
    // entry); a garbled record goes too, it can never be served.
    if (!val || (wseq && val->write_seq == *wseq)) {
      if (val)
        remove_rows(txn, val->rows, view(*kb));
      check(mdb_del(txn, env_.records(), &rk, nullptr), "mdb_del(records)");
      ++n;
    }
  }
  evicted_.fetch_add(n, std::memory_order_relaxed);
}

void store::evict_in_own_txn() {
  write_txn txn(env_);
  evict_to(txn.handle(), target_pages());
  txn.commit();
}

void store::tick() {
  // LMDB reuses a page freed by transaction N only from transaction N + 2 on
  // (the previous snapshot stays intact), so after an evicting commit one more
  // small commit is needed before the freed pages can take a batch.
  write_txn txn(env_);
  auto n = get_meta_u64(txn.handle(), env_.meta(), meta_key::tick).value_or(0);
  put_meta_u64(txn.handle(), env_.meta(), meta_key::tick, n + 1);
  txn.commit();
}

void store::page_estimate::add(const record& r, uint64_t psize) {
  if (!r.doc)
    return;
  ++records;
  // A leaf node: its header (8 bytes), the key and the value; the
  // write_order entry: header, the u64 sequence, the key again as its value,
  // and its slot in the page's index.
  uint64_t key = encode_key(r.key).size();
  uint64_t size = encoded_value_size(r.doc->etag, r.doc->body) + key + 8;
  order_bytes += 8 + 8 + key + 2;
  if (size > psize / 3)
    pages += (size + psize - 1) / psize;
  else
    small_bytes += size;
}

uint64_t store::page_estimate::total(uint64_t psize) const {
  // write_order is appended, its pages full; branch pages and meta: a few.
  return pages + 2 * small_bytes / psize + order_bytes / psize + 8;
}

uint64_t store::estimate_pages(const std::vector<record>& records) const {
  // New leaf pages a batch dirties: LMDB keeps at most two values of ~1.5 KB in
  // a 4 KB page and sequential inserts leave it half full, so a value above a
  // third of a page counts as a page of its own (or its overflow pages).
  page_estimate e;
  for (const auto& r : records)
    e.add(r, env_.page_size());
  return e.total(env_.page_size());
}

void store::put_batch(const std::vector<record>& records, const std::vector<doc_key>& deletes,
                      std::optional<replay_watermark> watermark, const std::vector<std::string>& changed_rows) {
  restore_budget_if_disk_has_room();
  // A commit needs room for the pages it copies on top of the pages the one
  // before it freed (see put_part), so one transaction for a large batch would
  // evict the tier far below its budget, the batch's own older records
  // included. It is written in parts expected to copy part_churn_pages()
  // each, each part sized after the last commit is measured. The deletes and
  // the watermark go with the first part, before any record.
  const auto psize = env_.page_size();
  auto fl = measure_last_commit();
  {
    // A batch the tier has room for as it is commits whole, in one
    // transaction, whatever it copies: parts are only for making room.
    page_estimate whole;
    for (const auto& r : records)
      whole.add(r, psize);
    const uint64_t churn = expected_churn(whole.total(psize), records.size() + deletes.size());
    const uint64_t high = uint64_t(double(budget_pages_.load(std::memory_order_relaxed)) * high_water);
    if (records.size() <= 1 || churn <= part_churn_pages()
        || pages_in_use() + fl.last_freed + churn + fl.pages + 32 <= high) {
      put_part(records, deletes, changed_rows, watermark, fl);
      return;
    }
  }
  size_t next = 0;
  bool first = true;
  do {
    if (!first)
      fl = measure_last_commit();
    const uint64_t part_churn = part_churn_pages();
    const size_t part_deletes = first ? deletes.size() : 0;
    std::vector<record> part;
    page_estimate e;
    while (next < records.size()) {
      part.push_back(records[next]);
      e.add(records[next], psize);
      ++next;
      if (expected_churn(e.total(psize), part.size() + part_deletes) >= part_churn)
        break;
    }
    put_part(part, first ? deletes : std::vector<doc_key>{}, first ? changed_rows : std::vector<std::string>{},
             first ? watermark : std::nullopt, fl);
    first = false;
  } while (next < records.size());
}

store::free_list_state store::measure_last_commit() {
  auto fl = free_list();
  if (fl.last_txn != 0 && fl.last_txn == last_part_txn_ && last_part_records_ > 0) {
    // Clipped: a part that evicted much more than it put must not shrink the
    // parts that follow to a few records each.
    double measured = std::clamp(double(fl.last_freed) / double(last_part_records_), 0.5, 6.0);
    churn_per_record_ = std::max(measured, 0.9 * churn_per_record_ + 0.1 * measured);
  }
  return fl;
}

void store::put_part(const std::vector<record>& records, const std::vector<doc_key>& deletes,
                     const std::vector<std::string>& changed_rows, std::optional<replay_watermark> watermark,
                     const free_list_state& fl) {
  // LMDB reuses a page that commit N freed only from commit N + 2 on, so this
  // commit cannot use what the last one freed, and the pages it copies stay
  // allocated next to their old versions until it commits. Room is kept for
  // both. Parts are sized to copy part_churn_pages(), and so was the last
  // one: the room, and so the eviction target, stays the same from part to
  // part (a target that moved with each measurement would evict more after a
  // part that freed much, which then frees more still). Only a part larger
  // than that (one record too large for it), or one after a commit that
  // freed more, asks for more.
  const uint64_t part_churn = part_churn_pages();
  const uint64_t own_churn = expected_churn(estimate_pages(records), records.size() + deletes.size());
  commit_room_ = std::max(2 * part_churn, fl.last_freed + own_churn) + fl.pages + 32;
  bool map_full = false; // the last failed attempt's cause: the map, or else the disk
  auto attempt = [&](const std::vector<record>& recs) {
    try {
      write_txn txn(env_);
      apply(txn.handle(), recs, deletes, changed_rows, watermark);
      evict_to(txn.handle(), target_pages());
      auto id = mdb_txn_id(txn.handle());
      txn.commit();
      last_part_txn_ = id;
      last_part_records_ = recs.size() + deletes.size();
      return true;
    } catch (const error& e) {
      if (!out_of_space(e))
        throw;
      map_full = e.code() == MDB_MAP_FULL;
      if (map_full)
        map_full_retries_.fetch_add(1, std::memory_order_relaxed);
      else
        lower_budget_to_file();
      return false;
    }
  };
  if (attempt(records)) {
    // Room learned from a MAP_FULL is given back slowly.
    reserve_pages_ -= std::min(reserve_pages_, part_churn / 128 + 1);
    return;
  }
  // A reader holding an old snapshot (its thread descheduled with a read
  // open) keeps LMDB from reusing anything freed since: the free list then
  // holds what this part needs and none of it can be taken. That passes
  // when the reader moves on; wait for it, a little longer each time.
  for (int wait_ms = 1; map_full && wait_ms <= 128; wait_ms *= 2) {
    auto now = free_list();
    if (now.freed - now.last_freed < own_churn)
      break; // not pinned: the part is too large for the room
    std::this_thread::sleep_for(std::chrono::milliseconds{wait_ms});
    if (attempt(records))
      return;
  }
  // Full all the same. Keep more room for a while. The map full (this part
  // copied more pages than expected): let what the last commit freed become
  // reusable (a small commit) and write the part in two halves, each with
  // half the pages to copy. A single record, or a full disk (halves would
  // need new pages of the file as much): evict in a commit of its own and
  // retry, then clear the tier (a cache may forget everything, but must
  // apply the deletes and the watermark).
  const uint64_t budget = budget_pages_.load(std::memory_order_relaxed);
  reserve_pages_ = std::min(reserve_pages_ + part_churn / 4, budget / 4);
  if (map_full && records.size() > 1) {
    try {
      tick();
    } catch (const error& e) {
      if (!out_of_space(e))
        throw;
    }
    auto half = records.begin() + std::ptrdiff_t(records.size() / 2);
    put_part({records.begin(), half}, deletes, changed_rows, watermark, free_list());
    put_part({half, records.end()}, {}, {}, std::nullopt, free_list());
    return;
  }
  for (bool evict_only : {true, false}) {
    try {
      tick();
      if (evict_only)
        evict_in_own_txn();
      else
        clear();
      tick();
      if (attempt(records))
        return;
    } catch (const error& e) {
      if (!out_of_space(e))
        throw;
      if (e.code() != MDB_MAP_FULL)
        lower_budget_to_file();
    }
  }
  dropped_puts_.fetch_add(records.size(), std::memory_order_relaxed);
  if (!attempt({}))
    throw error("put_batch (deletes after clear)", MDB_MAP_FULL,
                "no room even for the deletes after dropping every record");
}

void store::erase(const std::vector<doc_key>& keys) {
  write_txn txn(env_);
  for (const auto& key : keys)
    remove_key(txn.handle(), encode_key(key));
  txn.commit();
}

void store::erase_kinds(uint64_t kinds) {
  // Records are keyed kind byte first: each kind is one key range.
  for (unsigned kind = 0; kind < 64; ++kind) {
    if ((kinds & (uint64_t{1} << kind)) == 0)
      continue;
    const char first = static_cast<char>(kind);
    for (size_t taken = erase_kinds_batch; taken == erase_kinds_batch;) {
      write_txn txn(env_);
      std::vector<std::string> keys;
      {
        cursor c(txn.handle(), env_.records());
        MDB_val k{1, const_cast<char*>(&first)}, v;
        for (int rc = mdb_cursor_get(c.c, &k, &v, MDB_SET_RANGE);
             rc != MDB_NOTFOUND && keys.size() < erase_kinds_batch; rc = mdb_cursor_get(c.c, &k, &v, MDB_NEXT)) {
          check(rc, "mdb_cursor_get(records)");
          if (k.mv_size == 0 || static_cast<const char*>(k.mv_data)[0] != first)
            break;
          keys.emplace_back(static_cast<const char*>(k.mv_data), k.mv_size);
        }
      }
      for (const auto& key : keys) {
        if (auto kb = key_bytes::of(key)) {
          remove_key(txn.handle(), *kb);
        } else { // malformed: no write_order entry to find
          MDB_val k = to_val(key);
          check(mdb_del(txn.handle(), env_.records(), &k, nullptr), "mdb_del(records)");
        }
      }
      txn.commit();
      taken = keys.size();
    }
  }
}

void store::clear(std::optional<replay_watermark> watermark, const std::optional<history_identity>& history) {
  write_txn txn(env_);
  // del = 0 empties the database and frees its pages, keeps the handle.
  check(mdb_drop(txn.handle(), env_.records(), 0), "mdb_drop(records)");
  check(mdb_drop(txn.handle(), env_.write_order(), 0), "mdb_drop(write_order)");
  check(mdb_drop(txn.handle(), env_.rows(), 0), "mdb_drop(rows)");
  if (watermark)
    put_watermark(txn.handle(), env_.meta(), *watermark);
  if (history) {
    auto b = encode_history(*history);
    MDB_val k = to_val(meta_key::history), v = to_val(b);
    check(mdb_put(txn.handle(), env_.meta(), &k, &v, 0), "mdb_put(history)");
  }
  txn.commit();
  cleared_.fetch_add(1, std::memory_order_relaxed);
}

uint64_t store::watermark() const {
  read_txn txn(env_);
  return get_meta_u64(txn.handle(), env_.meta(), meta_key::watermark).value_or(0);
}

std::string store::watermark_position() const {
  read_txn txn(env_);
  return get_meta_text(txn.handle(), env_.meta(), meta_key::watermark_position);
}

std::string store::watermark_witness() const {
  read_txn txn(env_);
  return get_meta_text(txn.handle(), env_.meta(), meta_key::watermark_witness);
}

std::string store::watermark_catalog() const {
  read_txn txn(env_);
  return get_meta_text(txn.handle(), env_.meta(), meta_key::watermark_catalog);
}

std::optional<history_identity> store::history() const {
  read_txn txn(env_);
  MDB_val k = to_val(meta_key::history), v;
  int rc = mdb_get(txn.handle(), env_.meta(), &k, &v);
  if (rc == MDB_NOTFOUND)
    return std::nullopt;
  check(rc, "mdb_get(history)");
  return decode_history(to_view(v));
}

std::string store::instance_id() {
  {
    read_txn txn(env_);
    auto id = get_meta_text(txn.handle(), env_.meta(), meta_key::instance_id);
    if (!id.empty())
      return id;
  }
  std::random_device rd;
  std::string id;
  for (int i = 0; i < 16; ++i)
    id += "0123456789abcdefghijklmnopqrstuvwxyz"[rd() % 36];
  write_txn txn(env_);
  // Another thread may have made one meanwhile: the first one stays.
  auto had = get_meta_text(txn.handle(), env_.meta(), meta_key::instance_id);
  if (!had.empty())
    return had;
  put_meta_text(txn.handle(), env_.meta(), meta_key::instance_id, id);
  txn.commit();
  return id;
}

size_t store::count() const {
  read_txn txn(env_);
  MDB_stat st;
  check(mdb_stat(txn.handle(), env_.records(), &st), "mdb_stat(records)");
  return st.ms_entries;
}

uint64_t store::bytes() const {
  return pages_in_use() * env_.page_size();
}

store_counters store::counters() const {
  return {evicted_.load(),      eviction_passes_.load(), map_full_retries_.load(),
          cleared_.load(),      dropped_puts_.load(),    garbled_.load(),
          disk_full_.load(),    read_errors_.load()};
}

} // namespace restcache::lmdb
