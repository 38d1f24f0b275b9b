// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE client_address

#include <caf/test/dsl.hpp>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "http/address_limits.hpp"
#include "http/proxy_header.hpp"
#include "messages/ip_address.hpp"

using namespace restcache;
using namespace restcache::http;
using namespace std::chrono_literals;

namespace {

ip_address addr(std::string_view text) {
  auto a = ip_address::parse(text);
  CAF_REQUIRE(a.has_value());
  return *a;
}

bool network_list_holds(std::string_view list, std::string_view address) {
  std::string why;
  auto nets = ip_network_list::parse(list, why);
  if (!nets)
    CAF_FAIL("not a list: " << why);
  return nets->contains(addr(address));
}

std::string refusal_of(std::string_view list) {
  std::string why;
  auto nets = ip_network_list::parse(list, why);
  return nets ? std::string{"accepted"} : why;
}

/// A PROXY v2 header as HAProxy's send-proxy-v2 writes it.
std::vector<uint8_t> proxy_v2(uint8_t command, uint8_t family, std::vector<uint8_t> block) {
  std::vector<uint8_t> h = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
  h.push_back(static_cast<uint8_t>(0x20 | command));
  h.push_back(family);
  h.push_back(static_cast<uint8_t>(block.size() >> 8));
  h.push_back(static_cast<uint8_t>(block.size()));
  h.insert(h.end(), block.begin(), block.end());
  return h;
}

std::vector<uint8_t> tcp4_block(std::vector<uint8_t> source) {
  std::vector<uint8_t> b = source;
  b.insert(b.end(), {127, 0, 0, 1, 0x30, 0x39, 0x1f, 0x90}); // destination, ports
  return b;
}

proxy_header read(const std::vector<uint8_t>& bytes) {
  return read_proxy_header(bytes.data(), bytes.size());
}

/// A connection as address_slots sees it.
struct fake_connection : sheddable {
  std::atomic<int> sheds{0};
  void shed() override { sheds.fetch_add(1); }
};

std::shared_ptr<fake_connection> connection(sheddable::phase p, int64_t since) {
  auto c = std::make_shared<fake_connection>();
  c->set_phase(p, since);
  return c;
}

} // namespace

CAF_TEST(addresses parse compare and name their client) {
  CAF_CHECK_EQUAL(addr("192.0.2.7").text(), "192.0.2.7");
  CAF_CHECK(addr("192.0.2.7").is_v4());
  CAF_CHECK(addr("::ffff:192.0.2.7") == addr("192.0.2.7")); // a dual-stack socket's peer
  CAF_CHECK_EQUAL(addr("[2001:db8::1]").text(), "2001:db8::1");
  CAF_CHECK(!ip_address::parse("example.org"));
  CAF_CHECK(!ip_address::parse("192.0.2.256"));
  // An IPv4 client is its address; an IPv6 one its /64.
  CAF_CHECK(addr("192.0.2.7").client_key() != addr("192.0.2.8").client_key());
  CAF_CHECK(addr("2001:db8:1:2::7").client_key() == addr("2001:db8:1:2:ffff::9").client_key());
  CAF_CHECK(addr("2001:db8:1:2::7").client_key() != addr("2001:db8:1:3::7").client_key());
}

CAF_TEST(a network list holds its addresses and networks and refuses what it cannot read) {
  CAF_CHECK(network_list_holds("127.0.0.1", "127.0.0.1"));
  CAF_CHECK(!network_list_holds("127.0.0.1", "127.0.0.2"));
  CAF_CHECK(network_list_holds("10.0.0.0/8, 192.0.2.0/24", "10.200.3.4"));
  CAF_CHECK(network_list_holds("10.0.0.0/8, 192.0.2.0/24", "192.0.2.255"));
  CAF_CHECK(!network_list_holds("10.0.0.0/8, 192.0.2.0/24", "192.0.3.1"));
  CAF_CHECK(network_list_holds("172.16.0.0/12", "172.31.255.1"));
  CAF_CHECK(!network_list_holds("172.16.0.0/12", "172.32.0.1"));
  CAF_CHECK(network_list_holds("0.0.0.0/0", "203.0.113.9"));
  CAF_CHECK(!network_list_holds("0.0.0.0/0", "2001:db8::1")); // IPv4's "all" is not IPv6's
  CAF_CHECK(network_list_holds("2001:db8::/32", "2001:db8:ffff::1"));
  CAF_CHECK(network_list_holds("::1", "::1"));
  CAF_CHECK(network_list_holds("", "::1") == false);
  CAF_CHECK(refusal_of("10.0.0.0/33").find("prefix length") != std::string::npos);
  CAF_CHECK(refusal_of("10.0.0.1/8").find("host bits") != std::string::npos);
  CAF_CHECK(refusal_of("balancer.internal").find("'balancer.internal' is not an IP address") != std::string::npos);
  CAF_CHECK(refusal_of("10.0.0.0/x").find("prefix length") != std::string::npos);
  CAF_CHECK_EQUAL(refusal_of(" 127.0.0.1 , ::1 ,"), "accepted");
}

CAF_TEST(a PROXY v2 header names the client it forwards for) {
  auto h = proxy_v2(1, 0x11, tcp4_block({198, 51, 100, 23}));
  auto with_request = h;
  for (char c : std::string{"GET / HTTP/1.1\r\n"})
    with_request.push_back(static_cast<uint8_t>(c));
  auto r = read(with_request);
  CAF_REQUIRE(r.result == proxy_header::outcome::proxied);
  CAF_CHECK_EQUAL(r.length, h.size());
  CAF_CHECK_EQUAL(r.client.text(), "198.51.100.23");

  std::vector<uint8_t> v6(36, 0);
  auto source = addr("2001:db8::42");
  std::memcpy(v6.data(), source.bytes.data(), 16);
  r = read(proxy_v2(1, 0x21, v6));
  CAF_REQUIRE(r.result == proxy_header::outcome::proxied);
  CAF_CHECK_EQUAL(r.client.text(), "2001:db8::42");

  // A TLV after the addresses is skipped with them.
  auto with_tlv = tcp4_block({203, 0, 113, 5});
  with_tlv.insert(with_tlv.end(), {0x04, 0x00, 0x02, 0x00, 0x00}); // PP2_TYPE_NOOP
  r = read(proxy_v2(1, 0x11, with_tlv));
  CAF_REQUIRE(r.result == proxy_header::outcome::proxied);
  CAF_CHECK_EQUAL(r.length, 16u + 12u + 5u);
}

CAF_TEST(a PROXY v2 header arriving in parts is incomplete until whole) {
  auto h = proxy_v2(1, 0x11, tcp4_block({198, 51, 100, 23}));
  for (size_t n = 1; n < h.size(); ++n)
    CAF_CHECK(read_proxy_header(h.data(), n).result == proxy_header::outcome::incomplete);
  CAF_CHECK(read_proxy_header(h.data(), h.size()).result == proxy_header::outcome::proxied);
}

CAF_TEST(LOCAL and addressless PROXY headers leave the peer as the client) {
  CAF_CHECK(read(proxy_v2(0, 0x00, {})).result == proxy_header::outcome::local);
  auto local_with_addresses = read(proxy_v2(0, 0x11, tcp4_block({1, 2, 3, 4})));
  CAF_CHECK(local_with_addresses.result == proxy_header::outcome::local);
  CAF_CHECK_EQUAL(local_with_addresses.length, 28u);
  CAF_CHECK(read(proxy_v2(1, 0x00, {})).result == proxy_header::outcome::local);            // UNSPEC
  CAF_CHECK(read(proxy_v2(1, 0x31, std::vector<uint8_t>(216))).result == proxy_header::outcome::local); // UNIX
}

CAF_TEST(what is not a PROXY v2 header is absent or invalid) {
  std::string http = "GET /health HTTP/1.1\r\n";
  CAF_CHECK(read_proxy_header(reinterpret_cast<const uint8_t*>(http.data()), http.size()).result
            == proxy_header::outcome::absent);
  std::string v1 = "PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\n";
  CAF_CHECK(read_proxy_header(reinterpret_cast<const uint8_t*>(v1.data()), v1.size()).result
            == proxy_header::outcome::absent);
  std::string crlf = "\r\nGET / HTTP/1.1\r\n";
  CAF_CHECK(read_proxy_header(reinterpret_cast<const uint8_t*>(crlf.data()), crlf.size()).result
            == proxy_header::outcome::absent);
  auto bad_version = proxy_v2(1, 0x11, tcp4_block({1, 2, 3, 4}));
  bad_version[12] = 0x11;
  CAF_CHECK(read(bad_version).result == proxy_header::outcome::invalid);
  auto bad_command = proxy_v2(1, 0x11, tcp4_block({1, 2, 3, 4}));
  bad_command[12] = 0x22;
  CAF_CHECK(read(bad_command).result == proxy_header::outcome::invalid);
  CAF_CHECK(read(proxy_v2(1, 0x11, {1, 2, 3})).result == proxy_header::outcome::invalid); // short block
  CAF_CHECK(read(proxy_v2(1, 0x12, tcp4_block({1, 2, 3, 4}))).result == proxy_header::outcome::invalid); // UDP
  auto too_long = proxy_v2(1, 0x11, std::vector<uint8_t>(2000));
  auto r = read_proxy_header(too_long.data(), 16);
  CAF_CHECK(r.result == proxy_header::outcome::invalid);
  CAF_CHECK(std::string{r.error}.find("1024") != std::string::npos);
}

CAF_TEST(an address at its cap sheds its connection idle longest then the slowest receiving) {
  address_slots slots{3};
  auto who = addr("192.0.2.7");
  auto a = connection(sheddable::phase::idle, 300);
  auto b = connection(sheddable::phase::idle, 100); // idle longest
  auto c = connection(sheddable::phase::receiving, 50);
  for (auto& x : {a, b, c})
    CAF_CHECK(slots.admit(who, x) == address_slots::admission::admitted);
  CAF_CHECK_EQUAL(slots.counted(who), 3u);
  // Another address is not touched by this one's cap.
  auto elsewhere = connection(sheddable::phase::busy, 0);
  CAF_CHECK(slots.admit(addr("192.0.2.8"), elsewhere) == address_slots::admission::admitted);

  auto d = connection(sheddable::phase::busy, 0);
  CAF_CHECK(slots.admit(who, d) == address_slots::admission::shed_one);
  CAF_CHECK_EQUAL(b->sheds.load(), 1);
  CAF_CHECK_EQUAL(a->sheds.load() + c->sheds.load(), 0);
  CAF_CHECK_EQUAL(slots.counted(who), 3u); // the shed one no longer counts, though not gone yet

  auto e = connection(sheddable::phase::busy, 0);
  CAF_CHECK(slots.admit(who, e) == address_slots::admission::shed_one);
  CAF_CHECK_EQUAL(a->sheds.load(), 1);
  // With none idle, the one receiving longest (a stalled sender) goes.
  auto f = connection(sheddable::phase::busy, 0);
  CAF_CHECK(slots.admit(who, f) == address_slots::admission::shed_one);
  CAF_CHECK_EQUAL(c->sheds.load(), 1);
  // Now every counted connection is busy: the newcomer is refused.
  auto g = connection(sheddable::phase::busy, 0);
  CAF_CHECK(slots.admit(who, g) == address_slots::admission::refused);
  CAF_CHECK_EQUAL(d->sheds.load() + e->sheds.load() + f->sheds.load(), 0);
  // A connection leaving makes room.
  for (auto* gone : {a.get(), b.get(), c.get(), d.get()})
    slots.leave(who, gone);
  CAF_CHECK_EQUAL(slots.counted(who), 2u);
  CAF_CHECK(slots.admit(who, g) == address_slots::admission::admitted);
  // A closing connection is not counted either.
  e->set_phase(sheddable::phase::leaving);
  auto h = connection(sheddable::phase::busy, 0);
  CAF_CHECK(slots.admit(who, h) == address_slots::admission::admitted);
  for (auto* gone : {e.get(), f.get(), g.get(), h.get()})
    slots.leave(who, gone);
  CAF_CHECK_EQUAL(slots.counted(who), 0u);
  CAF_CHECK_EQUAL(slots.counted(addr("192.0.2.8")), 1u);
  slots.leave(addr("192.0.2.8"), elsewhere.get());
}

CAF_TEST(no cap counts nothing) {
  address_slots slots{0};
  auto who = addr("192.0.2.7");
  std::vector<std::shared_ptr<fake_connection>> many;
  for (int i = 0; i < 100; ++i) {
    many.push_back(connection(sheddable::phase::busy, 0));
    CAF_CHECK(slots.admit(who, many.back()) == address_slots::admission::admitted);
  }
  CAF_CHECK_EQUAL(slots.counted(who), 0u);
}

CAF_TEST(wrong credentials are taken ten at once then one a second per address) {
  using clock = credential_throttle::clock;
  credential_throttle throttle{10, 1s, 4};
  auto t = clock::time_point{} + 1000s;
  auto guesser = addr("192.0.2.7"), other = addr("192.0.2.8");
  for (int i = 0; i < 10; ++i) {
    CAF_CHECK(throttle.may_try(guesser, t));
    throttle.failed(guesser, t);
  }
  CAF_CHECK(!throttle.may_try(guesser, t));
  CAF_CHECK(!throttle.may_try(guesser, t + 999ms));
  CAF_CHECK(throttle.may_try(other, t)); // another address is not slowed
  // One more a second from then on.
  CAF_CHECK(throttle.may_try(guesser, t + 1s));
  throttle.failed(guesser, t + 1s);
  CAF_CHECK(!throttle.may_try(guesser, t + 1500ms));
  CAF_CHECK(throttle.may_try(guesser, t + 2s));
  // Once every failure has expired the address is forgotten.
  CAF_CHECK(throttle.may_try(guesser, t + 12s));
  CAF_CHECK_EQUAL(throttle.tracked(), 0u);
}

CAF_TEST(the throttle holds a bounded number of addresses and keeps the most throttled) {
  using clock = credential_throttle::clock;
  credential_throttle throttle{2, 1s, 4};
  auto t = clock::time_point{} + 1000s;
  auto worst = addr("192.0.2.1");
  for (int i = 0; i < 5; ++i)
    throttle.failed(worst, t);
  CAF_CHECK(!throttle.may_try(worst, t));
  for (int i = 2; i < 40; ++i)
    throttle.failed(ip_address::v4(0xC0000200u + static_cast<uint32_t>(i)), t);
  CAF_CHECK_EQUAL(throttle.tracked(), 4u);
  CAF_CHECK(!throttle.may_try(worst, t)); // the one that failed most is still slowed
}
