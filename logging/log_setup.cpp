// SPDX-License-Identifier: Apache-2.0
#include "logging/log_setup.hpp"

#include <spdlog/async.h>
#include <spdlog/async_logger.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "logging/json_formatter.hpp"
#include "logging/log_file_sink.hpp"

namespace restcache::logging {

log_setup::log_setup(const log_options& opts) : log_(std::make_shared<log_file>(opts.file)) {
  if (opts.access)
    access_file_ = opts.access_file.empty() || opts.access_file == opts.file
                     ? log_
                     : std::make_shared<log_file>(opts.access_file);
  spdlog::init_thread_pool(8192, 1);
  auto sink = std::make_shared<log_file_sink_mt>(log_);
  if (opts.format == "json")
    sink->set_formatter(std::make_unique<json_formatter>());
  else
    sink->set_pattern("%Y-%m-%dT%H:%M:%S.%e %l %v");
  auto logger = std::make_shared<spdlog::async_logger>("restcached", std::move(sink), spdlog::thread_pool(),
                                                       spdlog::async_overflow_policy::overrun_oldest);
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(opts.level));
  // Warnings and errors reach the file promptly even if the daemon dies.
  spdlog::flush_on(spdlog::level::warn);
  if (access_file_)
    access_ = std::make_unique<access_log>(access_file_, opts.format == "json");
}

log_setup::~log_setup() {
  access_.reset();
  spdlog::shutdown(); // flushes the async logger and drops it, the default with it
  // A line logged after this (a start refused, another setup in one test
  // process) goes to stderr rather than through a dropped default logger.
  spdlog::set_default_logger(
    std::make_shared<spdlog::logger>("restcached", std::make_shared<spdlog::sinks::stderr_sink_mt>()));
}

std::string log_setup::reopen() {
  std::string problems;
  // The access log may share the log's file: reopen each file once.
  for (auto* f : {log_.get(), access_file_ == log_ ? nullptr : access_file_.get()}) {
    if (!f)
      continue;
    if (auto problem = f->reopen(); !problem.empty())
      problems += (problems.empty() ? "" : "; ") + f->path() + ": " + problem;
  }
  return problems;
}

} // namespace restcache::logging
