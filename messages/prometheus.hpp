// SPDX-License-Identifier: Apache-2.0
#pragma once

// Writing the Prometheus text exposition format (version 0.0.4): one
// HELP/TYPE header per metric, then its samples. Shared by every /metrics
// source so the format is written in one place.

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace restcache {

/// "# HELP name help\n# TYPE name type\n"; type is "counter" or "gauge".
void append_metric_header(std::string& out, std::string_view name, std::string_view help,
                          std::string_view type);

/// "name{labels} value\n"; `labels` is empty or already braced ("{shard=\"0\"}").
void append_sample(std::string& out, std::string_view name, std::string_view labels, int64_t value);

/// The same for a value in a base unit with a fraction (seconds).
void append_sample(std::string& out, std::string_view name, std::string_view labels, double value);

/// A histogram: cumulative _bucket{le=...} samples over `bounds` (seconds)
/// and +Inf from per-bucket (not cumulative) `counts` (bounds + 1 of them),
/// then _sum (seconds) and _count.
void append_histogram(std::string& out, std::string_view name, std::string_view help,
                      const double* bounds, const uint64_t* counts, size_t bound_count, double sum);

/// The samples of one labelled series of a histogram (no header); `labels`
/// braced as for append_sample.
void append_histogram_samples(std::string& out, std::string_view name, std::string_view labels,
                              const double* bounds, const uint64_t* counts, size_t bound_count, double sum);

/// One metric over labelled series: the header, then for every (labels,
/// pointer to a struct of counters) pair of `series` a sample of the
/// counter `field` points to (an atomic, read relaxed).
template <class Range, class Field>
void append_series(std::string& out, std::string_view name, std::string_view help, std::string_view type,
                   const Range& series, Field field) {
  append_metric_header(out, name, help, type);
  for (const auto& [labels, counters] : series)
    append_sample(out, name, labels,
                  static_cast<int64_t>((counters->*field).load(std::memory_order_relaxed)));
}

/// A metric with a single unlabelled sample: header and sample.
template <class Value>
void append_metric(std::string& out, std::string_view name, std::string_view help,
                   std::string_view type, Value value) {
  append_metric_header(out, name, help, type);
  append_sample(out, name, {}, value);
}

} // namespace restcache
