// SPDX-License-Identifier: Apache-2.0
#pragma once

// What one client address may hold of the HTTP edge: its open connections
// (http.max-connections-per-address, the oldest idle or slowest shed at the
// cap) and its failed credentials (a few at once, then one a second). The
// address is the peer's, or the one a trusted balancer names. No Beast here.

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "messages/ip_address.hpp"

namespace restcache::http {

/// What a connection tells its address's slots about itself, read from
/// other io threads when one of them must go (relaxed: a hint, never a lock).
class sheddable {
public:
  enum class phase : uint8_t {
    busy,      ///< answering, or about to: never shed
    idle,      ///< keep-alive between requests, since `since`
    receiving, ///< a request begun and not yet whole, since `since`
    leaving,   ///< closing: no longer counted
  };
  void set_phase(phase p) noexcept { phase_.store(p, std::memory_order_relaxed); }
  void set_phase(phase p, int64_t since) noexcept {
    since_.store(since, std::memory_order_relaxed);
    phase_.store(p, std::memory_order_relaxed);
  }
  /// Called once, from any thread: close now if idle or receiving, else
  /// after the answer in hand.
  virtual void shed() = 0;

protected:
  sheddable() = default;
  ~sheddable() = default;

private:
  friend class address_slots;
  std::atomic<phase> phase_{phase::busy};
  std::atomic<int64_t> since_{0};
  std::atomic<bool> shed_{false};
};

/// Open connections per client address. A connection takes a place once its
/// address is known and gives it back when it goes.
class address_slots {
public:
  /// `per_address` 0: no cap (nothing is counted).
  explicit address_slots(size_t per_address);

  enum class admission : uint8_t {
    admitted,
    shed_one, ///< admitted, and one of the address's connections told to go
    refused,  ///< at the cap with none idle or receiving: the newcomer goes
  };
  /// `who` is a client_key(). At the cap, the address's connection idle
  /// longest is shed; with none idle, the one receiving a request longest
  /// (a slow or stalled sender); with neither, the newcomer is refused.
  admission admit(const ip_address& who, const std::shared_ptr<sheddable>& c);
  void leave(const ip_address& who, const sheddable* c) noexcept;
  /// Connections counted for `who` now (shed and leaving ones left out).
  size_t counted(const ip_address& who);
  size_t per_address() const noexcept { return per_address_; }

private:
  struct member {
    std::weak_ptr<sheddable> conn;
    const sheddable* id;
  };
  struct shard {
    std::mutex mtx;
    std::unordered_map<ip_address, std::vector<member>, ip_address_hash> by_address;
  };
  shard& shard_of(const ip_address& who) noexcept;

  size_t per_address_;
  std::array<shard, 16> shards_;
};

/// Failed credentials per client address (a rate by the generic cell rate
/// algorithm): `burst` at once, then one per `interval`. Past that, a
/// credential from the address is not even compared until its time comes.
class credential_throttle {
public:
  using clock = std::chrono::steady_clock;
  credential_throttle(unsigned burst, clock::duration interval, size_t max_addresses);

  /// Whether a credential from `who` (a client_key()) may be checked now.
  bool may_try(const ip_address& who, clock::time_point now);
  void failed(const ip_address& who, clock::time_point now);
  /// Addresses with failures still counted.
  size_t tracked();

private:
  /// Makes room for one more address: the ones whose failures have all
  /// expired go; if none has, the least throttled.
  void make_room(clock::time_point now);

  unsigned burst_;
  clock::duration interval_;
  size_t max_addresses_;
  std::mutex mtx_;
  /// When each address's failures will all have expired.
  std::unordered_map<ip_address, clock::time_point, ip_address_hash> until_;
  std::atomic<size_t> size_{0}; ///< until_.size(): a correct token costs no lock while no one has failed
};

} // namespace restcache::http
