// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE pg_async_pool_io
// The driver on an io_context's thread (db.driver=async under the io scheduler).
constexpr bool driver_on_io_thread = true;
#include "test/pg_async_pool_cases.inc"
