// SPDX-License-Identifier: Apache-2.0
#pragma once

// An spdlog sink writing to a log_file (stderr or a reopenable file).

#include <spdlog/details/null_mutex.h>
#include <spdlog/sinks/base_sink.h>

#include <memory>
#include <mutex>

#include "logging/log_file.hpp"

namespace restcache::logging {

template <class Mutex>
class log_file_sink final : public spdlog::sinks::base_sink<Mutex> {
public:
  explicit log_file_sink(std::shared_ptr<log_file> file) : file_(std::move(file)) {}

protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t line;
    this->formatter_->format(msg, line);
    file_->write(line.data(), line.size());
  }
  void flush_() override {} // write(2) per line: nothing buffered here

private:
  std::shared_ptr<log_file> file_;
};

using log_file_sink_mt = log_file_sink<std::mutex>;

} // namespace restcache::logging
