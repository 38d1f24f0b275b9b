# SPDX-License-Identifier: Apache-2.0
# Shared by the bench/ scripts: the fixture layer the system scenarios use
# (test/system/lib.sh: a private PostgreSQL cluster with benchmark data,
# restcached started and waited for, nginx, the load tools' figures).
# Sourced, not executed.

source "$(dirname "${BASH_SOURCE[0]}")/../test/system/lib.sh"
