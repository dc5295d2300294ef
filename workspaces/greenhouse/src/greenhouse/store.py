"""The one place that holds a database connection.

Rows come back as dicts. Callers pass SQL with ``%s`` placeholders, never
f-strings, so values are always sent as parameters.
"""

import psycopg
from psycopg.rows import dict_row

from greenhouse import settings

_conn = None


def connect(dsn=None):
    global _conn
    if _conn is None:
        _conn = psycopg.connect(dsn or settings.load().dsn, row_factory=dict_row, autocommit=True)
    return _conn


def query(sql, params=()):
    with connect().cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchall()


def query_one(sql, params=()):
    rows = query(sql, params)
    return rows[0] if rows else None


def insert(table, **values):
    names = ", ".join(values)
    marks = ", ".join(["%s"] * len(values))
    with connect().cursor() as cur:
        cur.execute(f"INSERT INTO {table} ({names}) VALUES ({marks})", tuple(values.values()))


def close():
    global _conn
    if _conn is not None:
        _conn.close()
        _conn = None
