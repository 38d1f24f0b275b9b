// SPDX-License-Identifier: Apache-2.0
#pragma once

// A copyable callable like std::function, but with room for its target
// inline: std::function keeps only trivially copyable targets of up to 16
// bytes in place, so the HTTP session's reply callback (a weak session
// pointer, the server's gate, a sequence number and a member pointer) cost
// a heap allocation and a free on every lookup. A target larger than
// `Capacity` does not compile, so the cost cannot come back unnoticed.

#include <cstddef>
#include <functional>
#include <new>
#include <type_traits>
#include <utility>

namespace restcache {

template <class Signature, size_t Capacity = 64>
class inline_callback;

template <class R, class... Args, size_t Capacity>
class inline_callback<R(Args...), Capacity> {
public:
  inline_callback() noexcept = default;

  template <class F, class D = std::decay_t<F>,
            class = std::enable_if_t<!std::is_same_v<D, inline_callback>
                                     && std::is_invocable_r_v<R, D&, Args...>>>
  inline_callback(F&& f) { // NOLINT: converts like std::function
    static_assert(sizeof(D) <= Capacity, "the callable does not fit: raise Capacity");
    static_assert(alignof(D) <= alignof(std::max_align_t));
    static_assert(std::is_nothrow_move_constructible_v<D>);
    ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
    ops_ = &ops_for<D>;
  }

  inline_callback(const inline_callback& other) : ops_(other.ops_) {
    if (ops_ != nullptr)
      ops_->copy(other.storage_, storage_);
  }

  inline_callback(inline_callback&& other) noexcept : ops_(other.ops_) {
    if (ops_ != nullptr) {
      ops_->move(other.storage_, storage_);
      other.reset();
    }
  }

  inline_callback& operator=(const inline_callback& other) {
    if (this != &other) {
      inline_callback copy{other};
      *this = std::move(copy);
    }
    return *this;
  }

  inline_callback& operator=(inline_callback&& other) noexcept {
    if (this != &other) {
      reset();
      if (other.ops_ != nullptr) {
        ops_ = other.ops_;
        ops_->move(other.storage_, storage_);
        other.reset();
      }
    }
    return *this;
  }

  ~inline_callback() { reset(); }

  explicit operator bool() const noexcept { return ops_ != nullptr; }

  /// Calls the target; calling an empty callback is a programming error, as
  /// with std::function (which throws bad_function_call), and throws the same.
  R operator()(Args... args) const {
    if (ops_ == nullptr)
      throw std::bad_function_call{};
    return ops_->call(const_cast<unsigned char*>(storage_), std::forward<Args>(args)...);
  }

private:
  struct ops {
    R (*call)(void*, Args&&...);
    void (*copy)(const void*, void*);
    void (*move)(void*, void*) noexcept;
    void (*destroy)(void*) noexcept;
  };

  template <class D>
  static constexpr ops ops_for{
    [](void* self, Args&&... args) -> R { return (*static_cast<D*>(self))(std::forward<Args>(args)...); },
    [](const void* from, void* to) { ::new (to) D(*static_cast<const D*>(from)); },
    [](void* from, void* to) noexcept { ::new (to) D(std::move(*static_cast<D*>(from))); },
    [](void* self) noexcept { static_cast<D*>(self)->~D(); },
  };

  void reset() noexcept {
    if (ops_ != nullptr) {
      ops_->destroy(storage_);
      ops_ = nullptr;
    }
  }

  alignas(std::max_align_t) unsigned char storage_[Capacity];
  const ops* ops_ = nullptr;
};

} // namespace restcache
