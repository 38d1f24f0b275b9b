// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE pg_async_pool
// The driver on its own thread (db.driver=async with runtime.scheduler=caf).
constexpr bool driver_on_io_thread = false;
#include "test/pg_async_pool_cases.inc"
