#include "http/prometheus.hpp"

#include <cstdio>

namespace restcache::http {

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

} // namespace restcache::http
