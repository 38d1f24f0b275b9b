// SPDX-License-Identifier: Apache-2.0
// The shop example's writes for restcache-freshness (examples/shop): an
// order's status, note and lines changed, a line moved to another order
// (both orders change, under its old and its new order_code), orders
// inserted with codes a path must escape, deleted and given a new code
// (its lines follow by ON UPDATE CASCADE), customers renamed and inserted,
// a status set under replica mode, and TRUNCATE of the lines or of the
// orders CASCADE reloaded without one order's rows.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <vector>

#include "messages/doc_catalogue.hpp"
#include "tools/freshness/write_generator.hpp"

namespace restcache::freshness {

namespace {

enum shop_op : size_t {
  set_status, change_qty, move_line, add_line, remove_line, insert_order, delete_order, recode_order,
  rename_customer, insert_customer, set_note, replica_status, truncate_reload
};

// Mostly updates; the writes that change keys (inserts, deletes, new
// codes) often enough to be seen in a short run; a truncate reloads whole
// tables (and drops every cached document), so it is rare.
constexpr write_op shop_ops[] = {
  {"set_status", 20},     {"change_qty", 20},     {"move_line", 15},      {"add_line", 10},
  {"remove_line", 8},     {"insert_order", 10},   {"delete_order", 6},    {"recode_order", 5},
  {"rename_customer", 10}, {"insert_customer", 4}, {"set_note", 6},       {"replica_status", 5, true},
  {"truncate_reload", 2},
};

// A truncate-and-reload rewrites every line: not on larger tables.
constexpr int64_t truncate_max_lines = 100'000;

// Endings of the codes of new orders: each needs escaping in a path, or in
// JSON, or is not ASCII.
constexpr const char* code_endings[] = {
  "", " gift wrap", "?x=1&y=2", "#7", "100%", "a+b", "\xC3\xBC-\xE2\x82\xAC", ";v=2", "back\\slash", "quo\"te",
};

constexpr const char* statuses[] = {"placed", "paid", "shipped", "delivered", "returned"};

checked_doc order_doc(const std::string& code) {
  return {"orders", code};
}
checked_doc customer_doc(const std::string& id) {
  return {"customers", id};
}

/// Sets an order's total from its lines, as the shop's own code would.
void update_total(pg::connection& c, const std::string& code) {
  c.exec_params("UPDATE shop_order SET total = (SELECT sum(qty * price) FROM shop_line WHERE order_code = $1)"
                " WHERE code = $1",
                {code});
}

class shop_writes final : public write_generator {
public:
  std::span<const write_op> ops() const override { return shop_ops; }

  void load(database& db) override {
    auto orders = db.run([](pg::connection& c) { return c.exec("SELECT code FROM shop_order ORDER BY code"); });
    auto customers = db.run([](pg::connection& c) { return c.exec("SELECT id FROM shop_customer ORDER BY id"); });
    std::lock_guard lock{codes_mutex_};
    codes_.clear();
    for (int i = 0; i < orders.rows(); ++i)
      codes_.emplace_back(orders.text(i, 0));
    customers_.clear();
    for (int i = 0; i < customers.rows(); ++i)
      customers_.emplace_back(customers.text(i, 0));
  }

  std::optional<std::string> not_ready() const override {
    if (find_doc_kind("orders") == nullptr || find_doc_kind("customers") == nullptr)
      return "the shop's writes check its kinds orders and customers (--documents examples/shop/shop.toml)";
    if (codes_.size() < 10 || customers_.empty())
      return "the database has " + std::to_string(codes_.size()) + " orders and "
             + std::to_string(customers_.size()) + " customers; run shop_load first";
    return std::nullopt;
  }

  std::string describe() const override {
    return std::to_string(codes_.size()) + " orders, " + std::to_string(customers_.size()) + " customers";
  }

  std::optional<planned_write> plan(size_t op, database& db, std::mt19937_64& rng) override;

  std::string read_target(std::mt19937_64& rng) const override {
    std::lock_guard lock{codes_mutex_};
    if (codes_.empty())
      return "/ready";
    return order_doc(codes_[std::uniform_int_distribution<size_t>{0, codes_.size() - 1}(rng)]).target();
  }

private:
  template <class T>
  static const T& pick(const std::vector<T>& from, std::mt19937_64& rng) {
    return from[std::uniform_int_distribution<size_t>{0, from.size() - 1}(rng)];
  }
  std::string random_order(std::mt19937_64& rng) const {
    std::lock_guard lock{codes_mutex_};
    return pick(codes_, rng);
  }
  /// A line of `code`, or nullopt when it has none.
  static std::optional<int64_t> random_line(database& db, const std::string& code, std::mt19937_64& rng) {
    auto r = db.run([&](pg::connection& c) {
      return c.exec_params("SELECT line_no FROM shop_line WHERE order_code = $1 ORDER BY line_no", {code});
    });
    if (r.rows() == 0)
      return std::nullopt;
    return r.int64(std::uniform_int_distribution<int>{0, r.rows() - 1}(rng), 0);
  }
  std::string new_code(std::mt19937_64& rng) {
    auto n = ++made_codes_;
    char digits[16];
    std::snprintf(digits, sizeof digits, "%06llu", static_cast<unsigned long long>(n));
    return std::string{"SO/fresh/"} + digits + "-" + std::to_string(rng() % 1000)
           + code_endings[n % std::size(code_endings)];
  }
  std::string new_uuid(std::mt19937_64& rng) const {
    static constexpr char hex[] = "0123456789abcdef";
    std::string id;
    for (int i = 0; i < 32; ++i) {
      if (i == 8 || i == 12 || i == 16 || i == 20)
        id += '-';
      id += hex[rng() % 16];
    }
    return id;
  }
  void add_code(const std::string& code) {
    std::lock_guard lock{codes_mutex_};
    codes_.push_back(code);
  }
  void remove_code(const std::string& code) {
    std::lock_guard lock{codes_mutex_};
    codes_.erase(std::remove(codes_.begin(), codes_.end(), code), codes_.end());
  }

  mutable std::mutex codes_mutex_; ///< the readers pick from codes_ too
  std::vector<std::string> codes_;
  std::vector<std::string> customers_;
  uint64_t made_codes_ = 0;
};

std::optional<planned_write> shop_writes::plan(size_t op, database& db, std::mt19937_64& rng) {
  planned_write w;
  w.op = op;
  if (codes_.size() < 10)
    return std::nullopt; // keep some orders around
  switch (shop_op(op)) {
    case set_status:
    case replica_status: {
      auto code = random_order(rng);
      std::string status = statuses[rng() % std::size(statuses)];
      w.docs = {order_doc(code)};
      w.statements = [=](pg::connection& c) {
        c.exec_params("UPDATE shop_order SET status = $2 WHERE code = $1", {code, status});
      };
      break;
    }
    case change_qty: {
      auto code = random_order(rng);
      auto line = random_line(db, code, rng);
      if (!line)
        return std::nullopt;
      auto qty = std::uniform_int_distribution<int>{1, 9}(rng);
      w.docs = {order_doc(code)};
      w.statements = [=](pg::connection& c) {
        c.exec_params("UPDATE shop_line SET qty = $3 WHERE order_code = $1 AND line_no = $2",
                      {code, param(*line), param(qty)});
        update_total(c, code);
      };
      break;
    }
    case move_line: {
      auto from = random_order(rng);
      auto line = random_line(db, from, rng);
      auto to = random_order(rng);
      if (!line || to == from)
        return std::nullopt;
      w.docs = {order_doc(from), order_doc(to)};
      w.statements = [=](pg::connection& c) {
        c.exec_params("UPDATE shop_line SET order_code = $3,"
                      " line_no = (SELECT COALESCE(max(line_no), 0) + 1 FROM shop_line WHERE order_code = $3)"
                      " WHERE order_code = $1 AND line_no = $2",
                      {from, param(*line), to});
        update_total(c, from);
        update_total(c, to);
      };
      break;
    }
    case add_line: {
      auto code = random_order(rng);
      auto sku = "SKU-" + std::to_string(rng() % 500);
      w.docs = {order_doc(code)};
      w.statements = [=](pg::connection& c) {
        c.exec_params("INSERT INTO shop_line SELECT $1, COALESCE(max(line_no), 0) + 1, $2, 1, 9.99"
                      " FROM shop_line WHERE order_code = $1",
                      {code, sku});
        update_total(c, code);
      };
      break;
    }
    case remove_line: {
      auto code = random_order(rng);
      auto line = random_line(db, code, rng);
      if (!line)
        return std::nullopt;
      w.docs = {order_doc(code)};
      w.statements = [=](pg::connection& c) {
        c.exec_params("DELETE FROM shop_line WHERE order_code = $1 AND line_no = $2", {code, param(*line)});
        update_total(c, code);
      };
      break;
    }
    case insert_order: {
      auto code = new_code(rng);
      auto customer = pick(customers_, rng);
      int lines = std::uniform_int_distribution<int>{0, 3}(rng);
      w.docs = {order_doc(code)};
      w.statements = [=](pg::connection& c) {
        c.exec_params("INSERT INTO shop_order (code, customer_id, placed, status) VALUES ($1, $2::uuid, now(), 'placed')",
                      {code, customer});
        for (int l = 1; l <= lines; ++l)
          c.exec_params("INSERT INTO shop_line VALUES ($1, $2::int, $3, $2::int, 4.50)",
                        {code, param(l), "SKU-NEW-" + param(l)});
        update_total(c, code);
      };
      w.committed = [this, code] { add_code(code); };
      break;
    }
    case delete_order: {
      auto code = random_order(rng);
      w.docs = {order_doc(code)};
      w.statements = [=](pg::connection& c) { c.exec_params("DELETE FROM shop_order WHERE code = $1", {code}); };
      w.committed = [this, code] { remove_code(code); };
      break;
    }
    case recode_order: {
      auto code = random_order(rng);
      auto renamed = new_code(rng);
      w.docs = {order_doc(code), order_doc(renamed)};
      w.statements = [=](pg::connection& c) {
        c.exec_params("UPDATE shop_order SET code = $2 WHERE code = $1", {code, renamed});
      };
      w.committed = [this, code, renamed] {
        remove_code(code);
        add_code(renamed);
      };
      break;
    }
    case rename_customer: {
      auto id = pick(customers_, rng);
      auto name = "Customer \"" + std::to_string(rng() % 100'000) + "\" Renamed";
      w.docs = {customer_doc(id)};
      w.statements = [=](pg::connection& c) {
        c.exec_params("UPDATE shop_customer SET name = $2 WHERE id = $1::uuid", {id, name});
      };
      break;
    }
    case insert_customer: {
      auto id = new_uuid(rng);
      w.docs = {customer_doc(id)};
      w.statements = [=](pg::connection& c) {
        c.exec_params("INSERT INTO shop_customer VALUES ($1::uuid, 'New Customer', NULL, current_date)", {id});
      };
      w.committed = [this, id] { customers_.push_back(id); };
      break;
    }
    case set_note: {
      auto code = random_order(rng);
      auto n = rng() % 3;
      std::optional<std::string> note;
      if (n == 1)
        note = R"({"gift": false, "message": "Ring \"twice\"", "n": )" + std::to_string(rng() % 1000) + "}";
      else if (n == 2)
        note = R"(["fragile", {"floor": )" + std::to_string(rng() % 20) + "}]";
      w.docs = {order_doc(code)};
      w.statements = [=](pg::connection& c) {
        c.exec_params("UPDATE shop_order SET note = $2::jsonb WHERE code = $1", {code, note});
      };
      break;
    }
    case truncate_reload: {
      auto n = db.run([](pg::connection& c) { return c.exec("SELECT count(*) FROM shop_line").int64(0, 0); });
      if (n > truncate_max_lines)
        return std::nullopt;
      auto code = random_order(rng);
      w.docs = {order_doc(code)};
      if (std::uniform_int_distribution<int>{0, 1}(rng) == 0) {
        // TRUNCATE the lines, reloaded without the order's: only the
        // TRUNCATE names that order (the reload's inserts name the others).
        w.statements = [=](pg::connection& c) {
          c.exec_params("CREATE TEMP TABLE keep_line ON COMMIT DROP AS"
                        " SELECT * FROM shop_line WHERE order_code <> $1",
                        {code});
          c.exec("TRUNCATE shop_line");
          c.exec("INSERT INTO shop_line SELECT * FROM keep_line");
          update_total(c, code);
        };
        break;
      }
      // TRUNCATE the orders CASCADE (their lines too), reloaded without the order.
      w.statements = [=](pg::connection& c) {
        c.exec_params("CREATE TEMP TABLE keep_order ON COMMIT DROP AS SELECT * FROM shop_order WHERE code <> $1",
                      {code});
        c.exec_params("CREATE TEMP TABLE keep_line ON COMMIT DROP AS"
                      " SELECT * FROM shop_line WHERE order_code <> $1",
                      {code});
        c.exec("TRUNCATE shop_order CASCADE");
        c.exec("INSERT INTO shop_order SELECT * FROM keep_order");
        c.exec("INSERT INTO shop_line SELECT * FROM keep_line");
      };
      w.committed = [this, code] { remove_code(code); };
      break;
    }
  }
  return w;
}

} // namespace

std::unique_ptr<write_generator> make_shop_writes() {
  return std::make_unique<shop_writes>();
}

} // namespace restcache::freshness
