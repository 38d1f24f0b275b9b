// SPDX-License-Identifier: Apache-2.0
#pragma once

// The change-log keys of a change decoded from the WAL (pgoutput.hpp), as
// restcache's row trigger would have logged them: for each key space a
// watched table's column gives, "<space>:<the column's text>" of the new row
// (INSERT), of the old row (DELETE), or of the old row and, where it
// differs, of the new (UPDATE); "*:<schema>.<table>" for a TRUNCATE, or for
// a change whose key column the table no longer has (the trigger's
// table-wide entry). A partition's or inheriting table's changes come under
// its own name (publish_via_partition_root is off, so that a TRUNCATE of one
// partition is sent): each is mapped to the watched table it belongs to.
//
// What the WAL does not carry: an UPDATE or DELETE carries its old row
// whole only under REPLICA IDENTITY FULL, else at most the identity's
// columns (the primary key). An old key from any other column (an employee
// moved to another department: its old department) is reported as unknown,
// by key space, with the row itself (its identity, under each name the
// kinds' reads give the table) for the documents that know their rows
// (table_read::row_columns) to be found by.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "persistence/pg/pgoutput.hpp"

namespace restcache::pg {

/// A watched table and the key spaces its columns give.
struct watched_keys {
  std::string schema; ///< as the catalog spells it, unquoted
  std::string table;
  struct key {
    std::string space;
    std::string column;
  };
  std::vector<key> keys;
  /// A name the kinds' reads give the table (one table may be named two
  /// ways), with the kinds reading it so and those of them whose
  /// documents know their rows of it (watched_table).
  struct name {
    std::string as_read;
    uint64_t kinds = 0;
    uint64_t row_kinds = 0;
  };
  std::vector<name> names;
  /// Its replica identity's columns in its own column order (a partition
  /// may order them otherwise): a changed row's identity is read in this
  /// order. Empty: the identity's columns in each table's order.
  std::vector<std::string> identity;
};

/// A changed row, as the documents holding it know it (row_key()).
struct wal_changed_row {
  std::string row;
  uint64_t kinds = 0; ///< the kinds whose documents know their rows of the table under this name
};

/// What one decoded change names.
struct wal_change_keys {
  std::vector<std::string> keys;        ///< "<space>:<key>" and "*:<schema>.<table>", each once
  std::vector<std::string> unknown_old; ///< key spaces whose old key the change did not carry
  bool watched = false;                 ///< the table is watched (or part of one)
  /// With an unknown old key: the row, under each name the table is read
  /// by (empty when its identity could not be read: a TOASTed key left
  /// unchanged).
  std::vector<wal_changed_row> rows;
  uint64_t reading_kinds = 0; ///< the kinds that read the table (any name)
};

class wal_key_mapper {
public:
  explicit wal_key_mapper(std::vector<watched_keys> watched);

  /// A partition or inheriting table ("schema", "table") whose rows are
  /// read through the watched table `root_schema`.`root_table`.
  void map_descendant(const std::string& schema, const std::string& table, const std::string& root_schema,
                      const std::string& root_table);

  /// Whether the table ("schema", "table") is watched or mapped to one.
  bool knows(const std::string& schema, const std::string& table) const {
    return by_name_.count(schema + "." + table) != 0;
  }

  /// A table's shape, as each Relation message gives it: later changes are
  /// read by its columns' positions.
  void learn(const pgoutput::relation& r);

  wal_change_keys keys_of(const pgoutput::insert& m) const;
  wal_change_keys keys_of(const pgoutput::update& m) const;
  wal_change_keys keys_of(const pgoutput::remove& m) const;
  wal_change_keys keys_of(const pgoutput::truncate& m) const;

private:
  /// A table as its Relation message described it, with its watched keys
  /// resolved to column positions (-1: the table has no such column).
  struct shape {
    std::string qualified; ///< "<schema>.<table>", quoted as the triggers write it
    size_t watched = 0;    ///< its watched_ entry
    std::vector<int> identity; ///< the replica identity's columns, by position
    struct key {
      std::string space;
      int column = -1;
      bool identity = false;     ///< part of the replica identity: carried in a 'K' old row
      bool drop_blanks = false;  ///< char(n): its ::text drops trailing blanks
    };
    std::vector<key> keys;
  };

  std::map<std::string, size_t> by_name_; ///< "schema.table" of a watched table or descendant -> its watched_
  std::vector<watched_keys> watched_;
  std::map<uint32_t, shape> shapes_;                   ///< by relation oid

  const shape* shape_of(uint32_t relation) const;
  /// The keys of a change to `relation` whose rows have `row_size` columns:
  /// `f(key, position, out)` for each watched key its table has, the whole
  /// table for one it does not.
  template <class F>
  wal_change_keys each_key(uint32_t relation, size_t row_size, F&& f) const;
  /// Names the row `values` (a change's old key row or new row) holds
  /// the identity of in out.rows, when out has an unknown old key.
  void name_row(const shape& s, const std::vector<pgoutput::value>& values, wal_change_keys& out) const;
};

} // namespace restcache::pg
