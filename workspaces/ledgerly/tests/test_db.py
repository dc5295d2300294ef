"""Tests for the SQL helpers in app.db, with the cursor replaced by a fake."""

import pytest

from app import db


class FakeCursor:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def execute(self, sql, params):
        self.log.append((sql, params))

    def fetchall(self):
        return [{"id": 42}]


class FakeConnection:
    def __init__(self):
        self.log = []

    def cursor(self, row_factory=None):
        return FakeCursor(self.log)


@pytest.fixture
def conn(monkeypatch):
    fake = FakeConnection()
    monkeypatch.setattr(db, "_connection", fake)
    return fake


def test_insert_returns_new_id(conn):
    assert db.insert("customers", name="Acme", owner_id=1) == 42
    sql, params = conn.log[-1]
    assert sql.startswith("INSERT INTO customers (name, owner_id)")
    assert params == ("Acme", 1)


def test_update_is_scoped_to_owner(conn):
    db.update("invoices", 5, owner_id=1, status="paid")
    sql, params = conn.log[-1]
    assert sql.endswith("WHERE id = %s AND owner_id = %s")
    assert params == ("paid", 5, 1)


def test_query_one_returns_none_when_empty(conn, monkeypatch):
    monkeypatch.setattr(FakeCursor, "fetchall", lambda self: [])
    assert db.query_one("SELECT 1") is None


def test_empty_export_is_empty_string():
    assert db.rows_to_csv([]) == ""
