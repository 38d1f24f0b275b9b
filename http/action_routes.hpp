// SPDX-License-Identifier: Apache-2.0
#pragma once

// The paths a module above the engine serves beside the catalogue's
// documents: writes, lists, a document the server picks. Declared as data: the router matches them and builds their
// Allow, /metrics labels them, the request handler checks the write token
// and the body's media type; what each one does is a handler the gateway
// runs. No Beast, no CAF.

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "messages/doc_key.hpp"
#include "messages/errors.hpp"

namespace restcache::http {

/// The methods an action answers: GET answers HEAD too.
enum class action_method : uint8_t { get, post, put, del };
inline constexpr size_t action_method_count = 4;

/// One method at one path, as its module declares it.
struct action_route {
  action_method method = action_method::get;
  /// The path itself, or with `keyed` the prefix that a positive int4 key
  /// follows ("/orders/" of "/orders/7").
  std::string path;
  bool keyed = false;
  bool writes = false;     ///< needs the write token (or, without one, an allowed Host)
  bool takes_body = false; ///< a write whose request carries a JSON body
  /// Checks the query string when routing: empty when the action can take
  /// it, else the 400's detail (static text). Null: the query is ignored.
  std::string_view (*check_query)(std::string_view query) = nullptr;
  std::string label; ///< its /metrics route label ("/orders/{id}")
  /// Its place in the installed table (install_action_routes gives it).
  uint8_t id = 0;
  /// Its /metrics route among the actions': one per method and label, so
  /// two paths of one label (PUT /orders and PUT /orders/{id}) count as one.
  uint8_t metric = 0;
};

/// Every route at one path, for matching and the Allow header.
struct action_path {
  std::string path;
  bool keyed = false;
  /// The route of each action_method at this path; -1: none.
  std::array<int8_t, action_method_count> route_of{-1, -1, -1, -1};
  std::string allow;          ///< Allow when the path is the actions' alone
  std::string allow_with_get; ///< Allow when a document kind's GET shares it
};

/// A path of the table as the router scans it: its text, and where it is.
struct action_path_ref {
  std::string_view path; ///< into paths[at].path
  uint8_t at = 0;
};

/// The installed routes.
struct action_table {
  std::vector<action_route> routes; ///< by id
  std::vector<action_path> paths;   ///< each path once, in order of declaration
  /// The exact paths and the keyed ones apart, each a view: the router scans
  /// them on every request (a document's GET too), so no string is asked
  /// for its size and data and no path of the other sort is looked at.
  std::vector<action_path_ref> exact_paths, keyed_paths;
  /// The method and label of each metric route (action_route::metric).
  std::vector<std::pair<std::string, std::string>> metric_labels;
};

/// At most this many metric routes of actions (the per-thread counters are
/// sized by it).
inline constexpr size_t max_action_metrics = 16;

/// Installs the routes in place of any installed before (ids in order from
/// 0; every table installed is kept until exit, so what a router read stays
/// valid). Throws std::invalid_argument for a path that is not '/'-led and
/// made of path characters, a keyed path not ending in '/', a method
/// declared twice at one path, or more routes or labels than fit.
void install_action_routes(std::vector<action_route> routes);

namespace detail {
extern std::atomic<const action_table*> installed_actions;
}

/// The installed routes (an empty table before any install).
inline const action_table& action_routes() noexcept {
  static const action_table none;
  auto* t = detail::installed_actions.load(std::memory_order_acquire);
  return t ? *t : none;
}

/// What an action is asked, from the request. Views into the request: they
/// live until its answer is written.
struct action_call {
  int64_t id = 0;                      ///< a keyed route's key, else 0
  std::string_view query;              ///< the query string (without '?')
  std::string_view body;               ///< takes_body: the JSON body
  std::optional<std::string> if_match; ///< If-Match with gzip ETags taken back to the document's
};

/// What an action answers: a problem, a document to look up, or a body.
struct action_answer {
  rc_error error = rc_error::none; ///< a problem when not none (detail: what was wrong)
  std::string detail;
  /// Answer the document of this key as a GET of it would be answered.
  std::optional<doc_key> document;
  /// document: a key whose document is gone meanwhile is not answered 404;
  /// the action is asked again (a few times).
  bool ask_again_if_missing = false;
  unsigned status = 200;  ///< a body's status (204: no body)
  std::string body;       ///< JSON
  std::string location;   ///< Location, when not empty
  bool compressible = false; ///< a read's body: gzip when accepted, Vary: Accept-Encoding
  /// A write: false when this instance's own invalidation was not confirmed
  /// in time (the write is committed; the notification will still apply it).
  bool applied = true;
};
using action_callback = std::function<void(action_answer)>;

/// How an action starts: answered at once (no work), or work that answers
/// through its callback exactly once, later, on another thread.
struct action_start {
  action_answer answer;
  std::function<void(action_callback)> work;
};

/// A route's handler: reads the call (views valid only during the call) and
/// says how it starts. Called on an io thread: it must not block.
using action_handler = std::function<action_start(const action_call&)>;

} // namespace restcache::http
