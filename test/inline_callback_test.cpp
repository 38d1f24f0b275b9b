// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE inline_callback
#include "messages/inline_callback.hpp"

#include <caf/test/dsl.hpp>

#include <memory>
#include <string>

// The reply callback's container: its target lives inline, is copied,
// moved and destroyed exactly like std::function's, and an empty one throws.

using namespace restcache;

namespace {

/// Counts its live copies through a shared counter.
struct counted {
  std::shared_ptr<int> live;
  explicit counted(std::shared_ptr<int> l) : live(std::move(l)) { ++*live; }
  counted(const counted& o) : live(o.live) { ++*live; }
  counted(counted&& o) noexcept : live(o.live) { ++*live; }
  ~counted() { --*live; }
  int operator()(int x) const { return x + *live; }
};

} // namespace

CAF_TEST(a callable is called with its arguments and returns its result) {
  int seen = 0;
  inline_callback<int(int)> f = [&seen](int x) {
    seen = x;
    return x * 2;
  };
  CAF_CHECK(static_cast<bool>(f));
  CAF_CHECK_EQUAL(f(21), 42);
  CAF_CHECK_EQUAL(seen, 21);
}

CAF_TEST(copies and moves keep one target each and destroy what they own) {
  auto live = std::make_shared<int>(0);
  {
    inline_callback<int(int)> a = counted{live};
    CAF_CHECK_EQUAL(*live, 1);
    auto b = a; // a copy: two targets
    CAF_CHECK_EQUAL(*live, 2);
    auto c = std::move(a); // moved: still two, a is empty
    CAF_CHECK_EQUAL(*live, 2);
    CAF_CHECK(!a);
    CAF_CHECK(static_cast<bool>(c));
    b = c; // assigning drops b's own target first
    CAF_CHECK_EQUAL(*live, 2);
    c = inline_callback<int(int)>{};
    CAF_CHECK_EQUAL(*live, 1);
    CAF_CHECK_EQUAL(b(0), 1);
  }
  CAF_CHECK_EQUAL(*live, 0);
}

CAF_TEST(a target with shared state survives the move into a message) {
  // What the HTTP session does: weak and shared pointers, a sequence number
  // and a member pointer in one capture, larger than std::function's 16 bytes.
  auto state = std::make_shared<std::string>("ok");
  std::weak_ptr<std::string> weak = state;
  uint64_t seq = 7;
  size_t (std::string::*size_of)() const noexcept = &std::string::size;
  inline_callback<size_t(uint64_t)> f = [weak, state, seq, size_of](uint64_t n) {
    auto s = weak.lock();
    return s ? ((*s).*size_of)() + n + seq : 0;
  };
  auto g = std::move(f);
  CAF_CHECK_EQUAL(g(1), 10u);
}

CAF_TEST(calling an empty callback throws bad_function_call) {
  inline_callback<void()> f;
  CAF_CHECK(!f);
  bool threw = false;
  try {
    f();
  } catch (const std::bad_function_call&) {
    threw = true;
  }
  CAF_CHECK(threw);
}
