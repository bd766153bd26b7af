"""Totals of a tokencast dataset as DuckDB computes them: per day, per model
and per session, as exact decimals. The queries are the README's.

    python3 tests/dataset_totals.py DATASET_DIR   ->   JSON on stdout
"""

import json
import sys

import duckdb

root = sys.argv[1]
con = duckdb.connect()


def table(name):
    return f"read_parquet('{root}/{name}/*/*.parquet', hive_partitioning = true)"


def rows(sql):
    return [[str(v) for v in row] for row in con.sql(sql).fetchall()]


print(
    json.dumps(
        {
            "per_day": rows(
                f"""
                SELECT CAST(day AS VARCHAR), count(*), sum("tokencast.cost_usd")
                FROM {table('sessions')} GROUP BY 1 ORDER BY 1"""
            ),
            "per_model": rows(
                f"""
                SELECT "gen_ai.response.model", count(*), sum("tokencast.cost_usd")
                FROM {table('requests')} GROUP BY 1 ORDER BY 1"""
            ),
            "per_session": rows(
                f"""
                SELECT "gen_ai.conversation.id", sum("tokencast.requests"),
                       sum("tokencast.cost_usd"), sum("tokencast.as_recorded.upper_usd")
                FROM {table('sessions')} GROUP BY 1 ORDER BY 1"""
            ),
            "tool_bytes": rows(
                f"""
                SELECT "gen_ai.tool.name", sum("tokencast.bytes")
                FROM {table('tool_results')} WHERE "tokencast.kind" = 'tool'
                GROUP BY 1 ORDER BY 1"""
            ),
        }
    )
)
