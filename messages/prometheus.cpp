// SPDX-License-Identifier: Apache-2.0
#include "messages/prometheus.hpp"

#include <cstdio>

namespace restcache {

void append_metric_header(std::string& out, std::string_view name, std::string_view help,
                          std::string_view type) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

void append_sample(std::string& out, std::string_view name, std::string_view labels, int64_t value) {
  out += name;
  out += labels;
  out += ' ';
  out += std::to_string(value);
  out += '\n';
}

void append_sample(std::string& out, std::string_view name, std::string_view labels, double value) {
  char buf[32];
  auto n = std::snprintf(buf, sizeof buf, "%.6g", value);
  out += name;
  out += labels;
  out += ' ';
  out.append(buf, static_cast<size_t>(n));
  out += '\n';
}

void append_histogram_samples(std::string& out, std::string_view name, std::string_view labels,
                              const double* bounds, const uint64_t* counts, size_t bound_count, double sum) {
  // labels come braced ("{route=\"x\"}"); le joins them inside the braces.
  std::string inner = labels.size() >= 2 ? std::string{labels.substr(1, labels.size() - 2)} + "," : std::string{};
  std::string bucket{name};
  bucket += "_bucket";
  uint64_t cumulative = 0;
  char le[32];
  for (size_t i = 0; i <= bound_count; ++i) {
    cumulative += counts[i];
    if (i < bound_count)
      std::snprintf(le, sizeof le, "le=\"%g\"}", bounds[i]);
    else
      std::snprintf(le, sizeof le, "le=\"+Inf\"}");
    append_sample(out, bucket, "{" + inner + le, static_cast<int64_t>(cumulative));
  }
  append_sample(out, std::string{name} + "_sum", labels, sum);
  append_sample(out, std::string{name} + "_count", labels, static_cast<int64_t>(cumulative));
}

void append_histogram(std::string& out, std::string_view name, std::string_view help,
                      const double* bounds, const uint64_t* counts, size_t bound_count, double sum) {
  append_metric_header(out, name, help, "histogram");
  append_histogram_samples(out, name, {}, bounds, counts, bound_count, sum);
}

} // namespace restcache
