"""The analytics half: DuckDB views over one version of a store, and the reports built on them.

`connection` (connect, Params: one DuckDB connection over one store version), `views` (the
loader of sql/), `report_data` (what each report computes), `transforms` (polars),
`charts` (altair), `format` (one formatter and label per measure), `notebook` (display in
the report notebooks), `reports` (the papermill runner). It reads a store version and never
writes the store.
"""

from memlib.analytics.connection import (
    DEFAULT_POLICIES,
    DEFAULT_SOURCE_WEIGHTS,
    Params,
    check_days,
    connect,
    policies,
)

__all__ = ["DEFAULT_POLICIES", "DEFAULT_SOURCE_WEIGHTS", "Params", "check_days", "connect", "policies"]
